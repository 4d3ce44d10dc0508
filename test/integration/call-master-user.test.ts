// Who may run `brine call` through the minion daemon when it runs as `user:` (it opens its control
// socket as root, then switches): root and that user may, anyone else is refused with
// CONTROL_DENIED before anything runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { BRINE_BIN, Cluster, repoRoot, runCli, type Proc } from '../helpers/cluster.js';

const execFileP = promisify(execFile);
const NOBODY = 65534;
const OTHER = 4243;
const isRoot = process.getuid?.() === 0;
/** The first directory above the code that other users cannot enter (then `user: nobody` cannot load brine). */
const codeClosed = (() => {
  let d = path.resolve(repoRoot());
  while ((fs.statSync(d).mode & 0o001) !== 0) {
    if (d === path.dirname(d)) return undefined;
    d = path.dirname(d);
  }
  return d;
})();
const skip = !isRoot ? 'needs root to run a minion as nobody' : codeClosed ? `nobody cannot read brine's code: ${codeClosed} is closed to other users` : false;

/** `brine call` as another local user; resolves with its exit code and output. */
async function callAs(uid: number, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await execFileP(process.execPath, [BRINE_BIN, 'call', ...args], { uid, gid: uid === NOBODY ? NOBODY : uid, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('brine call through a minion running as user: nobody', { skip }, () => {
  let cluster: Cluster;
  let minion: Proc;
  let config: string;

  before(async () => {
    cluster = await Cluster.create();
    // the account must reach its directories under the test root
    fs.chmodSync(cluster.root, 0o755);
    await cluster.startMaster({ auto_accept: true });
    minion = cluster.startMinion('nb1', { user: 'nobody' });
    config = cluster.minionConfigDir('nb1');
    await minion.waitForOutput(/brine minion now runs as nobody/, 20_000);
    await minion.waitForOutput(/ready to receive requests/, 20_000);
  });
  after(() => cluster.cleanup());

  it('root may: the function runs in the daemon, as nobody', async () => {
    const r = await runCli(['call', 'cmd.run', 'id -u', '-c', config], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `local:\n    ${NOBODY}\n`);
  });

  it("the minion's own user may", async () => {
    const r = await callAs(NOBODY, ['test.echo', 'from-nobody', '-c', config]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'local:\n    from-nobody\n');
  });

  it('another user is refused with CONTROL_DENIED (exit 2) and nothing runs', async () => {
    const before = minion.output.match(/brine call /g)?.length ?? 0;
    const r = await callAs(OTHER, ['test.echo', 'from-other', '-c', config]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /CONTROL_DENIED: .*only root and the minion's user may run brine call/);
    assert.equal(minion.output.match(/brine call /g)?.length ?? 0, before);
  });
});
