// Issue 8 point 5, threats.md #34: local hardening of the daemons. A sock_dir, pki_dir or
// cachedir that another local user can change stops start-up with UNSAFE_DIR naming the path and
// the fix; a YAML alias bomb in a config file is CONFIG_PARSE naming the file.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type CliResult } from '../helpers/cluster.js';
import { repoRoot } from '../helpers/repo.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** The error line of a refused start: `CODE: ...` followed by `  fix: ...`. */
function refusal(r: CliResult, code: string): string {
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  assert.ok(lines[0]?.startsWith(`${code}: `), `expected ${code}, got (exit ${r.code}):\n${r.stderr}${r.stdout}`);
  assert.match(lines[1] ?? '', /^ {2}fix: \S/);
  return lines[0]!;
}

describe('the daemons refuse directories other local users can change (threats.md #34)', () => {
  let cluster: Cluster;
  const masterRoot = () => path.join(cluster.root, 'master');
  const sockDir = () => path.join(masterRoot(), 'var', 'run', 'brine', 'master');
  const startMaster = () => runCli(['master', '-c', cluster.masterConfigDir], { timeoutMs: 20_000 });

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMasterConfig();
  });
  after(() => cluster.cleanup());

  it('an existing world-writable sock_dir: exit 78, UNSAFE_DIR naming sock_dir, the path and the chmod', async () => {
    fs.mkdirSync(sockDir(), { recursive: true });
    fs.chmodSync(sockDir(), 0o777);
    const r = await startMaster();
    assert.equal(r.code, 78, r.stderr);
    const line = refusal(r, 'UNSAFE_DIR');
    assert.ok(line.includes(`sock_dir ${sockDir()}`), line);
    assert.match(line, /writable by group and others \(mode 0777\)/);
    assert.ok(line.includes(`chmod go-w ${sockDir()}`), line);
    assert.equal(fs.readdirSync(sockDir()).length, 0, 'no control socket was made');
  });

  it('a group-writable cachedir is refused too', async () => {
    fs.chmodSync(sockDir(), 0o700);
    const cache = path.join(masterRoot(), 'var', 'cache', 'brine', 'master');
    fs.mkdirSync(cache, { recursive: true });
    fs.chmodSync(cache, 0o770);
    const r = await startMaster();
    assert.equal(r.code, 78, r.stderr);
    assert.ok(refusal(r, 'UNSAFE_DIR').includes(`cachedir ${cache} is writable by its group (mode 0770)`), r.stderr);
    fs.chmodSync(cache, 0o700);
  });

  it('a world-writable directory above sock_dir (no sticky bit) is refused, naming that directory', async () => {
    const run = path.join(masterRoot(), 'var', 'run');
    fs.chmodSync(run, 0o777);
    const r = await startMaster();
    assert.equal(r.code, 78, r.stderr);
    const line = refusal(r, 'UNSAFE_DIR');
    assert.ok(line.includes(`${run} (above sock_dir ${sockDir()})`), line);
    // with the sticky bit (as /tmp has) others cannot rename what is in it
    fs.chmodSync(run, 0o1777);
    const cfg = await runCli(['config', 'show', '--role', 'master', '-c', cluster.masterConfigDir]);
    assert.equal(cfg.code, 0);
    fs.chmodSync(run, 0o755);
  });

  it('a sock_dir owned by another user (nobody) is refused, naming the chown', { skip: isRoot ? false : 'needs root to chown a directory to nobody' }, async () => {
    fs.chownSync(sockDir(), NOBODY, NOBODY);
    const r = await startMaster();
    assert.equal(r.code, 78, r.stderr);
    const line = refusal(r, 'UNSAFE_DIR');
    assert.ok(line.includes(`sock_dir ${sockDir()} is owned by uid ${NOBODY}`), line);
    assert.match(line, /Fix: chown root /);
    fs.chownSync(sockDir(), 0, 0);
  });

  it('with the directories fixed (and with the ones the master creates itself) it starts', async () => {
    const master = await cluster.startMaster();
    assert.ok(master.running);
    const st = fs.statSync(path.join(masterRoot(), 'etc', 'brine', 'pki', 'master'));
    assert.equal(st.mode & 0o777, 0o700, 'pki_dir created 0700');
    await master.kill();
  });

  it('the minion checks its own sock_dir the same way', async () => {
    cluster.writeMinionConfig('m1');
    const minionSock = path.join(cluster.root, 'minions', 'm1', 'var', 'run', 'brine', 'minion');
    fs.mkdirSync(minionSock, { recursive: true });
    fs.chmodSync(minionSock, 0o777);
    const r = await runCli(['minion', '-c', cluster.minionConfigDir('m1')], { timeoutMs: 20_000 });
    assert.equal(r.code, 78, r.stderr);
    assert.ok(refusal(r, 'UNSAFE_DIR').includes(`sock_dir ${minionSock}`), r.stderr);
  });
});

