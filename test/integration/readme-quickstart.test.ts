// Issue 26 point 6: README.md's quick start, its stop/restart commands, its states example and
// its masterless step, run as written: the shell blocks of "Using it" and "Configuring machines:
// states" are taken from README.md and run by bash in order, with only /tmp/b moved to a temp
// dir and the master on a free port instead of 4506; `npx brine` is this checkout's brine (an
// `npx` on PATH that execs it) and the daemons run as the README starts them, `node bin/brine.js`
// in the checkout. Where a person would wait (the key to show up, the minion to sign in again),
// that `npx` polls with a deadline. The README's own kill must stop both daemons.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRINE_BIN, freePort, repoRoot, waitUntil } from '../helpers/cluster.js';

/** The ```sh blocks between two headings of README.md. */
function shellBlocks(readme: string, from: string, to: string): string[] {
  const start = readme.indexOf(from);
  const end = readme.indexOf(to, start);
  assert.ok(start >= 0 && end > start, `README.md has the sections '${from}' and '${to}'`);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

// `npx brine ARGS`: this checkout's brine. Commands a person types after a pause wait here for
// what the pause gives them: `key -a ID` for ID's key to be pending, `run`/`call` (not --local)
// for the minion to answer again (it signs in within acceptance_wait_time, or reconnects after
// a master restart).
const NPX = (node: string, brine: string) => `#!/bin/bash
[ "$1" = brine ] && shift
b() { "${node}" "${brine}" "$@"; }
poll() { end=$((SECONDS + 60)); until "$@" >/dev/null 2>&1; do [ $SECONDS -lt $end ] || { echo "gave up waiting: $*" >&2; return 1; }; sleep 0.2; done; }
pending() { b key -c "$1" -l pre | grep -qx "$2"; }
answers() { b run -c "$1" web1 test.ping -t 5 | grep -q True; }
case "$1" in
  # every command of the README has -c DIR right after the subcommand
  key) case " $* " in *" -a web1 "*) poll pending "$3" web1 ;; esac ;;
  run) poll answers "$3" ;;
  call) case " $* " in *" --local "*) ;; *) poll answers "$3" ;; esac ;;
esac
exec "${node}" "${brine}" "$@"
`;

describe('README.md followed as written (issue 26)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-readme-'));
  const base = path.join(dir, 'b');
  let pgid: number | undefined;
  after(() => {
    // the script's daemons are in its process group; the README's own kill stops them before that
    if (pgid !== undefined) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the quick start, a restart, the states example with its watch, and the masterless step', { timeout: 300_000 }, async () => {
    const readme = fs.readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
    const blocks = [...shellBlocks(readme, '## Using it', '## Documentation')];
    assert.equal(blocks.length, 4, 'quick start, stop/restart, states, masterless');
    const port = await freePort();
    const script = blocks
      .join('\n')
      .replaceAll('/tmp/b', base)
      .replace('interface: 127.0.0.1\n', `interface: 127.0.0.1\nret_port: ${port}\n`)
      .replace('master: 127.0.0.1\n', `master: 127.0.0.1\nmaster_port: ${port}\n`);
    // at the end: stop the daemons as the README says
    const stop = `kill $(cat ${base}/master.pid) $(cat ${base}/minion.pid)\n`;
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'npx'), NPX(process.execPath, BRINE_BIN), { mode: 0o755 });
    const child = spawn('bash', ['-e', '-c', script + stop], {
      cwd: repoRoot(),
      detached: true,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    pgid = child.pid;
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, out);
    // the quick start
    assert.match(out, /Unaccepted Keys:\nweb1/);
    assert.match(out, /web1:\n {4}True/);
    // the states example: test=True, apply, nothing to do, the template edit, the call through the minion
    const summaries = [...out.matchAll(/Succeeded: (\d+) \(changed=(\d+)\)|Succeeded: (\d+)\n/g)].map((m) => m[0]);
    assert.ok(summaries.length >= 6, out);
    assert.equal(fs.readFileSync(path.join(base, 'www', 'app.conf'), 'utf8'), '# managed by brine on web1\nlisten = 8081\n');
    assert.equal(fs.readFileSync(path.join(base, 'www', 'VERSION'), 'utf8'), 'deployed by web1\n');
    const reloads = fs
      .readFileSync(path.join(base, 'www', 'reloads.log'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(reloads.length, 2, 'the watch fired on the first apply and after the edit, never on a run with nothing to change');
    // the daemons were stopped by the README's kill: nothing listens any more
    for (const f of ['master.pid', 'minion.pid']) {
      const pid = Number(fs.readFileSync(path.join(base, f), 'utf8'));
      await waitGone(pid);
    }
  });
});

/** Polls until `pid` has exited (a zombie counts as exited), for up to 15 s. */
function waitGone(pid: number): Promise<unknown> {
  return waitUntil(
    () => {
      try {
        return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] === 'Z';
      } catch {
        return true;
      }
    },
    15_000,
    `process ${pid} to exit after SIGTERM`,
  );
}
