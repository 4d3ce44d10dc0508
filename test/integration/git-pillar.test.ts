// git_pillar end to end (issue 23 point 2): a real master renders pillar from two git
// repositories the test creates, for a real minion: one over file:// whose `__env__` branch
// follows the pillarenv (master = base, dev = dev), one over HTTPS with Basic credentials
// (git_pillar_user/git_pillar_password, ssl_verify: False for the test's self-signed server)
// holding a `#!yaml|gpg` SLS under root: pillar. A push arrives within git_pillar_update_interval
// without anyone asking; `brine git-pillar update` fetches at once; when a remote goes away the
// master keeps the last good pillar and says so in its log, the command and `brine doctor
// master`. The decrypted secret reaches the minion's state and no log, job cache or clone. Needs Debian `git`,
// `gnupg` and `openssl`.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster, type Proc, waitUntil } from '../helpers/cluster.js';
import { GitHttpServer } from '../helpers/git-http.js';
import { GitRepo } from '../helpers/git-repo.js';
import { GpgHome } from '../helpers/gpg.js';
import { makeTestCertificate } from '../helpers/test-cert.js';

const SECRET = `GitPillarPlain-${randomBytes(8).toString('hex')}`;
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

describe('git_pillar: pillar from git remotes (file:// with __env__, HTTPS with credentials) on a real master and minion', () => {
  let cluster: Cluster;
  let master: Proc;
  let minion: Proc;
  let envRepo: GitRepo;
  let secretRepo: GitRepo;
  let server: GitHttpServer;
  let gpg: GpgHome;

  const runJson = async (args: string[]): Promise<unknown> => {
    const r = await cluster.brine(['run', 'web1', ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.ok(r.stdout.trim() !== '', `no output from ${args.join(' ')}: ${r.stderr}`);
    return (JSON.parse(r.stdout) as Record<string, unknown>).web1;
  };
  /** The pillar after a refresh (the master renders again when a remote's refs moved). */
  const fresh = async (key: string, pillarenv?: string): Promise<unknown> => {
    await runJson(['saltutil.refresh_pillar']);
    return runJson(pillarenv === undefined ? ['pillar.get', key] : ['pillar.items', `pillarenv=${pillarenv}`]);
  };

  before(async () => {
    cluster = await Cluster.create();
    gpg = GpgHome.create('brine-master@example.org', cluster.masterConfigDir);
    envRepo = new GitRepo(path.join(cluster.root, 'git-env'));
    envRepo.commit({ 'top.sls': "base:\n  '*':\n    - app\n", 'app.sls': 'app:\n  env: base\n  version: 1\n' });
    envRepo.checkout('dev', true);
    envRepo.commit({ 'top.sls': "dev:\n  '*':\n    - app\n", 'app.sls': 'app:\n  env: dev\n' });
    envRepo.checkout('master');
    envRepo.push();
    secretRepo = new GitRepo(path.join(cluster.root, 'git-secret'));
    const armored = gpg
      .encrypt(SECRET)
      .trimEnd()
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
    secretRepo.commit({
      'pillar/top.sls': "base:\n  'web1':\n    - db\n",
      'pillar/db.sls': `#!yaml|gpg\ndb:\n  user: app\n  password: |\n${armored}\n`,
      README: 'not pillar\n',
    });
    secretRepo.push();
    const { cert, key } = makeTestCertificate(cluster.root, '127.0.0.1');
    server = await GitHttpServer.start({ projectRoot: secretRepo.dir, basic: { user: 'alice', password: PASSWORD }, tls: { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') } });
    master = await cluster.startMaster({
      auto_accept: true,
      ext_pillar: [{ git: [`__env__ ${envRepo.fileUrl}`, { [`master ${server.url('remote.git')}`]: [{ root: 'pillar' }, { ssl_verify: false }, { name: 'secrets' }] }] }],
      git_pillar_user: 'alice',
      git_pillar_password: PASSWORD,
      git_pillar_update_interval: 2,
    });
    minion = cluster.startMinion('web1');
    await minion.waitForOutput(/ready to receive requests/, 30_000);
  });
  after(async () => {
    await master?.kill();
    gpg?.close();
    await server?.close();
    await cluster?.cleanup();
  });

  it('the minion gets pillar from both remotes: __env__ on master is base, the HTTPS remote authenticated with git_pillar_user', async () => {
    await waitUntil(async () => JSON.stringify(await fresh('app')) === JSON.stringify({ env: 'base', version: 1 }), 30_000, 'the pillar from the file:// remote');
    assert.equal(await runJson(['pillar.get', 'db:user']), 'app');
    assert.ok(server.authenticated.includes('alice'), 'the HTTPS server saw the credentials');
    // pillar.get, not pillar.items: the whole pillar (with the secret) would be a job return
    assert.equal(await runJson(['pillar.get', 'README']), '', 'only the root directory is pillar');
  });

  it('__env__ maps the pillarenv to the branch of its name: pillarenv=dev renders the dev branch only; an unknown one is PILLARENV_UNKNOWN', async () => {
    assert.deepEqual(await runJson(['pillar.items', 'pillarenv=dev']), { app: { env: 'dev' } });
    const r = await cluster.brine(['run', 'web1', 'pillar.items', 'pillarenv=nosuch', '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.match(r.stdout + r.stderr, /PILLARENV_UNKNOWN|not an environment/);
  });

  it('the GPG-encrypted value in git pillar is decrypted for the state; the plaintext is in no log, job cache file or git clone', async () => {
    const target = path.join(cluster.root, 'secret.out');
    fs.mkdirSync(path.join(cluster.root, 'master', 'srv', 'salt'), { recursive: true });
    fs.writeFileSync(path.join(cluster.root, 'master', 'srv', 'salt', 'secret.sls'), `secret:\n  file.managed:\n    - name: ${target}\n    - contents_pillar: db:password\n`);
    const ret = (await runJson(['state.apply', 'secret'])) as Record<string, { result: boolean }>;
    assert.ok(Object.values(ret).length === 1 && Object.values(ret)[0]!.result === true, JSON.stringify(ret));
    assert.equal(fs.readFileSync(target, 'utf8'), `${SECRET}\n`);
    for (const p of [master, minion]) assert.ok(!p.output.includes(SECRET), `secret in the log of ${p.name}`);
    // nor in the master's caches: job cache, the git clones and checkouts (ciphertext only), status files
    const cacheDir = path.join(cluster.root, 'master', 'var', 'cache', 'brine', 'master');
    const files = fs
      .readdirSync(cacheDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.parentPath.startsWith(path.join(cacheDir, 'pillar')))
      .map((e) => path.join(e.parentPath, e.name));
    assert.ok(files.some((f) => path.basename(f).startsWith('jobs.sqlite')) && files.some((f) => f.includes(`${path.sep}git_pillar${path.sep}`)), 'the job cache and the clones were searched');
    for (const f of files) assert.ok(!fs.readFileSync(f).includes(SECRET), `secret in ${f}`);
  });

  it('a push is picked up within git_pillar_update_interval, with no update asked for', async () => {
    envRepo.commit({ 'app.sls': 'app:\n  env: base\n  version: 2\n' }, 'v2');
    envRepo.push();
    await waitUntil(async () => JSON.stringify(await fresh('app')) === JSON.stringify({ env: 'base', version: 2 }), 30_000, 'the pushed pillar');
  });

  it('brine git-pillar update fetches at once, by --repo name or URL; an unknown one is BAD_ARGUMENTS', async () => {
    const all = await cluster.brine(['git-pillar', 'update'], { timeoutMs: 60_000 });
    assert.equal(all.code, 0, all.stdout + all.stderr);
    assert.match(all.stdout, new RegExp(`^__env__ file://${envRepo.bare}: (updated|up to date)$`, 'm'));
    assert.match(all.stdout, /^master https:\/\/127\.0\.0\.1:\d+\/remote\.git: (updated|up to date)$/m);
    const one = await cluster.brine(['git-pillar', 'update', '--repo', 'secrets', '--out', 'json'], { timeoutMs: 60_000 });
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(
      (JSON.parse(one.stdout) as { remote: string }[]).map((r) => r.remote.split(' ')[0]),
      ['master'],
    );
    const none = await cluster.brine(['git-pillar', 'update', '--branch', 'nosuch'], { timeoutMs: 60_000 });
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /BAD_ARGUMENTS: Specified git branch\/repo not found in ext_pillar config/);
  });

  it('an unreachable remote keeps the last good pillar; the master log, brine git-pillar update and brine doctor master say so', async () => {
    fs.renameSync(envRepo.bare, `${envRepo.bare}.gone`);
    try {
      const up = await cluster.brine(['git-pillar', 'update'], { timeoutMs: 60_000 });
      assert.equal(up.code, 1, up.stdout + up.stderr);
      assert.match(up.stdout, /^__env__ file:\/\/.*: FAILED: /m);
      assert.match(up.stderr, /GIT_PILLAR_REMOTE_UNREACHABLE/);
      await master.waitForOutput(/GIT_PILLAR_REMOTE_UNREACHABLE: git_pillar remote __env__ file:\/\/.* could not be fetched: .*the last good checkout is still served/);
      const doctor = await cluster.brine(['doctor', 'master'], { timeoutMs: 60_000 });
      assert.match(doctor.stdout, /^WARN git_pillar __env__ file:\/\/.*: unreachable for .*; the last good checkout is still served\. Fix: .*brine git-pillar update/m);
      assert.deepEqual(await fresh('app'), { env: 'base', version: 2 });
      assert.equal(master.output.match(/GIT_PILLAR_REMOTE_UNREACHABLE: git_pillar remote/g)?.length, 1, 'one warning per failure streak');
    } finally {
      fs.renameSync(`${envRepo.bare}.gone`, envRepo.bare);
    }
    await master.waitForOutput(/git_pillar remote __env__ file:\/\/.* is reachable again/);
  });
});