describe('a YAML alias bomb in a config file is CONFIG_PARSE naming the file', () => {
  let dir: string;
  const bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`)].join('\n');

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-bomb-'));
    fs.writeFileSync(path.join(dir, 'master'), `${bomb}\n`);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const args of [['master'], ['config', 'show', '--role', 'master']]) {
    it(`brine ${args.join(' ')} -c DIR → exit 78, CONFIG_PARSE with the file, not INTERNAL`, async () => {
      const r = await runCli([...args, '-c', dir], { timeoutMs: 20_000 });
      assert.equal(r.code, 78, r.stderr);
      const line = refusal(r, 'CONFIG_PARSE');
      assert.ok(line.includes(path.join(dir, 'master')), line);
      assert.match(line, /alias/);
    });
  }
});

describe('log_file: written at log_level_logfile, reopened on SIGHUP for logrotate', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await Cluster.create();
  });
  after(() => cluster.cleanup());

  it('the master logs to log_file at its own level; after a rename and SIGHUP new lines go to a new file at the same path', async () => {
    const logFile = path.join(cluster.root, 'master', 'log', 'master.log');
    // stderr only from warning up, the file from info up: the two levels are independent
    cluster.writeMasterConfig({ log_level: 'warning', log_level_logfile: 'info', log_file: logFile, auto_accept: true });
    const master = cluster.spawnBrine('master', ['master', '-c', cluster.masterConfigDir]);
    const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
    await waitUntil(() => read(logFile).includes('brine master listening'), 15_000, `the listening line in ${logFile}\n${master.output}`);
    assert.doesNotMatch(master.output, /listening/, 'an info line does not reach stderr at log_level warning');
    assert.equal(fs.statSync(logFile).mode & 0o777, 0o600, 'log file mode');

    const rotated = `${logFile}.1`;
    fs.renameSync(logFile, rotated);
    process.kill(master.child.pid!, 'SIGHUP');
    await waitUntil(() => read(logFile).includes('reopened log_file'), 10_000, `a new ${logFile} after SIGHUP\n${master.output}`);
    assert.ok(master.running, 'SIGHUP does not stop the master');

    const minion = cluster.startMinion('m1');
    await waitUntil(() => read(logFile).includes('minion m1 connected'), 20_000, `the minion's connect in the new log file\n${minion.output}`);
    const old = read(rotated);
    assert.match(old, /brine master listening/);
    assert.doesNotMatch(old, /minion m1 connected|reopened log_file/, 'nothing is written to the rotated file after SIGHUP');
    await minion.kill();
    await master.kill();
  });

  it('a log_file that cannot be opened stops start-up with LOG_FILE_UNWRITABLE naming it', async () => {
    const blocker = path.join(cluster.root, 'master', 'blocker');
    fs.writeFileSync(blocker, '');
    cluster.writeMasterConfig({ log_file: path.join(blocker, 'master.log') });
    const r = await runCli(['master', '-c', cluster.masterConfigDir], { timeoutMs: 20_000 });
    assert.equal(r.code, 73, r.stderr);
    assert.ok(refusal(r, 'LOG_FILE_UNWRITABLE').includes(path.join(blocker, 'master.log')), r.stderr);
  });
});

/**
 * A minion run as another account loads its job workers after switching, so that account must be
 * able to read brine's own code: the first directory on the way to this checkout that others
 * cannot enter, if any (a clone under a 0700 temporary directory, for example).
 */
