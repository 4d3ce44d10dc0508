// Issue 11 point 2 (local users): publisher_acl lets named local users and 'group%' members run
// allowed functions through `brine run`; the control socket is reachable by sock_group only, and
// the master names the user from the socket's peer credentials (SO_PEERCRED), never from what the
// client claims. Real `brine run` processes run as throwaway accounts (useradd, then userdel)
// through setpriv with their real supplementary groups, against a real master and minions.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobCache } from '../../src/jobs/index.js';
import { BRINE_BIN, Cluster, repoRoot, runCli, runCommand, waitUntil, type CliResult, type Proc } from '../helpers/cluster.js';
import { privilegedSkip } from '../helpers/privileged.js';
import { onPath } from '../helpers/paths.js';

const tools = ['useradd', 'userdel', 'groupadd', 'groupdel', 'setpriv'];
const missing = tools.find((t) => !onPath(t));
const reason = process.getuid?.() !== 0 ? 'needs root to create throwaway users and run brine as them' : missing ? `${missing} is not installed (util-linux / passwd)` : false;
const skip = privilegedSkip('publisher_acl with real local users', reason);

const sfx = randomBytes(3).toString('hex');
const SOCK_GROUP = `bpsock${sfx}`;
const OPS_GROUP = `bpops${sfx}`;
/** In sock_group; publisher_acl names this user. */
const ALICE = `bpalice${sfx}`;
/** In sock_group and OPS_GROUP; only 'OPS_GROUP%' applies to this user. */
const BOB = `bpbob${sfx}`;
/** Not in sock_group: cannot even connect. */
const CAROL = `bpcarol${sfx}`;
/** The account a master started as root switches to (`user:`). */
const MASTER_USER = `bpmaster${sfx}`;

/** Runs a command as `user` with its real groups (initgroups), as a login would. */
function asUser(user: string, argv: string[], timeoutMs = 60_000): Promise<CliResult> {
  return runCommand('setpriv', [`--reuid=${user}`, '--regid=nogroup', '--init-groups', '--', ...argv], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', HOME: '/tmp' },
    timeoutMs,
    what: `${argv.join(' ')} as ${user}`,
  });
}

/** A raw control client (the built transport and codec) that sends one request with any fields. */
const RAW_CLIENT = `
const [socketPath, json] = process.argv.slice(1);
const { connectUnix } = await import(${JSON.stringify(path.join(repoRoot(), 'dist', 'src', 'transport', 'index.js'))});
const { CONTROL_REPLIES } = await import(${JSON.stringify(path.join(repoRoot(), 'dist', 'src', 'protocol', 'index.js'))});
const conn = await connectUnix(socketPath, CONTROL_REPLIES, 5000);
conn.onMessage((m) => process.stdout.write(JSON.stringify(m) + '\\n'));
conn.onClose(() => process.exit(0));
conn.send(JSON.parse(json));
`;

/** A cluster whose config and socket parents the throwaway accounts can reach (mkdtemp makes 0700). */
function openUp(cluster: Cluster): void {
  fs.chmodSync(cluster.root, 0o755);
  fs.mkdirSync(path.join(cluster.root, 'master', 'var', 'run'), { recursive: true, mode: 0o755 });
  for (const d of ['master', 'master/var', 'master/var/run']) fs.chmodSync(path.join(cluster.root, d), 0o755);
}

function jobUser(cluster: Cluster, jid: string): string | undefined {
  const cache = JobCache.open(path.join(cluster.root, 'master', 'var', 'cache', 'brine', 'master', 'jobs.sqlite'), { keepJobsSeconds: 0 });
  try {
    return cache.getJob(jid)?.user;
  } finally {
    cache.close();
  }
}

function jidOf(r: CliResult): string {
  const m = /Executing job with jid (\d{20})/.exec(r.stdout);
  assert.ok(m, `no jid in:\n${r.stdout}${r.stderr}`);
  return m[1]!;
}

if (!skip) {
  before(() => {
    execFileSync('groupadd', [SOCK_GROUP]);
    execFileSync('groupadd', [OPS_GROUP]);
    execFileSync('useradd', ['-M', '-N', '-g', 'nogroup', '-G', SOCK_GROUP, '-s', '/usr/sbin/nologin', ALICE]);
    execFileSync('useradd', ['-M', '-N', '-g', 'nogroup', '-G', `${SOCK_GROUP},${OPS_GROUP}`, '-s', '/usr/sbin/nologin', BOB]);
    execFileSync('useradd', ['-M', '-N', '-g', 'nogroup', '-s', '/usr/sbin/nologin', CAROL]);
    execFileSync('useradd', ['-M', '-N', '-g', 'nogroup', '-s', '/usr/sbin/nologin', MASTER_USER]);
  });
  after(() => {
    // everything the file created, even when an assertion failed half-way
    for (const u of [ALICE, BOB, CAROL, MASTER_USER]) spawnSync('userdel', [u], { stdio: 'ignore' });
    for (const g of [SOCK_GROUP, OPS_GROUP]) spawnSync('groupdel', [g], { stdio: 'ignore' });
  });
}

