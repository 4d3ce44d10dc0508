// Issue 26 point 2: on a terminal `brine run` shows "returned n/m, failed f, Ns" on stderr while
// it waits and clears it before the output; not with --out json, not when stdout is a pipe. The
// terminal is a real pseudo-terminal from script(1) (bsdutils).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BRINE_BIN, Cluster, runCommand } from '../helpers/cluster.js';

/** `brine ARGS` inside a pseudo-terminal: stdout and stderr both on it, merged as a terminal shows them. */
function inTerminal(args: string[]) {
  const quoted = [process.execPath, BRINE_BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return runCommand('script', ['-qec', quoted, '/dev/null'], { env: { ...process.env, NO_COLOR: '1' }, what: 'brine run in script(1)', timeoutMs: 60_000 });
}

describe('brine run progress on a terminal', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster({ auto_accept: true });
    await cluster.startMinion('p1').waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('shows the counter while waiting, cleared before the return and at the end', async () => {
    const r = await inTerminal(['run', 'p1', 'test.sleep', '2', '-c', cluster.masterConfigDir]);
    assert.equal(r.code, 0, JSON.stringify(r.stdout + r.stderr));
    assert.match(r.stdout, /\r\x1b\[Kreturned 0\/1, failed 0, 1s/);
    // the line is cleared before the block, so the block starts at the left margin
    assert.match(r.stdout, /\r\x1b\[Kp1:\r?\n {4}True/);
    // the last return needs no counter under it: nothing of it after the output
    assert.doesNotMatch(r.stdout.slice(r.stdout.indexOf('True')), /returned \d/);
  });

  it('--out json on a terminal: no counter; a pipe: no counter', async () => {
    const json = await inTerminal(['run', 'p1', 'test.ping', '--out', 'json', '-c', cluster.masterConfigDir]);
    assert.equal(json.code, 0, json.stdout);
    assert.doesNotMatch(json.stdout, /returned \d|\x1b\[K/);
    const piped = await cluster.brine(['run', 'p1', 'test.ping']);
    assert.equal(piped.stderr, '');
    assert.doesNotMatch(piped.stdout, /returned \d/);
  });
});