function closedToOthers(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) return d;
    if (d === path.dirname(d)) return undefined;
  }
}
const codeClosed = closedToOthers(repoRoot());

describe('user: the daemon switches to that account once it is up (as root)', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await Cluster.create();
    // the account must be able to reach its directories under the test root
    fs.chmodSync(cluster.root, 0o755);
  });
  after(() => cluster.cleanup());

  it('a user: that does not exist stops start-up with USER_SWITCH_FAILED naming it', async () => {
    cluster.writeMasterConfig({ user: 'no-such-brine-user' });
    const r = await runCli(['master', '-c', cluster.masterConfigDir], { timeoutMs: 20_000 });
    assert.equal(r.code, 78, r.stderr);
    assert.match(refusal(r, 'USER_SWITCH_FAILED'), /user 'no-such-brine-user' \(option user:\) does not exist/);
  });

  it('user: nobody → /proc shows uid nobody, files it writes belong to nobody, test.ping works, and it restarts', { skip: isRoot ? false : 'needs root to switch users' }, async () => {
    const masterRoot = path.join(cluster.root, 'master');
    let master = await cluster.startMaster({ user: 'nobody', auto_accept: true });
    await master.waitForOutput(/now runs as nobody/);
    const uidOf = (pid: number) =>
      /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m
        .exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))!
        .slice(1)
        .map(Number);
    assert.deepEqual(uidOf(master.child.pid!), [NOBODY, NOBODY, NOBODY, NOBODY]);

    cluster.startMinion('m1');
    const accepted = path.join(masterRoot, 'etc', 'brine', 'pki', 'master', 'minions', 'm1');
    await master.waitForOutput(/minion m1 connected/, 20_000);
    const ping = await cluster.brine(['run', 'm1', 'test.ping', '--out', 'json', '-t', '20']);
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.deepEqual(JSON.parse(ping.stdout), { m1: true });

    // written after the switch (the accepted key) and before it (job cache, log file, socket)
    for (const p of [
      accepted,
      path.join(masterRoot, 'var', 'cache', 'brine', 'master', 'jobs.sqlite'),
      path.join(masterRoot, 'var', 'log', 'brine', 'master'),
      path.join(masterRoot, 'var', 'run', 'brine', 'master', 'master.sock'),
    ]) {
      assert.equal(fs.statSync(p).uid, NOBODY, `${p} belongs to nobody`);
    }

    // its own directories are now nobody's: the start-up check trusts the user: account
    await master.kill();
    master = await cluster.startMaster({ user: 'nobody', auto_accept: true });
    await master.waitForOutput(/minion m1 connected/, 20_000);
    const again = await cluster.brine(['run', 'm1', 'test.ping', '--out', 'json', '-t', '20']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    await master.kill();
  });

  const minionSkip = !isRoot
    ? 'needs root to switch users'
    : codeClosed
      ? `nobody cannot read brine's code here: ${codeClosed} is closed to other users (user: needs an account that can read the installation)`
      : false;
  it("a minion with user: nobody runs as nobody, keeps its files nobody's and still answers", { skip: minionSkip }, async () => {
    // its own cluster: the master above left its directories to nobody, which a root master refuses
    const own = await Cluster.create();
    try {
      fs.chmodSync(own.root, 0o755);
      const master = await own.startMaster({ auto_accept: true });
      const minion = own.startMinion('m2', { user: 'nobody' });
      await minion.waitForOutput(/brine minion now runs as nobody/, 20_000);
      await master.waitForOutput(/minion m2 connected/, 20_000);
      const r = await own.brine(['run', 'm2', 'cmd.run', 'id -u', '--out', 'json', '-t', '20']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { m2: String(NOBODY) }, 'jobs run as the user: account');
      const pki = path.join(own.root, 'minions', 'm2', 'etc', 'brine', 'pki', 'minion');
      for (const f of fs.readdirSync(pki)) assert.equal(fs.statSync(path.join(pki, f)).uid, NOBODY, `${f} belongs to nobody`);
    } finally {
      await own.cleanup();
    }
  });
});
