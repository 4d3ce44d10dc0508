// file_roots resolution: first root wins, environments, ignores, listings, symlinks inside the
// root served and those leading out refused, hashes cached by mtime and size, bounded chunks.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BrineError } from '../../../src/util/errors.js';
import { CachingFileClient, FileRoots, type FileSource, LocalFileSource, readFromRoots } from '../../../src/fileserver/index.js';

function tree(t: { after(fn: () => void): void }): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-roots-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

function write(file: string, text: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const sha = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

function setup(t: { after(fn: () => void): void }) {
  const d = tree(t);
  write(path.join(d, 'srv/one/top.sls'), 'one-top');
  write(path.join(d, 'srv/one/web/init.sls'), 'web');
  write(path.join(d, 'srv/one/web/nginx.conf'), 'nginx');
  write(path.join(d, 'srv/one/web/.nginx.conf.swp'), 'swap');
  write(path.join(d, 'srv/one/.git/config'), 'git');
  write(path.join(d, 'srv/two/top.sls'), 'two-top');
  write(path.join(d, 'srv/two/only-two.txt'), 'two');
  write(path.join(d, 'srv/dev/top.sls'), 'dev-top');
  write(path.join(d, 'secret'), 'outside');
  fs.symlinkSync(path.join(d, 'secret'), path.join(d, 'srv/one/leak'));
  fs.symlinkSync(path.join(d), path.join(d, 'srv/one/updir'));
  fs.symlinkSync('web/nginx.conf', path.join(d, 'srv/one/alias.conf'));
  const roots = new FileRoots({
    root_dir: d,
    file_roots: { base: [path.join(d, 'srv/one'), 'srv/two'], dev: [path.join(d, 'srv/dev')] },
    file_ignore_regex: ['/\\.git($|/)', '^\\.git'],
    file_ignore_glob: ['*.swp'],
  });
  return { d, roots };
}

describe('FileRoots', () => {
  it('takes a relative root under root_dir and lets the first root that has a file win', (t) => {
    const { roots, d } = setup(t);
    assert.deepEqual(roots.roots.get('base'), [path.join(d, 'srv/one'), path.join(d, 'srv/two')]);
    assert.equal(roots.find('base', 'top.sls')?.stat.sha256, sha('one-top'));
    assert.equal(roots.find('base', 'only-two.txt')?.stat.sha256, sha('two'));
    assert.equal(roots.find('dev', 'top.sls')?.stat.sha256, sha('dev-top'));
    assert.equal(roots.find('dev', 'only-two.txt'), undefined);
    assert.equal(roots.find('nosuchenv', 'top.sls'), undefined);
    assert.deepEqual(roots.envs(), ['base', 'dev']);
  });

  it('leaves an absolute root where it is, whatever root_dir says, as Salt does (issue 22)', () => {
    // Salt's apply_master_config/apply_minion_config prepend root_dir only to pki_dir, cachedir,
    // sock_dir, extension_modules, pidfile, the log files and the autosign files: file_roots
    // stay as written, so a Salt config with root_dir and file_roots elsewhere finds its tree
    const roots = new FileRoots({ root_dir: '/var/tmp/some-root', file_roots: { base: ['/srv/salt', 'rel/salt'], prod: ['/opt/tree/../states'] } });
    assert.deepEqual(roots.roots.get('base'), ['/srv/salt', '/var/tmp/some-root/rel/salt']);
    assert.deepEqual(roots.roots.get('prod'), ['/opt/states']);
    assert.deepEqual(new FileRoots({ file_roots: { base: ['/srv/salt'] } }).roots.get('base'), ['/srv/salt']);
  });

  it('lists files and directories merged over the roots, ignores applied, symlinks out of the root left out', (t) => {
    const { roots, d } = setup(t);
    assert.deepEqual(roots.list('base'), ['alias.conf', 'only-two.txt', 'top.sls', 'web/init.sls', 'web/nginx.conf']);
    assert.deepEqual(roots.list('base', 'web/'), ['web/init.sls', 'web/nginx.conf']);
    assert.deepEqual(roots.list('base', 'web/n'), ['web/nginx.conf']);
    // a prefix without a slash is a string prefix (Salt's), with one it is the directory only
    write(path.join(d, 'srv/two/webapp.txt'), 'x');
    assert.deepEqual(roots.list('base', 'web'), ['web/init.sls', 'web/nginx.conf', 'webapp.txt']);
    assert.deepEqual(roots.list('base', 'web/'), ['web/init.sls', 'web/nginx.conf']);
    assert.deepEqual(roots.list('base', 'web/', 'dirs'), []);
    assert.deepEqual(roots.list('base', 'we', 'dirs'), ['web']);
    assert.deepEqual(roots.list('base', '', 'dirs'), ['web']);
    assert.deepEqual(roots.list('dev'), ['top.sls']);
  });

  it('hides ignored files from reads too', (t) => {
    const { roots } = setup(t);
    assert.equal(roots.find('base', 'web/.nginx.conf.swp'), undefined);
    assert.equal(roots.find('base', '.git/config'), undefined);
  });

  it('serves a symlink that stays inside its root, refuses one that leads out', (t) => {
    const { roots } = setup(t);
    assert.equal(roots.find('base', 'alias.conf')?.stat.sha256, sha('nginx'));
    for (const p of ['leak', 'updir/secret']) {
      assert.throws(
        () => roots.find('base', p),
        (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED' && /outside its file root/.test(e.message),
      );
    }
  });

  it('checks the path and the saltenv before touching the disk', (t) => {
    const { roots } = setup(t);
    for (const [env, p] of [
      ['base', '../secret'],
      ['base', '/etc/passwd'],
      ['../x', 'top.sls'],
      ['base', '%2e%2e/secret'],
    ] as const) {
      assert.throws(
        () => roots.find(env, p),
        (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
      );
    }
    assert.throws(
      () => roots.list('../x'),
      (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
    );
  });

  it('hashes a file once while its mtime and size stay, again after it changes', (t) => {
    const { roots, d } = setup(t);
    roots.find('base', 'web/nginx.conf');
    roots.find('base', 'web/nginx.conf');
    assert.equal(roots.hashes.computed, 1);
    const file = path.join(d, 'srv/one/web/nginx.conf');
    fs.writeFileSync(file, 'nginx v2!');
    assert.equal(roots.find('base', 'web/nginx.conf')?.stat.sha256, sha('nginx v2!'));
    assert.equal(roots.hashes.computed, 2);
  });

  it('reads bounded chunks and marks the last one', (t) => {
    const { roots, d } = setup(t);
    const data = Buffer.alloc(10_000, 7);
    write(path.join(d, 'srv/one/big.bin'), data);
    const a = readFromRoots(roots, 'base', 'big.bin', 0, 4096);
    assert.equal(a.data.length, 4096);
    assert.equal(a.eof, false);
    const b = readFromRoots(roots, 'base', 'big.bin', 8192, 4096);
    assert.equal(b.data.length, 10_000 - 8192);
    assert.equal(b.eof, true);
    assert.throws(
      () => readFromRoots(roots, 'base', 'nope', 0, 10),
      (e: unknown) => e instanceof BrineError && e.code === 'FILE_NOT_FOUND',
    );
  });

  it('refuses a file_roots that is not a mapping, and a bad environment name in it', () => {
    assert.throws(() => new FileRoots({ file_roots: ['/srv/salt'] }), /file_roots must be a mapping/);
    assert.throws(
      () => new FileRoots({ file_roots: { '../x': ['/srv'] } }),
      (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
    );
  });
});

describe('CachingFileClient over local roots', () => {
  it('caches into cachedir/files/<saltenv>/<path>, transfers again only when the hash changes, in small chunks', async (t) => {
    const { roots, d } = setup(t);
    const cachedir = path.join(d, 'cache');
    const data = Buffer.from(Array.from({ length: 50_000 }, (_, i) => i % 251));
    write(path.join(d, 'srv/one/data/blob.bin'), data);
    const client = new CachingFileClient(new LocalFileSource(roots), { cachedir, chunkSize: 1024, window: 3 });
    const first = await client.cacheFile('salt://data/blob.bin', 'base');
    assert.equal(first.localPath, path.join(cachedir, 'files', 'base', 'data', 'blob.bin'));
    assert.deepEqual(fs.readFileSync(first.localPath), data);
    const ino = fs.statSync(first.localPath).ino;
    await client.cacheFile('salt://data/blob.bin', 'base');
    assert.equal(client.transfers, 1);
    assert.equal(fs.statSync(first.localPath).ino, ino, 'an unchanged file is not written again');
    fs.writeFileSync(path.join(d, 'srv/one/data/blob.bin'), 'changed');
    await client.cacheFile('salt://data/blob.bin', 'base');
    assert.equal(client.transfers, 2);
    assert.equal(fs.readFileSync(first.localPath, 'utf8'), 'changed');
    const dev = await client.cacheFile('salt://top.sls?saltenv=dev', 'base');
    assert.equal(dev.localPath, path.join(cachedir, 'files', 'dev', 'top.sls'));
    assert.equal(fs.readFileSync(dev.localPath, 'utf8'), 'dev-top');
    await assert.rejects(client.cacheFile('salt://missing', 'base'), (e: unknown) => e instanceof BrineError && e.code === 'FILE_NOT_FOUND');
    await assert.rejects(client.cacheFile('salt://../secret', 'base'), (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED');
    // no temporary file is left beside the cached ones
    assert.deepEqual(fs.readdirSync(path.join(cachedir, 'files', 'base', 'data')), ['blob.bin']);
  });

  it('cacheFileSync (a job worker serving file_client: local itself) uses the same cache path, checks and errors as cacheFile', (t) => {
    const { roots, d } = setup(t);
    const cachedir = path.join(d, 'cache');
    const data = Buffer.from(Array.from({ length: 5_000 }, (_, i) => i % 249));
    write(path.join(d, 'srv/one/data/blob.bin'), data);
    fs.chmodSync(path.join(d, 'srv/one/data/blob.bin'), 0o755);
    const client = new CachingFileClient(new LocalFileSource(roots), { cachedir, chunkSize: 1024 });
    const first = client.cacheFileSync('salt://data/blob.bin', 'base');
    assert.equal(first.localPath, path.join(cachedir, 'files', 'base', 'data', 'blob.bin'));
    assert.deepEqual(fs.readFileSync(first.localPath), data);
    assert.equal(fs.statSync(first.localPath).mode & 0o777, 0o755, 'the execute bits are kept');
    const ino = fs.statSync(first.localPath).ino;
    client.cacheFileSync('salt://data/blob.bin', 'base');
    assert.equal(client.transfers, 1);
    assert.equal(fs.statSync(first.localPath).ino, ino, 'an unchanged file is not written again');
    fs.writeFileSync(path.join(d, 'srv/one/data/blob.bin'), 'changed');
    client.cacheFileSync('salt://data/blob.bin', 'base');
    assert.equal(client.transfers, 2);
    assert.equal(fs.readFileSync(first.localPath, 'utf8'), 'changed');
    assert.equal(client.cacheFileSync('salt://top.sls?saltenv=dev', 'base').localPath, path.join(cachedir, 'files', 'dev', 'top.sls'));
    assert.throws(
      () => client.cacheFileSync('salt://missing', 'base'),
      (e: unknown) => e instanceof BrineError && e.code === 'FILE_NOT_FOUND',
    );
    assert.throws(
      () => client.cacheFileSync('salt://../secret', 'base'),
      (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
    );
    assert.throws(
      () => client.cacheFileSync('salt://leak', 'base'),
      (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
    );
    assert.deepEqual(fs.readdirSync(path.join(cachedir, 'files', 'base', 'data')), ['blob.bin'], 'no temporary file is left');
  });

  it('caches an empty file', async (t) => {
    const { roots, d } = setup(t);
    write(path.join(d, 'srv/one/empty'), '');
    const client = new CachingFileClient(new LocalFileSource(roots), { cachedir: path.join(d, 'cache'), chunkSize: 1024 });
    const r = await client.cacheFile('salt://empty', 'base');
    assert.equal(fs.readFileSync(r.localPath, 'utf8'), '');
  });

  it('forRun: a job asks the source for a file stat once; the next job asks again and sees a change', async (t) => {
    const { roots, d } = setup(t);
    const real = new LocalFileSource(roots);
    const stats: string[] = [];
    // the real source, its stat requests counted (what a minion would send its master as file_stat)
    const counted: FileSource = {
      listEnvs: () => real.listEnvs(),
      list: (env, prefix, kind) => real.list(env, prefix, kind),
      stat: (env, p) => {
        stats.push(p);
        return real.stat(env, p);
      },
      read: (env, p, offset, length) => real.read(env, p, offset, length),
    };
    const client = new CachingFileClient(counted, { cachedir: path.join(d, 'cache'), chunkSize: 1024 });
    const run = client.forRun();
    for (let i = 0; i < 5; i++) assert.equal(fs.readFileSync((await run.cacheFile('salt://web/nginx.conf', 'base')).localPath, 'utf8'), 'nginx');
    assert.equal((await run.stat('salt://web/nginx.conf', 'base'))?.sha256, sha('nginx'));
    await assert.rejects(run.cacheFile('salt://missing', 'base'), (e: unknown) => e instanceof BrineError && e.code === 'FILE_NOT_FOUND');
    assert.equal(await run.stat('salt://missing', 'base'), undefined);
    assert.deepEqual(stats, ['web/nginx.conf', 'missing']);
    assert.equal(client.transfers, 1);
    // a stat the job already has fetches the bytes without asking again
    assert.equal((await run.stat('salt://top.sls', 'base'))?.sha256, sha('one-top'));
    assert.equal(fs.readFileSync((await run.cacheFile('salt://top.sls', 'base')).localPath, 'utf8'), 'one-top');
    assert.deepEqual(stats, ['web/nginx.conf', 'missing', 'top.sls']);
    // the file changes between jobs: the next job's client asks and transfers it again
    write(path.join(d, 'srv/one/web/nginx.conf'), 'nginx v2');
    stats.length = 0;
    const next = client.forRun();
    assert.equal(fs.readFileSync((await next.cacheFile('salt://web/nginx.conf', 'base')).localPath, 'utf8'), 'nginx v2');
    await next.cacheFile('salt://web/nginx.conf', 'base');
    assert.deepEqual(stats, ['web/nginx.conf']);
    // a stat remembered before a change only starts a transfer; its hash check fails and the source is asked again
    write(path.join(d, 'srv/one/web/app.conf'), 'app v1');
    assert.equal((await next.stat('salt://web/app.conf', 'base'))?.sha256, sha('app v1'));
    write(path.join(d, 'srv/one/web/app.conf'), 'app v2');
    assert.equal(fs.readFileSync((await next.cacheFile('salt://web/app.conf', 'base')).localPath, 'utf8'), 'app v2');
    assert.deepEqual(stats, ['web/nginx.conf', 'web/app.conf', 'web/app.conf']);
  });
});

// A hit's resolution is remembered (FileRoots.find) and re-checked with two stats per request in
// place of two realpath walks; each case below must be seen at once, with no wait, and a naive
// cache by path (realPath reused as long as it exists) fails the swaps, the earlier root and the
// link leading out.
describe('FileRoots: the remembered resolution of a hit', () => {
  it('does no realpath walk for a repeated find of an unchanged file', (t) => {
    const { roots } = setup(t);
    assert.equal(roots.find('base', 'alias.conf')?.stat.sha256, sha('nginx'));
    const walks = roots.walks;
    for (let i = 0; i < 5; i++) assert.equal(roots.find('base', 'alias.conf')?.stat.sha256, sha('nginx'));
    assert.equal(roots.walks, walks, 'answered from the remembered resolution');
  });

  it('sees a file changed in place, replaced by a rename, and removed', (t) => {
    const { roots, d } = setup(t);
    const file = path.join(d, 'srv/one/web/init.sls');
    assert.equal(roots.find('base', 'web/init.sls')?.stat.sha256, sha('web'));
    fs.writeFileSync(file, 'web, changed and longer');
    assert.equal(roots.find('base', 'web/init.sls')?.stat.sha256, sha('web, changed and longer'));
    fs.writeFileSync(`${file}.new`, 'renamed over');
    fs.renameSync(`${file}.new`, file);
    assert.equal(roots.find('base', 'web/init.sls')?.stat.sha256, sha('renamed over'));
    fs.rmSync(file);
    assert.equal(roots.find('base', 'web/init.sls'), undefined);
    write(file, 'back again');
    assert.equal(roots.find('base', 'web/init.sls')?.stat.sha256, sha('back again'));
  });

  it('sees a symlink swapped to another file, and refuses it once it leads out of the root', (t) => {
    const { roots, d } = setup(t);
    const link = path.join(d, 'srv/one/alias.conf');
    assert.equal(roots.find('base', 'alias.conf')?.stat.sha256, sha('nginx'));
    fs.symlinkSync('top.sls', `${link}.new`);
    fs.renameSync(`${link}.new`, link);
    assert.equal(roots.find('base', 'alias.conf')?.stat.sha256, sha('one-top'), 'the new target is served');
    fs.rmSync(link);
    fs.symlinkSync(path.join(d, 'secret'), link);
    assert.throws(
      () => roots.find('base', 'alias.conf'),
      (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
      'a link swapped to lead out is refused, not served from the remembered path',
    );
  });

  it('sees a directory on the path swapped for a symlink leading out', (t) => {
    const { roots, d } = setup(t);
    assert.equal(roots.find('base', 'web/nginx.conf')?.stat.sha256, sha('nginx'));
    write(path.join(d, 'elsewhere/nginx.conf'), 'outside nginx');
    fs.renameSync(path.join(d, 'srv/one/web'), path.join(d, 'web-old'));
    fs.symlinkSync(path.join(d, 'elsewhere'), path.join(d, 'srv/one/web'));
    assert.throws(
      () => roots.find('base', 'web/nginx.conf'),
      (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED',
    );
  });

  it('sees a file added to an earlier root, which wins from then on', (t) => {
    const { roots, d } = setup(t);
    assert.equal(roots.find('base', 'only-two.txt')?.stat.sha256, sha('two'));
    write(path.join(d, 'srv/one/only-two.txt'), 'now in one');
    assert.equal(roots.find('base', 'only-two.txt')?.stat.sha256, sha('now in one'));
  });

  it('sees the root itself switched to another release (a current -> release symlink)', (t) => {
    const d = tree(t);
    write(path.join(d, 'releases/1/app.conf'), 'release 1');
    write(path.join(d, 'releases/2/app.conf'), 'release 2');
    fs.symlinkSync(path.join(d, 'releases/1'), path.join(d, 'current'));
    const roots = new FileRoots({ file_roots: { base: [path.join(d, 'current')] } });
    assert.equal(roots.find('base', 'app.conf')?.stat.sha256, sha('release 1'));
    fs.symlinkSync(path.join(d, 'releases/2'), path.join(d, 'current.new'));
    fs.renameSync(path.join(d, 'current.new'), path.join(d, 'current'));
    const found = roots.find('base', 'app.conf');
    assert.equal(found?.stat.sha256, sha('release 2'));
    assert.equal(found?.realPath, path.join(fs.realpathSync(d), 'releases/2/app.conf'));
    assert.equal(readFromRoots(roots, 'base', 'app.conf', 0, 100).data.toString(), 'release 2');
  });
});