/** Opens `count` control connections at once and prints every reply any of them gets. */
const MANY_CLIENTS = `
const [socketPath, count] = process.argv.slice(1);
const { connectUnix } = await import(${JSON.stringify(path.join(repoRoot(), 'dist', 'src', 'transport', 'index.js'))});
const { CONTROL_REPLIES } = await import(${JSON.stringify(path.join(repoRoot(), 'dist', 'src', 'protocol', 'index.js'))});
const conns = [];
for (let i = 0; i < Number(count); i++) {
  const c = await connectUnix(socketPath, CONTROL_REPLIES, 5000);
  c.onMessage((m) => process.stdout.write(JSON.stringify(m) + '\\n'));
  conns.push(c);
}
setTimeout(() => process.exit(0), 1000);
`;

describe('publisher_acl: local users through the control socket (issue 11)', { skip }, () => {
  let cluster: Cluster;
  let master: Proc;
  const masterLog = () => master.output;
  const socketPath = () => path.join(cluster.root, 'master', 'var', 'run', 'brine', 'master', 'master.sock');
  const run = (user: string, args: string[]) => asUser(user, [process.execPath, BRINE_BIN, 'run', ...args, '-c', cluster.masterConfigDir]);
  const jobOf = (jid: string) => ({ user: jobUser(cluster, jid) });
  before(async () => {
    cluster = await Cluster.create();
    openUp(cluster);
    master = await cluster.startMaster({
      auto_accept: true,
      sock_group: SOCK_GROUP,
      publisher_acl: {
        [ALICE]: ['test.ping', { m1: ['test.echo'] }],
        [`${OPS_GROUP}%`]: ['grains.item'],
      },
    });
    const minions = ['m1', 'm2'].map((id) => cluster.startMinion(id));
    for (const m of minions) await m.waitForOutput(/ready to receive requests/, 30_000);
  });

  after(() => cluster?.cleanup());

  it('makes master.sock 0660 and sock_dir 0750, both of sock_group', () => {
    const gid = Number(execFileSync('getent', ['group', SOCK_GROUP], { encoding: 'utf8' }).split(':')[2]);
    const sock = fs.statSync(socketPath());
    const dir = fs.statSync(path.dirname(socketPath()));
    assert.equal(sock.mode & 0o777, 0o660);
    assert.equal(sock.gid, gid);
    assert.equal(dir.mode & 0o777, 0o750);
    assert.equal(dir.gid, gid);
  });

  it('an allowed function runs for a listed user, and the job cache records that user', async () => {
    const r = await run(ALICE, ['-v', '*', 'test.ping']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^m1:\n {4}True$/m);
    assert.match(r.stdout, /^m2:\n {4}True$/m);
    assert.equal(jobOf(jidOf(r))?.user, ALICE);
  });

  it('a function outside the ACL is refused with PUBLISH_DENIED and one log line naming user, uid, pid, target and function', async () => {
    const r = await run(ALICE, ['m1', 'cmd.run', 'id']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^PUBLISH_DENIED: publisher_acl does not let '.*' run cmd\.run on 'm1'/m);
    assert.match(r.stderr, /publisher_acl/);
    const uid = execFileSync('id', ['-u', ALICE], { encoding: 'utf8' }).trim();
    const line = await waitUntil(
      () =>
        masterLog()
          .split('\n')
          .find((l) => l.includes('control request denied') && l.includes(ALICE) && l.includes('cmd.run')),
      10_000,
      'the denial log line',
    );
    assert.ok(line.includes(`user ${ALICE} (uid ${uid}, pid `), line);
    assert.match(line, /pid [1-9]\d*\)/);
    assert.ok(line.includes('on target m1'), line);
    assert.ok(
      !masterLog()
        .split('\n')
        .some((l) => l.includes('published job') && l.includes('fun=cmd.run')),
      'no cmd.run job was published',
    );
  });

  it('a target-restricted entry: test.echo on m1 runs, on m2 it is refused and logged', async () => {
    const ok = await run(ALICE, ['m1', 'test.echo', 'hi']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^m1:\n {4}hi$/m);
    const no = await run(ALICE, ['m2', 'test.echo', 'hi']);
    assert.equal(no.code, 1, no.stdout + no.stderr);
    assert.match(no.stderr, /^PUBLISH_DENIED: /m);
    await waitUntil(
      () =>
        masterLog()
          .split('\n')
          .some((l) => l.includes('control request denied') && l.includes(ALICE) && l.includes('test.echo on target m2')),
      10_000,
      'the m2 denial log line',
    );
  });

  it("a claimed `user` in the request is ignored: it grants nothing, and the job is recorded under the peer's real name", async () => {
    const claim = (fun: string) => JSON.stringify({ t: 'publish', tgt: 'm1', tgtType: 'glob', fun, arg: [], kwarg: {}, user: 'root' });
    const denied = await asUser(ALICE, [process.execPath, '--input-type=module', '-e', RAW_CLIENT, socketPath(), claim('cmd.run')]);
    assert.equal(denied.code, 0, denied.stderr);
    const err = JSON.parse(denied.stdout.trim().split('\n')[0]!) as { t: string; code: string };
    assert.deepEqual([err.t, err.code], ['error', 'PUBLISH_DENIED'], denied.stdout);
    const allowed = await asUser(ALICE, [process.execPath, '--input-type=module', '-e', RAW_CLIENT, socketPath(), claim('test.ping')]);
    const published = JSON.parse(allowed.stdout.trim().split('\n')[0]!) as { t: string; jid: string };
    assert.equal(published.t, 'published', allowed.stdout + allowed.stderr);
    assert.equal(jobOf(published.jid)?.user, ALICE, 'recorded as the real peer, not the claimed root');
  });

  it("a publisher_acl user cannot publish for an API user (apiUser, brine api's field) nor use brine api's operations", async () => {
    const raw = (req: Record<string, unknown>) => asUser(ALICE, [process.execPath, '--input-type=module', '-e', RAW_CLIENT, socketPath(), JSON.stringify(req)]);
    const claimed = await raw({ t: 'publish', tgt: 'm1', tgtType: 'glob', fun: 'test.ping', arg: [], kwarg: {}, apiUser: 'admin' });
    const err = JSON.parse(claimed.stdout.trim().split('\n')[0]!) as { t: string; code: string; message: string };
    assert.deepEqual([err.t, err.code], ['error', 'CONTROL_DENIED'], claimed.stdout);
    assert.match(err.message, /apiUser/);
    for (const req of [{ t: 'match', tgt: '*', tgtType: 'glob' }, { t: 'active_jids' }, { t: 'emit_hook', path: 'x', user: 'admin', body: null }, { t: 'metrics' }]) {
      const r = await raw(req);
      const e = JSON.parse(r.stdout.trim().split('\n')[0]!) as { t: string; code: string };
      assert.deepEqual([e.t, e.code], ['error', 'CONTROL_DENIED'], `${req.t}: ${r.stdout}`);
    }
  });

  it("'group%' entries apply to members: grains.item runs for a member of the group, test.ping does not", async () => {
    const r = await run(BOB, ['-v', 'm1', 'grains.item', 'id']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^m1:\n(?: {4}-+\n)? {4}id:\n {8}m1$/m);
    assert.equal(jobOf(jidOf(r))?.user, BOB);
    const no = await run(BOB, ['m1', 'test.ping']);
    assert.equal(no.code, 1, no.stdout + no.stderr);
    assert.match(no.stderr, /^PUBLISH_DENIED: /m);
    assert.ok(no.stderr.includes(`'${OPS_GROUP}%'`), `the refusal names the user's groups as ACL keys:\n${no.stderr}`);
  });

  it('a user outside sock_group cannot connect: CONTROL_DENIED (exit 2) naming the group', async () => {
    const r = await run(CAROL, ['*', 'test.ping']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /^CONTROL_DENIED: cannot reach the master at .*master\.sock: permission denied/m);
    assert.ok(r.stderr.includes(`members of group '${SOCK_GROUP}' (sock_group)`), r.stderr);
    assert.doesNotMatch(r.stderr, /INTERNAL/);
  });

  it('a publisher_acl user may only publish: brine minions status is CONTROL_DENIED and logged', async () => {
    const r = await asUser(ALICE, [process.execPath, BRINE_BIN, 'minions', 'status', '-c', cluster.masterConfigDir]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /^CONTROL_DENIED: only root and the master's user may list minion sessions/m);
    await waitUntil(
      () =>
        masterLog()
          .split('\n')
          .some((l) => l.includes('control request denied') && l.includes(ALICE) && l.includes('may not run sessions')),
      10_000,
      'the sessions denial log line',
    );
  });

  it('a sock_group member costs a bounded amount: requests over 1 MiB are cut off, and at most 32 connections at once', async () => {
    const big = JSON.stringify({ t: 'publish', tgt: 'm1', tgtType: 'glob', fun: 'test.echo', arg: ['x'.repeat(2 * 1024 * 1024)], kwarg: {} });
    // too long for argv: the raw client reads the request from a file the account can read
    const file = path.join(cluster.root, 'big-request.json');
    fs.writeFileSync(file, big, { mode: 0o644 });
    const readingClient = RAW_CLIENT.replace(
      'const [socketPath, json] = process.argv.slice(1);',
      "const [socketPath, file] = process.argv.slice(1); const json = (await import('node:fs')).readFileSync(file, 'utf8');",
    );
    const cut = await asUser(ALICE, [process.execPath, '--input-type=module', '-e', readingClient, socketPath(), file]);
    assert.equal(cut.code, 0, cut.stderr);
    assert.doesNotMatch(cut.stdout, /"published"/, 'no job for an oversized request');
    const many = await asUser(ALICE, [process.execPath, '--input-type=module', '-e', MANY_CLIENTS, socketPath(), '33']);
    const refusals = many.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { t: string; code: string; message: string });
    assert.equal(refusals.length, 1, many.stdout + many.stderr);
    assert.equal(refusals[0]!.code, 'CONTROL_DENIED');
    assert.match(refusals[0]!.message, /too many control connections/);
    await waitUntil(() => masterLog().includes(`control connection refused: user ${ALICE}`), 10_000, 'the connection-cap log line');
    // the slots are given back: the same user runs a job right after
    const r = await run(ALICE, ['m1', 'test.ping']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  it('restarting over the shared directories passes the start-up check; a group-writable sock_dir is still UNSAFE_DIR', async () => {
    await master.kill();
    const sockDir = path.dirname(socketPath());
    fs.chmodSync(sockDir, 0o770);
    const refused = await runCli(['master', '-c', cluster.masterConfigDir], { timeoutMs: 20_000 });
    assert.equal(refused.code, 78, refused.stderr);
    assert.match(refused.stderr, new RegExp(`^UNSAFE_DIR: refusing to start: sock_dir ${sockDir} is writable by its group`, 'm'));
    fs.chmodSync(sockDir, 0o750);
    master = cluster.spawnBrine('master again', ['master', '-c', cluster.masterConfigDir]);
    await master.waitForOutput(/brine master listening/);
    // the minions reconnect on their own; until then a ping reports them not connected
    await waitUntil(async () => (await run(ALICE, ['*', 'test.ping'])).code === 0, 30_000, `${ALICE}'s test.ping through the restarted master`);
  });

  it('root keeps full access, recorded as root (whatever USER says)', async () => {
    const r = await runCli(['run', '-v', 'm1', 'cmd.run', 'echo root-ok', '-c', cluster.masterConfigDir], { env: { USER: ALICE, LOGNAME: ALICE } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /root-ok/);
    assert.equal(jobOf(jidOf(r))?.user, 'root');
  });
});

describe("publisher_acl: the master's own user (after `user:`) keeps full access, and the socket keeps sock_group", { skip }, () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    openUp(cluster);
    const master = await cluster.startMaster({ auto_accept: true, user: MASTER_USER, sock_group: SOCK_GROUP, publisher_acl: { [BOB]: ['test.ping'] } });
    await master.waitForOutput(/now runs as/);
    await cluster.startMinion('m1').waitForOutput(/ready to receive requests/, 30_000);
  });
  after(() => cluster?.cleanup());

  it("sock_dir and master.sock belong to the master's user and still to sock_group", () => {
    const uid = Number(execFileSync('id', ['-u', MASTER_USER], { encoding: 'utf8' }));
    const gid = Number(execFileSync('getent', ['group', SOCK_GROUP], { encoding: 'utf8' }).split(':')[2]);
    const sock = path.join(cluster.root, 'master', 'var', 'run', 'brine', 'master', 'master.sock');
    for (const p of [sock, path.dirname(sock)]) {
      const st = fs.statSync(p);
      assert.deepEqual([st.uid, st.gid], [uid, gid], p);
    }
  });

  it("the master's user runs a function no ACL lists, recorded under its name; a member with no entry is refused", async () => {
    const r = await asUser(MASTER_USER, [process.execPath, BRINE_BIN, 'run', '-v', 'm1', 'cmd.run', 'echo own-user', '-c', cluster.masterConfigDir]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /own-user/);
    assert.equal(jobUser(cluster, jidOf(r)), MASTER_USER);
    const alice = await asUser(ALICE, [process.execPath, BRINE_BIN, 'run', 'm1', 'test.ping', '-c', cluster.masterConfigDir]);
    assert.equal(alice.code, 1, alice.stdout + alice.stderr);
    assert.match(alice.stderr, new RegExp(`^PUBLISH_DENIED: publisher_acl has no entry for user '${ALICE}'`, 'm'));
    const bob = await asUser(BOB, [process.execPath, BRINE_BIN, 'run', 'm1', 'test.ping', '-c', cluster.masterConfigDir]);
    assert.equal(bob.code, 0, bob.stdout + bob.stderr);
  });
});
