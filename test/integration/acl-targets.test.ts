// Issue 21 points 4, 8 and 6 (second half), threats.md #43, #47 and #45, against a real master
// with the REST API and two real minions over loopback TLS, and through the control socket with
// publisher_acl as a throwaway local account:
//  - a user limited to web* gets byte-identical answers for `web1 or ( db1 and J@dbpass:^h )`
//    and `...^x` while db1's pillar dbpass starts with h (no pillar oracle), and still runs its
//    functions on web1;
//  - {'cmd.run': {args: ['^ls']}} does not let `ls /x; id` run; a whole-argument rule does run;
//  - pillar= on state.apply needs '@pillar_override': an injected cmd.run never runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiClient, expectError } from '../helpers/api-client.js';
import { BRINE_BIN, Cluster, freePort, runCommand, waitUntil, type CliResult, type Proc } from '../helpers/cluster.js';
import { privilegedSkip } from '../helpers/privileged.js';
import { onPath } from '../helpers/paths.js';

// {SHA} of s3cret, as in api.test.ts
const SHA = '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=';
const SAFE_LS = 'ls( -l)?( /srv(/[A-Za-z0-9_-]+)*)?';
const ACL = {
  webonly: [{ 'web*': ['test.*'] }],
  stater: ['state.apply', 'test.ping'],
  overrider: ['state.apply', '@pillar_override'],
  lister: [{ 'cmd.run': { args: ['^ls'] } }],
  safelister: [{ 'cmd.run': { args: [SAFE_LS] } }],
};

const missingTool = ['useradd', 'userdel', 'groupadd', 'groupdel', 'setpriv'].find((t) => !onPath(t));
const localReason = process.getuid?.() !== 0 ? 'needs root to create a throwaway user and run brine as it' : missingTool ? `${missingTool} is not installed (util-linux / passwd)` : false;
const localSkip = privilegedSkip('publisher_acl oracle and pillar= checks with a real local user', localReason);

const sfx = randomBytes(3).toString('hex');
const SOCK_GROUP = `basock${sfx}`;
/** publisher_acl: web* only for test.*, state.apply without @pillar_override, cmd.run with '^ls'. */
const DORA = `badora${sfx}`;

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

/** Runs the brine CLI as `user` with its real groups (initgroups), as a login would. */
function asUser(user: string, argv: string[]): Promise<CliResult> {
  return runCommand('setpriv', [`--reuid=${user}`, '--regid=nogroup', '--init-groups', '--', process.execPath, BRINE_BIN, ...argv], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', HOME: '/tmp' },
    timeoutMs: 60_000,
    what: `brine ${argv.join(' ')} as ${user}`,
  });
}

if (!localSkip) {
  before(() => {
    execFileSync('groupadd', [SOCK_GROUP]);
    execFileSync('useradd', ['-M', '-N', '-g', 'nogroup', '-G', SOCK_GROUP, '-s', '/usr/sbin/nologin', DORA]);
  });
  after(() => {
    spawnSync('userdel', [DORA], { stdio: 'ignore' });
    spawnSync('groupdel', [SOCK_GROUP], { stdio: 'ignore' });
  });
}

