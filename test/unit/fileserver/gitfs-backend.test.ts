// The gitfs backend over real git repositories on disk (file://, the Debian `git` program):
// branches and tags as saltenvs with gitfs_base as base, root and mountpoint, whitelist and
// blacklist, per-saltenv ref mappings, roots and gitfs combined in fileserver_backend order,
// served bytes and hashes equal to roots', symlinks out of the checkout refused, a push picked
// up by the next update, and a remote that disappears keeping its last good checkout with one
// coded warning per failure streak.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BrineError } from '../../../src/util/errors.js';
import { createLogger } from '../../../src/util/logger.js';
import { FileBackends, FileRoots, readFileChunk } from '../../../src/fileserver/index.js';
import { GitfsBackend, readGitfsRemotes, redactUrls, type GitfsBackendOptions } from '../../../src/fileserver/git/index.js';
import { GitRepo } from '../../helpers/git-repo.js';

const sha = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

function tmp(t: { after(fn: () => void): void }): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-gitfs-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

function backend(dir: string, opts: Omit<GitfsBackendOptions, 'cachedir'>): { gitfs: GitfsBackend; log: string[] } {
  const log: string[] = [];
  const logger = createLogger({ name: 'test', level: 'info', write: (l) => log.push(l) });
  return { gitfs: new GitfsBackend({ cachedir: path.join(dir, 'cache'), ...opts }, logger), log };
}

function sampleRepo(dir: string): GitRepo {
  const repo = new GitRepo(path.join(dir, 'repo'));
  repo.commit({ 'top.sls': "base:\n  '*':\n    - web\n", 'web/init.sls': 'nginx:\n  pkg.installed: []\n', 'salt/inner.sls': 'inner\n' }, 'first');
  repo.tag('v1');
  repo.checkout('dev', true);
  repo.commit({ 'web/init.sls': 'dev web\n', 'dev-only.txt': 'dev\n' }, 'dev work');
  repo.checkout('master');
  repo.push();
  return repo;
}

