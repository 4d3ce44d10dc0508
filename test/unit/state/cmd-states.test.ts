import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CachingFileClient, FileRoots, LocalFileSource } from '../../../src/fileserver/index.js';
import type { FileClient } from '../../../src/modules/index.js';
import { renderTemplate } from '../../../src/render/index.js';
import { reinterpretStateful } from '../../../src/state/modules/cmd-stateful.js';
import { runState } from './state-ctx.js';

const isRoot = process.getuid?.() === 0;
let tmp: string;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-cmdstate-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('cmd.run', () => {
  it("runs through the shell in cwd with env and reports Salt's {pid, retcode, stdout, stderr}", async () => {
    const r = await runState('cmd.run', { name: 'pwd; echo "$GREETING $OTHER"; echo oops >&2', cwd: tmp, env: [{ GREETING: 'hello' }, { OTHER: 'world' }] });
    assert.equal(r.result, true);
    assert.equal(r.comment, 'Command "pwd; echo "$GREETING $OTHER"; echo oops >&2" run');
    assert.deepEqual(Object.keys(r.changes).sort(), ['pid', 'retcode', 'stderr', 'stdout']);
    assert.equal(r.changes.stdout, `${fs.realpathSync(tmp)}\nhello world`);
    assert.equal(r.changes.stderr, 'oops');
    assert.equal(r.changes.retcode, 0);
    assert.ok(typeof r.changes.pid === 'number' && r.changes.pid > 0);
  });

  it('a non-zero exit fails the state, unless success_retcodes lists it', async () => {
    const bad = await runState('cmd.run', { name: 'exit 3' });
    assert.equal(bad.result, false);
    assert.equal(bad.changes.retcode, 3);
    const ok = await runState('cmd.run', { name: 'exit 3', success_retcodes: [3] });
    assert.equal(ok.result, true);
  });

  it('test=True runs nothing and says it would', async () => {
    const marker = path.join(tmp, 'ran-in-test');
    const r = await runState('cmd.run', { name: `touch ${marker}` }, { test: true });
    assert.equal(r.result, null);
    assert.equal(r.comment, `Command "touch ${marker}" would have been executed`);
    assert.equal(fs.existsSync(marker), false);
  });

  it('a missing cwd fails with the coded message, nothing runs', async () => {
    const r = await runState('cmd.run', { name: 'true', cwd: path.join(tmp, 'nope') });
    assert.equal(r.result, false);
    assert.equal(r.comment, `Desired working directory "${path.join(tmp, 'nope')}" is not available`);
  });

  it('umask and prepend_path apply to the command; a bad umask runs nothing', async () => {
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'brine-hello'), '#!/bin/sh\necho from-prepended\n', { mode: 0o755 });
    const r = await runState('cmd.run', { name: 'umask; brine-hello; touch made', cwd: tmp, umask: '027', prepend_path: bin });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.changes.stdout, '0027\nfrom-prepended');
    assert.equal(fs.statSync(path.join(tmp, 'made')).mode & 0o777, 0o640);
    const bad = await runState('cmd.run', { name: 'touch never', cwd: tmp, umask: '0; reboot' });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /umask must be 3 or 4 octal digits/);
    assert.equal(fs.existsSync(path.join(tmp, 'never')), false);
  });

  it('hide_output keeps stdout and stderr out of the result', async () => {
    const r = await runState('cmd.run', { name: 'echo secret', hide_output: true });
    assert.equal(r.result, true);
    assert.equal(r.changes.stdout, '');
  });

  it('runas runs the command as that user, in its home by default', { skip: !isRoot ? 'needs root to switch users' : false }, async () => {
    const r = await runState('cmd.run', { name: 'id -un; echo "$HOME"; echo "$USER"', runas: 'nobody' });
    assert.equal(r.result, true, r.comment);
    const home = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('nobody:'))!
      .split(':')[5];
    assert.equal(r.changes.stdout, `nobody\n${home}\nnobody`);
    const missing = await runState('cmd.run', { name: 'true', runas: 'no-such-user-brine' });
    assert.equal(missing.result, false);
    assert.match(missing.comment, /runas user 'no-such-user-brine' does not exist/);
  });
});

describe('cmd.run stateful', () => {
  it('a last line of key=value pairs sets changes and comment; changed=no means no changes', async () => {
    const changed = await runState('cmd.run', { name: `echo working; echo "changed=yes comment='did it' extra=1"`, stateful: true });
    assert.equal(changed.result, true);
    assert.equal(changed.comment, 'did it');
    assert.equal(changed.changes.changed, 'yes');
    assert.equal(changed.changes.extra, '1');
    assert.equal(changed.changes.stdout, 'working', 'the protocol line is not part of stdout');
    const same = await runState('cmd.run', { name: `echo "changed=no comment='nothing to do'"`, stateful: true });
    assert.equal(same.result, true);
    assert.deepEqual(same.changes, {});
    assert.equal(same.comment, 'nothing to do');
  });

  it('a JSON object as the whole stdout works too; a failed exit still fails', async () => {
    const json = await runState('cmd.run', { name: `echo '{"changed": true, "comment": "json says hi", "version": 2}'`, stateful: true });
    assert.equal(json.result, true);
    assert.equal(json.comment, 'json says hi');
    assert.equal(json.changes.version, 2);
    assert.equal(json.changes.stdout, '');
    const failed = await runState('cmd.run', { name: `echo "changed=yes"; exit 1`, stateful: true });
    assert.equal(failed.result, false);
  });

  it("unparseable output and a JSON non-object are Salt's failures", () => {
    const base = { name: 'x', result: true, comment: '' };
    const bad = reinterpretStateful({ ...base, changes: { stdout: 'no pairs here', stderr: '', retcode: 0, pid: 1 } });
    assert.equal(bad.result, false);
    assert.equal(bad.comment, 'Failed parsing script output! Stdout must be JSON or a line of name=value pairs.');
    const list = reinterpretStateful({ ...base, changes: { stdout: '[1,2]', stderr: '', retcode: 0, pid: 1 } });
    assert.equal(list.result, false);
    assert.match(list.comment, /must be a JSON object/);
    const empty = reinterpretStateful({ ...base, changes: { stdout: '', stderr: 'warned', retcode: 0, pid: 1 } });
    assert.deepEqual(empty.changes, {});
    assert.equal(empty.comment, 'warned');
  });
});