describe('ACL targets, argument rules and pillar= (issue 21: threats.md #43, #47, #45)', () => {
  let cluster: Cluster;
  let master: Proc;
  let api: ApiClient;
  let outDir: string;
  const tokens: Record<string, string> = {};
  const post = (user: string, chunk: Record<string, unknown>) => api.post('/', tokens[user]!, [chunk]);
  /** An SLS whose contents line a pillar= value with newlines can break out of. */
  const injection = () => ({ motd: `hi\nevil:\n  cmd.run:\n    - name: touch ${path.join(outDir, 'pwned')}` });

  before(async () => {
    cluster = await Cluster.create();
    outDir = path.join(cluster.root, 'out');
    fs.mkdirSync(outDir);
    // the throwaway account must reach the config and the control socket (mkdtemp makes 0700)
    fs.chmodSync(cluster.root, 0o755);
    for (const d of ['master', 'master/var', 'master/var/run']) fs.mkdirSync(path.join(cluster.root, d), { recursive: true, mode: 0o755 });
    for (const d of ['master', 'master/var', 'master/var/run']) fs.chmodSync(path.join(cluster.root, d), 0o755);
    const pillarRoot = path.join(cluster.root, 'master', 'srv', 'pillar');
    write(path.join(pillarRoot, 'top.sls'), "base:\n  'web1':\n    - web\n  'db1':\n    - db\n");
    write(path.join(pillarRoot, 'web.sls'), `role: web\ntarget_dir: ${outDir}\n`);
    write(path.join(pillarRoot, 'db.sls'), 'role: db\ndbpass: hunter2\n');
    write(path.join(cluster.root, 'master', 'srv', 'salt', 'motd.sls'), "motd:\n  file.managed:\n    - name: {{ pillar['target_dir'] }}/motd\n    - contents: {{ pillar.get('motd', 'none') }}\n");
    const htpasswd = path.join(cluster.root, 'htpasswd');
    fs.writeFileSync(
      htpasswd,
      `${Object.keys(ACL)
        .map((u) => `${u}:${SHA}`)
        .join('\n')}\n`,
      { mode: 0o600 },
    );
    const port = await freePort();
    master = await cluster.startMaster({
      auto_accept: true,
      api: { port },
      external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', ...ACL } },
      ...(localSkip ? {} : { sock_group: SOCK_GROUP, publisher_acl: { [DORA]: [{ 'web*': ['test.*'] }, 'state.apply', { 'cmd.run': { args: ['^ls'] } }] } }),
    });
    await master.waitForOutput(/serving the REST API on https:\/\/127\.0\.0\.1:\d+/);
    api = new ApiClient(port, fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8'));
    const minions = ['web1', 'db1'].map((id) => cluster.startMinion(id));
    await Promise.all(minions.map((m) => m.waitForOutput(/ready to receive requests/, 30_000)));
    for (const user of Object.keys(ACL)) tokens[user] = await api.login(user, 's3cret');
    // the master holds db1's pillar: as root the pillar target really selects db1 (the secret the oracle read)
    await waitUntil(
      async () => {
        const r = await cluster.brine(['run', '--static', '-C', 'J@dbpass:^h', 'test.ping', '--out', 'json', '-t', '20'], { timeoutMs: 40_000 });
        return r.code === 0 && (JSON.parse(r.stdout || '{}') as Record<string, unknown>).db1 === true;
      },
      30_000,
      "db1's pillar in the master's pillar cache",
    );
  });
  after(() => cluster?.cleanup());

  it('API: a web*-restricted user gets byte-identical answers whatever db1 pillar holds, and runs on web1 only', async () => {
    const ask = (c: string) => post('webonly', { client: 'local', tgt: `web1 or ( db1 and J@dbpass:^${c} )`, tgt_type: 'compound', fun: 'test.ping' });
    const hit = await ask('h');
    const miss = await ask('x');
    assert.equal(hit.status, miss.status, `status differs: ${hit.status} vs ${miss.status}`);
    assert.equal(hit.text, miss.text, 'the body differs: the answer would read the pillar');
    assert.equal(hit.status, 200, hit.text);
    assert.deepEqual(hit.json.return, [{ web1: true }], 'db1 never ran the job');
    // a target that selects only through db1's data: one refusal, the same for both letters
    const onlyHit = await post('webonly', { client: 'local', tgt: 'db1 and J@dbpass:^h', tgt_type: 'compound', fun: 'test.ping' });
    const onlyMiss = await post('webonly', { client: 'local', tgt: 'db1 and J@dbpass:^x', tgt_type: 'compound', fun: 'test.ping' });
    expectError(onlyHit, 403, 'ACL_DENIED');
    assert.equal(onlyHit.text, onlyMiss.text);
    // its own functions still run on its own minions; a target naming db1 is refused as before
    const own = await post('webonly', { client: 'local', tgt: 'web*', fun: 'test.echo', arg: ['still-works'] });
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(own.json.return, [{ web1: 'still-works' }]);
    expectError(await post('webonly', { client: 'local', tgt: 'web1 or db1', tgt_type: 'compound', fun: 'test.ping' }), 403, 'ACL_DENIED');
    expectError(await post('webonly', { client: 'local', tgt: '*', fun: 'test.ping' }), 403, 'ACL_DENIED');
    // local_async publishes only to web1, whatever the target says about db1
    const async_ = await post('webonly', { client: 'local_async', tgt: 'web1 or ( db1 and J@dbpass:^h )', tgt_type: 'compound', fun: 'test.ping' });
    assert.deepEqual(async_.json.return[0].minions, ['web1'], async_.text);
  });

  it("API: {'cmd.run': {args: ['^ls']}} refuses `ls /x; id` (ACL_DENIED, nothing runs); a whole-argument rule runs its example", async () => {
    const marker = path.join(outDir, 'id-ran');
    const injected = await post('lister', { client: 'local', tgt: 'web1', fun: 'cmd.run', arg: [`ls /x; touch ${marker}`] });
    expectError(injected, 403, 'ACL_DENIED');
    assert.match(injected.json.error.message, /each argument rule must match the whole argument/);
    const ok = await post('safelister', { client: 'local', tgt: 'web1', fun: 'cmd.run', arg: ['ls -l /srv'] });
    assert.equal(ok.status, 200, ok.text);
    expectError(await post('safelister', { client: 'local', tgt: 'web1', fun: 'cmd.run', arg: [`ls /srv; touch ${marker}`] }), 403, 'ACL_DENIED');
    assert.equal(fs.existsSync(marker), false, 'the command after ; never ran');
  });

  it('API: pillar= on state.apply needs @pillar_override: PILLAR_OVERRIDE_DENIED and no injected state runs; a granted user passes pillar=', async () => {
    const denied = await post('stater', { client: 'local', tgt: 'web1', fun: 'state.apply', arg: ['motd'], kwarg: { pillar: injection() } });
    expectError(denied, 403, 'PILLAR_OVERRIDE_DENIED');
    assert.match(denied.json.error.message, /@pillar_override/);
    // state.apply itself still runs for that user
    const plain = await post('stater', { client: 'local', tgt: 'web1', fun: 'state.apply', arg: ['motd'] });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(fs.readFileSync(path.join(outDir, 'motd'), 'utf8').trim(), 'none');
    const granted = await post('overrider', { client: 'local', tgt: 'web1', fun: 'state.apply', arg: ['motd'], kwarg: { pillar: { motd: 'from-override' } } });
    assert.equal(granted.status, 200, granted.text);
    assert.equal(fs.readFileSync(path.join(outDir, 'motd'), 'utf8').trim(), 'from-override');
    assert.equal(fs.existsSync(path.join(outDir, 'pwned')), false, 'the injected cmd.run never ran');
  });

  it('control socket (publisher_acl): the same answer for both letters, runs on web1; ^ls and pillar= refused, nothing runs', { skip: localSkip }, async () => {
    const cfg = ['-c', cluster.masterConfigDir];
    const hit = await asUser(DORA, ['run', '-C', 'web1 or ( db1 and J@dbpass:^h )', 'test.ping', ...cfg]);
    const miss = await asUser(DORA, ['run', '-C', 'web1 or ( db1 and J@dbpass:^x )', 'test.ping', ...cfg]);
    assert.deepEqual([hit.code, hit.stdout, hit.stderr], [miss.code, miss.stdout, miss.stderr], 'the CLI answers must not differ');
    assert.equal(hit.code, 0, hit.stdout + hit.stderr);
    assert.match(hit.stdout, /^web1:\n {4}True$/m);
    assert.doesNotMatch(hit.stdout, /db1/);
    const own = await asUser(DORA, ['run', 'web1', 'test.echo', 'still-works', ...cfg]);
    assert.equal(own.code, 0, own.stdout + own.stderr);
    assert.match(own.stdout, /still-works/);
    const marker = path.join(outDir, 'dora-id');
    const ls = await asUser(DORA, ['run', 'web1', 'cmd.run', `ls /x; touch ${marker}`, ...cfg]);
    assert.equal(ls.code, 1, ls.stdout + ls.stderr);
    assert.match(ls.stderr, /^PUBLISH_DENIED: .*each argument rule must match the whole argument/m);
    const pillar = await asUser(DORA, ['run', 'web1', 'state.apply', 'motd', `pillar=${JSON.stringify(injection())}`, ...cfg]);
    assert.equal(pillar.code, 1, pillar.stdout + pillar.stderr);
    assert.match(pillar.stderr, /^PILLAR_OVERRIDE_DENIED: .*@pillar_override/m);
    assert.equal(fs.existsSync(marker), false, 'the command after ; never ran');
    assert.equal(fs.existsSync(path.join(outDir, 'pwned')), false, 'the injected cmd.run never ran');
  });
});
