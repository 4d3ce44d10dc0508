// Issue 22 (result shapes): cmd.run, cmd.wait and cmd.script return exactly what Salt 3007's
// salt/states/cmd.py returns, in test and real mode, pinned whole (name, result, changes, comment).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runState } from './state-ctx.js';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-shapes-cmd-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('cmd.run result shapes (salt/states/cmd.py run)', () => {
  it('test=True: result None, changes {cmd: <command>} (Salt >= 3006, #64150), nothing runs', async () => {
    const marker = path.join(tmp, 'ran');
    const cmd = `touch ${marker}`;
    const r = await runState('cmd.run', { name: cmd }, { test: true });
    assert.deepEqual(r, { name: cmd, result: null, changes: { cmd }, comment: `Command "${cmd}" would have been executed` });
    assert.equal(fs.existsSync(marker), false);
  });

  it('test=True with stateful: Salt reinterprets the test report, leaving no changes and an empty comment', async () => {
    const r = await runState('cmd.run', { name: 'echo changed=yes', stateful: true }, { test: true });
    assert.deepEqual(r, { name: 'echo changed=yes', result: null, changes: {}, comment: '' });
  });

  it('real run: changes are cmd.run_all\'s {pid, retcode, stdout, stderr}, comment Command "<name>" run', async () => {
    const r = await runState('cmd.run', { name: 'echo out; echo err >&2; exit 0' });
    const { pid, ...rest } = r.changes as { pid: number };
    assert.ok(pid > 0);
    assert.deepEqual(
      { ...r, changes: rest },
      { name: 'echo out; echo err >&2; exit 0', result: true, changes: { retcode: 0, stdout: 'out', stderr: 'err' }, comment: 'Command "echo out; echo err >&2; exit 0" run' },
    );
    const bad = await runState('cmd.run', { name: 'exit 4' });
    assert.equal(bad.result, false);
    assert.equal(bad.comment, 'Command "exit 4" run');
    assert.equal(bad.changes.retcode, 4);
  });

  it("cmd.wait without a watch: True, no changes, empty comment; its mod_watch in test mode is cmd.run's report", async () => {
    assert.deepEqual(await runState('cmd.wait', { name: 'echo hi' }), { name: 'echo hi', result: true, changes: {}, comment: '' });
    assert.deepEqual(await runState('cmd.wait', { name: 'echo hi' }, { test: true, watch: true }), {
      name: 'echo hi',
      result: null,
      changes: { cmd: 'echo hi' },
      comment: 'Command "echo hi" would have been executed',
    });
  });
});

describe('cmd.script result shapes (salt/states/cmd.py script)', () => {
  it("test=True: result None, no changes, comment in single quotes: Command '<name>' would have been executed", async () => {
    const r = await runState('cmd.script', { name: 'salt://scripts/deploy.sh' }, { test: true });
    assert.deepEqual(r, { name: 'salt://scripts/deploy.sh', result: null, changes: {}, comment: "Command 'salt://scripts/deploy.sh' would have been executed" });
  });

  it("real run: comment Command '<name>' run, changes are run_all's output", async () => {
    const script = path.join(tmp, 'hello.sh');
    fs.writeFileSync(script, '#!/bin/sh\necho hello\n');
    const r = await runState('cmd.script', { name: script });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `Command '${script}' run`);
    assert.deepEqual(Object.keys(r.changes).sort(), ['pid', 'retcode', 'stderr', 'stdout']);
    assert.equal(r.changes.stdout, 'hello');
  });
});
