// gitfs end to end (issue 23 point 1): a real master serves salt:// from a git repository the
// test creates, fetched over SSH from a real sshd on loopback with a key the test made
// (StrictHostKeyChecking stays on: the host key is in gitfs_ssh_known_hosts), to a real minion.
// State runs use the gitfs base branch; a push arrives within gitfs_update_interval without
// anyone asking; branches and tags are saltenvs; when the remote goes away the master keeps
// serving the last good tree and says so in its log, in `brine fileserver update` and in
// `brine doctor master`. Needs Debian `git` and `openssh-server`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type Proc } from '../helpers/cluster.js';
import { GitRepo } from '../helpers/git-repo.js';
import { Sshd } from '../helpers/sshd.js';

const sha = (b: string): string => createHash('sha256').update(b).digest('hex');

describe('gitfs: states served from a git repository over SSH to a real minion', () => {
  let cluster: Cluster;
  let master: Proc;
  let sshd: Sshd;
  let repo: GitRepo;
  let out: string;

  const run = async (args: string[]): Promise<unknown> => {
    const r = await cluster.brine(['run', 'web1', ...args, '--out', 'json', '-t', '60'], { timeoutMs: 90_000 });
    assert.ok(r.stdout.trim() !== '', `no output from ${args.join(' ')}: ${r.stderr}`);
    return (JSON.parse(r.stdout) as Record<string, unknown>).web1;
  };
  const motd = () => fs.readFileSync(path.join(out, 'motd'), 'utf8');

  before(async () => {
    cluster = await Cluster.create();
    sshd = await Sshd.start(path.join(cluster.root, 'sshd'));
    repo = new GitRepo(path.join(cluster.root, 'git'));
    out = path.join(cluster.root, 'out');
    repo.commit({
      'top.sls': "base:\n  '*':\n    - web\n",
      'web/init.sls': `${out}/motd:\n  file.managed:\n    - source: salt://web/motd\n    - makedirs: True\n`,
      'web/motd': 'from git v1\n',
    });
    repo.tag('v1', true);
    repo.checkout('dev', true);
    repo.commit({ 'web/motd': 'from the dev branch\n' });
    repo.checkout('master');
    repo.push();
    master = await cluster.startMaster({
      auto_accept: true,
      fileserver_backend: ['gitfs', 'roots'],
      gitfs_remotes: [sshd.url(repo.bare)],
      gitfs_privkey: sshd.clientKey,
      gitfs_ssh_known_hosts: sshd.knownHosts,
      gitfs_update_interval: 2,
    });
    await cluster.startMinion('web1').waitForOutput(/ready to receive requests/, 30_000);
  });
  after(async () => {
    await sshd?.close();
    await cluster?.cleanup();
  });

  it('brine fileserver update fetches the remote over SSH, and state.apply applies the base branch with the hashes of its files', async () => {
    const up = await cluster.brine(['fileserver', 'update'], { timeoutMs: 60_000 });
    assert.equal(up.code, 0, up.stdout + up.stderr);
    assert.match(up.stdout, new RegExp(`^ssh://${sshd.user}@127\\.0\\.0\\.1:${sshd.port}.*: (updated|up to date)$`, 'm'));
    const ret = (await run(['state.apply'])) as Record<string, { result: boolean }>;
    assert.ok(Object.values(ret).length > 0 && Object.values(ret).every((s) => s.result === true), JSON.stringify(ret));
    assert.equal(motd(), 'from git v1\n');
    assert.deepEqual(await run(['cp.hash_file', 'salt://web/motd']), { hash_type: 'sha256', hsum: sha('from git v1\n') });
    assert.deepEqual(await run(['cp.list_master']), ['top.sls', 'web/init.sls', 'web/motd']);
  });

  it('a push is picked up within gitfs_update_interval, with no update asked for', async () => {
    repo.commit({ 'web/motd': 'from git v2\n' }, 'v2');
    repo.push();
    const pushedAt = Date.now();
    await waitUntil(async () => (await run(['cp.get_file_str', 'salt://web/motd'])) === 'from git v2\n', 30_000, 'the pushed motd to be served');
    // the interval is 2 s; a fetch over SSH on a loaded machine adds a few seconds, not tens
    assert.ok(Date.now() - pushedAt < 30_000);
    await run(['state.apply']);
    assert.equal(motd(), 'from git v2\n');
  });

  it('branches and tags are saltenvs: state.apply saltenv=dev, cp.get_file_str saltenv=v1', async () => {
    const ret = (await run(['state.apply', 'web', 'saltenv=dev'])) as Record<string, { result: boolean }>;
    assert.ok(
      Object.values(ret).every((s) => s.result === true),
      JSON.stringify(ret),
    );
    assert.equal(motd(), 'from the dev branch\n');
    assert.equal(await run(['cp.get_file_str', 'salt://web/motd', 'saltenv=v1']), 'from git v1\n');
    assert.deepEqual(((await run(['cp.list_master', 'saltenv=v1'])) as string[]).sort(), ['top.sls', 'web/init.sls', 'web/motd']);
  });

  it('an unreachable remote keeps the last good tree; the master log, brine fileserver update and brine doctor master say so', async () => {
    await sshd.close();
    const up = await cluster.brine(['fileserver', 'update'], { timeoutMs: 60_000 });
    assert.equal(up.code, 1, up.stdout + up.stderr);
    assert.match(up.stdout, /: FAILED: .*(Connection refused|connect to host)/);
    assert.match(up.stderr, /GITFS_REMOTE_UNREACHABLE/);
    await master.waitForOutput(/GITFS_REMOTE_UNREACHABLE: gitfs remote ssh:\/\/.* could not be fetched: .*the last good checkout is still served/);
    // wait for at least one more interval's failed fetch: still one warning for the streak
    const failures = () => {
      const st = JSON.parse(fs.readFileSync(path.join(cluster.root, 'master', 'var', 'cache', 'brine', 'master', 'gitfs', 'status.json'), 'utf8')) as { remotes: { failures: number }[] };
      return st.remotes[0]!.failures;
    };
    await waitUntil(() => failures() >= 3, 30_000, 'more failed fetches on the interval');
    assert.equal(master.output.match(/GITFS_REMOTE_UNREACHABLE: gitfs remote/g)?.length, 1, 'one warning per failure streak');
    const doctor = await runCli(['doctor', 'master', '-c', cluster.masterConfigDir], { timeoutMs: 60_000 });
    assert.match(doctor.stdout, /^WARN gitfs ssh:\/\/.*: unreachable for .*; the last good checkout is still served\. Fix: .*brine fileserver update/m);
    // the minion still gets the last good files
    await run(['state.apply']);
    assert.equal(motd(), 'from git v2\n');
  });
});