describe('cmd.wait', () => {
  it('does nothing on its own and runs from a watch (mod_watch)', async () => {
    const marker = path.join(tmp, 'waited');
    const idle = await runState('cmd.wait', { name: `touch ${marker}` });
    assert.deepEqual(idle, { name: `touch ${marker}`, result: true, changes: {}, comment: '' });
    assert.equal(fs.existsSync(marker), false);
    const watched = await runState('cmd.wait', { name: `touch ${marker}` }, { watch: true });
    assert.equal(watched.result, true);
    assert.equal(watched.changes.retcode, 0);
    assert.equal(fs.existsSync(marker), true);
  });
});

/** The masterless file client (file_client: local) over one root directory. */
function localFiles(root: string, cachedir: string): FileClient {
  return new CachingFileClient(new LocalFileSource(new FileRoots({ file_roots: { base: [root] } })), { cachedir, chunkSize: 64 * 1024 });
}

describe('cmd.script', () => {
  it('runs a salt:// script with args split like a shell, in cwd, and removes its copy', async () => {
    const roots = path.join(tmp, 'roots');
    fs.mkdirSync(path.join(roots, 'scripts'), { recursive: true });
    fs.writeFileSync(path.join(roots, 'scripts', 'show.sh'), '#!/bin/sh\necho "argc=$#"; for a in "$@"; do echo "[$a]"; done; pwd; echo "$0"\n');
    const files = localFiles(roots, path.join(tmp, 'cache'));
    const r = await runState('cmd.script', { name: 'salt://scripts/show.sh', args: `one 'two words' "$HOME"`, cwd: tmp }, { exec: { files } });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, "Command 'salt://scripts/show.sh' run");
    const lines = String(r.changes.stdout).split('\n');
    assert.deepEqual(lines.slice(0, 5), ['argc=3', '[one]', '[two words]', '[$HOME]', fs.realpathSync(tmp)], 'no expansion of $HOME: argv, never a shell line');
    assert.equal(fs.existsSync(lines[5]!), false, 'the temporary copy is gone after the run');
    const missing = await runState('cmd.script', { name: 'salt://scripts/missing.sh' }, { exec: { files } });
    assert.equal(missing.result, false);
    assert.match(missing.comment, /scripts\/missing\.sh/);
    assert.deepEqual(missing.changes, {});
  });

  it('a local script without #! runs under /bin/sh; a missing one fails clearly; salt:// without a file server is FILESERVER_UNAVAILABLE', async () => {
    const local = path.join(tmp, 'plain.sh');
    fs.writeFileSync(local, 'echo plain $1\n');
    const r = await runState('cmd.script', { name: 'plain', source: local, args: ['x'] });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.changes.stdout, 'plain x');
    const missing = await runState('cmd.script', { name: path.join(tmp, 'missing.sh') });
    assert.equal(missing.result, false);
    assert.match(missing.comment, /cannot read .*missing\.sh/);
    const nofs = await runState('cmd.script', { name: 'salt://x.sh' });
    assert.equal(nofs.result, false);
    assert.match(nofs.comment, /no file server is reachable/);
  });

  it('runas: the private copy is readable and runnable by that user only', { skip: !isRoot ? 'needs root to switch users' : false }, async () => {
    const local = path.join(tmp, 'who.sh');
    fs.writeFileSync(local, '#!/bin/sh\nid -un\nstat -c %U:%a "$0"\n');
    const r = await runState('cmd.script', { name: local, runas: 'nobody' });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.changes.stdout, 'nobody\nnobody:700');
  });

  it('test=True fetches and runs nothing', async () => {
    const r = await runState('cmd.script', { name: 'salt://never.sh' }, { test: true });
    assert.equal(r.result, null);
    assert.equal(r.comment, "Command 'salt://never.sh' would have been executed");
  });

  it('template: jinja renders the script first', async (t) => {
    const engine = await renderTemplate('{{ 1 }}', 'jinja', { source: 'probe', saltenv: 'base', context: {}, callFunction: () => null, loadFile: () => undefined }).catch(() => undefined);
    if (engine !== '1') {
      t.skip('the Jinja engine is not in this tree yet (render/pipeline.ts is the yaml-only placeholder)');
      return;
    }
    const local = path.join(tmp, 'tpl.sh');
    fs.writeFileSync(local, 'echo "{{ grains.id }} {{ who }}"\n');
    const r = await runState('cmd.script', { name: local, template: 'jinja', defaults: { who: 'default' }, context: { who: 'context' } });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.changes.stdout, 'web1 context');
  });
});