describe('gitfs backend (real git repositories over file://)', () => {
  it('serves gitfs_base as base and every branch and tag as its own saltenv, with the bytes and SHA-256 of the commit', async (t) => {
    const dir = tmp(t);
    const repo = sampleRepo(dir);
    const { gitfs } = backend(dir, { gitfs_remotes: [repo.fileUrl] });
    assert.deepEqual(gitfs.envs(), [], 'nothing is served before the first fetch');
    const [res] = await gitfs.update();
    assert.deepEqual(res, { remote: repo.fileUrl, ok: true, changed: true });
    assert.deepEqual(gitfs.envs(), ['base', 'dev', 'v1']);
    const base = gitfs.find('base', 'web/init.sls')!;
    assert.equal(base.stat.sha256, sha('nginx:\n  pkg.installed: []\n'));
    assert.equal(base.stat.path, 'web/init.sls');
    assert.equal(readFileChunk(base, 0, 1 << 20).toString(), 'nginx:\n  pkg.installed: []\n');
    assert.equal(readFileChunk(gitfs.find('dev', 'web/init.sls')!, 0, 100).toString(), 'dev web\n');
    assert.equal(gitfs.find('base', 'dev-only.txt'), undefined);
    assert.deepEqual(gitfs.list('dev', '', 'files'), ['dev-only.txt', 'salt/inner.sls', 'top.sls', 'web/init.sls']);
    assert.deepEqual(gitfs.list('base', 'web/', 'files'), ['web/init.sls']);
    assert.deepEqual(gitfs.list('base', '', 'dirs'), ['salt', 'web']);
    // the same bytes from file_roots hash the same: a minion cannot tell the backends apart
    const rootsDir = path.join(dir, 'roots');
    fs.mkdirSync(path.join(rootsDir, 'web'), { recursive: true });
    fs.writeFileSync(path.join(rootsDir, 'web', 'init.sls'), 'nginx:\n  pkg.installed: []\n');
    assert.deepEqual(new FileRoots({ file_roots: { base: [rootsDir] } }).find('base', 'web/init.sls')!.stat.sha256, base.stat.sha256);
  });

  it('a push is picked up by the next update; an update with nothing new reports unchanged', async (t) => {
    const dir = tmp(t);
    const repo = sampleRepo(dir);
    const { gitfs } = backend(dir, { gitfs_remotes: [repo.fileUrl] });
    await gitfs.update();
    assert.deepEqual(
      (await gitfs.update()).map((r) => r.changed),
      [false],
    );
    repo.commit({ 'web/init.sls': 'pushed\n', 'new.txt': 'new\n' }, 'push');
    repo.push();
    assert.deepEqual(
      (await gitfs.update()).map((r) => r.changed),
      [true],
    );
    assert.equal(readFileChunk(gitfs.find('base', 'web/init.sls')!, 0, 100).toString(), 'pushed\n');
    assert.ok(gitfs.list('base', '', 'files').includes('new.txt'));
    // a deleted branch is no longer an environment
    repo.git(['push', '--quiet', 'origin', ':dev']);
    await gitfs.update();
    assert.deepEqual(gitfs.envs(), ['base', 'v1']);
  });

  it('root, mountpoint, per-saltenv ref mappings, whitelist and blacklist, as Salt maps them', async (t) => {
    const dir = tmp(t);
    const repo = sampleRepo(dir);
    const { gitfs } = backend(dir, {
      gitfs_remotes: [{ [repo.fileUrl]: [{ root: 'salt' }, { mountpoint: 'salt://formulas/x' }, { saltenv: [{ prod: [{ ref: 'v1' }] }] }] }],
      gitfs_saltenv_blacklist: ['v*'],
    });
    await gitfs.update();
    // v1 is blacklisted by name, but prod maps to the tag v1 and is served
    assert.deepEqual(gitfs.envs(), ['base', 'dev', 'prod']);
    assert.equal(gitfs.find('base', 'inner.sls'), undefined, 'without the mountpoint the path is not there');
    assert.equal(gitfs.find('base', 'formulas/x/web/init.sls'), undefined, 'outside the root');
    assert.equal(readFileChunk(gitfs.find('prod', 'formulas/x/inner.sls')!, 0, 100).toString(), 'inner\n');
    assert.deepEqual(gitfs.list('base', '', 'files'), ['formulas/x/inner.sls']);
    assert.deepEqual(gitfs.list('base', 'formulas/', 'dirs'), ['formulas/x']);
    assert.deepEqual(gitfs.list('base', '', 'dirs'), ['formulas', 'formulas/x']);

    const white = backend(path.join(dir, 'w'), { gitfs_remotes: [repo.fileUrl], gitfs_saltenv_whitelist: ['base', 'd.*'] }).gitfs;
    await white.update();
    assert.deepEqual(white.envs(), ['base', 'dev']);

    const mapped = backend(path.join(dir, 'm'), { gitfs_remotes: [repo.fileUrl], gitfs_base: 'dev', gitfs_disable_saltenv_mapping: true }).gitfs;
    await mapped.update();
    assert.deepEqual(mapped.envs(), ['base']);
    assert.equal(readFileChunk(mapped.find('base', 'web/init.sls')!, 0, 100).toString(), 'dev web\n');
  });

  it('roots and gitfs combine in fileserver_backend order: the first that has a file wins, environments are the union', async (t) => {
    const dir = tmp(t);
    const repo = sampleRepo(dir);
    const { gitfs } = backend(dir, { gitfs_remotes: [repo.fileUrl] });
    await gitfs.update();
    const rootsDir = path.join(dir, 'srv');
    fs.mkdirSync(path.join(rootsDir, 'web'), { recursive: true });
    fs.writeFileSync(path.join(rootsDir, 'web', 'init.sls'), 'from roots\n');
    fs.writeFileSync(path.join(rootsDir, 'roots-only.txt'), 'r\n');
    const roots = new FileRoots({ file_roots: { base: [rootsDir], qa: [rootsDir] } });
    const rootsFirst = new FileBackends([roots, gitfs]);
    const gitFirst = new FileBackends([gitfs, roots]);
    assert.equal(readFileChunk(rootsFirst.find('base', 'web/init.sls')!, 0, 100).toString(), 'from roots\n');
    assert.equal(readFileChunk(gitFirst.find('base', 'web/init.sls')!, 0, 100).toString(), 'nginx:\n  pkg.installed: []\n');
    assert.ok(gitFirst.find('base', 'roots-only.txt'), 'a file only roots has is still found');
    assert.deepEqual(gitFirst.envs(), ['base', 'dev', 'qa', 'v1']);
    assert.deepEqual(gitFirst.list('base', '', 'files'), ['roots-only.txt', 'salt/inner.sls', 'top.sls', 'web/init.sls']);
  });

  it('refuses .. and symlinks leading out of the checkout, as file_roots does', async (t) => {
    const dir = tmp(t);
    const repo = new GitRepo(path.join(dir, 'repo'));
    repo.symlink('/etc/passwd', 'leak');
    repo.symlink('../../../../../../../../etc/hostname', 'up');
    repo.symlink('real.txt', 'alias.txt');
    repo.commit({ 'real.txt': 'real\n' });
    repo.push();
    const { gitfs } = backend(dir, { gitfs_remotes: [repo.fileUrl] });
    await gitfs.update();
    for (const p of ['leak', 'up']) {
      assert.throws(
        () => gitfs.find('base', p),
        (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
        p,
      );
    }
    assert.throws(
      () => gitfs.find('base', '../repo.git/config'),
      (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
    );
    assert.equal(readFileChunk(gitfs.find('base', 'alias.txt')!, 0, 100).toString(), 'real\n', 'a symlink inside the tree is served');
    assert.deepEqual(gitfs.list('base', '', 'files'), ['alias.txt', 'real.txt']);
  });

  it('a remote that cannot be fetched keeps its last good checkout; GITFS_REMOTE_UNREACHABLE is logged once per failure streak', async (t) => {
    const dir = tmp(t);
    const repo = sampleRepo(dir);
    const { gitfs, log } = backend(dir, { gitfs_remotes: [repo.fileUrl] });
    await gitfs.update();
    const moved = `${repo.bare}.moved`;
    fs.renameSync(repo.bare, moved);
    const [r1] = await gitfs.update();
    const [r2] = await gitfs.update();
    assert.equal(r1!.ok, false);
    assert.match(r1!.error!, /does not appear to be a git repository|not found|No such file/i);
    assert.equal(r2!.ok, false);
    assert.equal(readFileChunk(gitfs.find('base', 'web/init.sls')!, 0, 100).toString(), 'nginx:\n  pkg.installed: []\n', 'the last good tree is served');
    assert.deepEqual(gitfs.envs(), ['base', 'dev', 'v1']);
    const warnings = log.filter((l) => l.includes('GITFS_REMOTE_UNREACHABLE'));
    assert.equal(warnings.length, 1, `one warning per streak, got:\n${log.join('')}`);
    assert.match(warnings[0]!, /the last good checkout is still served/);
    const st = gitfs.status()[0]!;
    assert.equal(st.ok, false);
    assert.equal(st.failures, 2);
    assert.equal(st.serving, true);
    // a master restarted while the remote is away serves the clone it has on disk
    const restarted = backend(dir, { gitfs_remotes: [repo.fileUrl] });
    assert.equal((await restarted.gitfs.update())[0]!.ok, false);
    assert.equal(readFileChunk(restarted.gitfs.find('dev', 'web/init.sls')!, 0, 100).toString(), 'dev web\n');
    assert.match(restarted.log.join(''), /GITFS_REMOTE_UNREACHABLE.*the last good checkout is still served/);
    fs.renameSync(moved, repo.bare);
    assert.equal((await gitfs.update())[0]!.ok, true);
    assert.ok(log.some((l) => l.includes('is reachable again')));
    assert.equal(gitfs.status()[0]!.ok, true);
  });
});

describe('gitfs_remotes as Salt reads them', () => {
  it('per-remote parameters override the global ones; credentials never appear in what is shown', () => {
    const [a, b] = readGitfsRemotes({
      gitfs_remotes: ['https://alice:s3cret@git.example.org/a.git', { 'git@example.org:b.git': [{ name: 'bee' }, { base: 'main' }, { root: '/srv/salt/' }, { privkey: '/k' }] }],
      gitfs_base: 'production',
      gitfs_update_interval: 30,
    });
    assert.equal(a!.shown, 'https://***@git.example.org/a.git');
    assert.equal(a!.base, 'production');
    assert.equal(a!.updateIntervalS, 30);
    assert.match(a!.cacheName, /^[0-9a-f]{64}$/);
    assert.equal(b!.cacheName, 'bee');
    assert.equal(b!.base, 'main');
    assert.equal(b!.root, 'srv/salt');
    assert.equal(b!.auth.privkey, '/k');
    assert.equal(redactUrls('fatal: could not read from ssh://git:pw@h/r.git and https://tok@h/x'), 'fatal: could not read from ssh://git:***@h/r.git and https://***@h/x');
    assert.equal(redactUrls('ssh://git@h:2222/r.git'), 'ssh://git@h:2222/r.git', 'an SSH user name is shown');
  });

  it('bad entries are GITFS_CONFIG naming the remote and what to write instead', () => {
    const code = (opts: Parameters<typeof readGitfsRemotes>[0], re: RegExp) =>
      assert.throws(
        () => readGitfsRemotes(opts),
        (e: unknown) => e instanceof BrineError && e.code === 'GITFS_CONFIG' && re.test(e.message),
      );
    code({ gitfs_remotes: [{ 'https://h/r.git': [{ rooot: 'x' }] }] }, /unknown parameter "rooot"/);
    code({ gitfs_remotes: [42] }, /neither a URL nor a one-key mapping/);
    code({ gitfs_remotes: [{ 'http://h/r.git': [{ password: 'pw' }] }] }, /plain http.*insecure_auth/);
    code({ gitfs_remotes: ['https://h/r.git', 'https://h/r.git'] }, /same URL/);
    code({ gitfs_remotes: [{ 'https://h/r.git': [{ mountpoint: '../up' }] }] }, /not a relative path/);
    assert.equal(readGitfsRemotes({ gitfs_remotes: [{ 'http://h/r.git': [{ password: 'pw' }, { insecure_auth: true }] }] }).length, 1);
  });
});
