// The file server end to end (issue 9 point 4): a real master serves file_roots to a real
// minion over its session. cp.cache_file transfers a file once and again only when its content
// changes, environments are chosen by saltenv= or ?saltenv=, a several-MiB file arrives intact
// in many chunks, and attack paths sent through the real protocol by a raw peer are refused
// with PATH_REFUSED, logged with the minion's ID, while the master keeps serving.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitUntil } from '../helpers/cluster.js';
import type { RawClient } from '../helpers/raw-client.js';
import { RawPeerFixture } from '../helpers/raw-peer.js';

const sha = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

function write(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

describe('file server: master file_roots served to a minion over its session', () => {
  let fx: RawPeerFixture;
  let srv: string;
  let dev: string;
  const big = Buffer.from(Array.from({ length: 5 * 1024 * 1024 + 123 }, (_, i) => (i * 7919) % 256));

  const run = async (args: string[]): Promise<unknown> => {
    const r = await fx.cluster.brine(['run', 'good', ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.ok(r.stdout.trim() !== '', `no output from ${args.join(' ')}: ${r.stderr}`);
    return (JSON.parse(r.stdout) as Record<string, unknown>).good;
  };
  const runFull = (args: string[]) => fx.cluster.brine(['run', 'good', ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });

  before(async () => {
    // the master's roots exist before it starts; file_buffer_size is small so files go in many chunks;
    // relative roots are taken under root_dir (<root>/master)
    fx = await RawPeerFixture.start({ auto_accept: true, file_roots: { base: ['srv/salt', 'srv/extra'], dev: ['srv/dev'] }, file_buffer_size: 65536, file_ignore_glob: ['*.swp'] });
    srv = path.join(fx.cluster.root, 'master', 'srv', 'salt');
    dev = path.join(fx.cluster.root, 'master', 'srv', 'dev');
    write(path.join(srv, 'top.sls'), "base:\n  '*':\n    - web\n");
    write(path.join(srv, 'web', 'init.sls'), 'nginx:\n  pkg.installed: []\n');
    write(path.join(srv, 'web', 'app.conf'), 'listen 80\n');
    write(path.join(srv, 'web', '.app.conf.swp'), 'swap');
    write(path.join(srv, 'big.bin'), big);
    write(path.join(fx.cluster.root, 'master', 'srv', 'extra', 'extra.txt'), 'from the second root\n');
    write(path.join(dev, 'top.sls'), 'dev top\n');
    write(path.join(fx.cluster.root, 'master', 'secret.txt'), 'not for minions');
    fs.symlinkSync(path.join(fx.cluster.root, 'master', 'secret.txt'), path.join(srv, 'leak.txt'));
    const modules = path.join(fx.cluster.root, 'modules');
    write(
      path.join(modules, 'probe.mjs'),
      `import { threadId } from 'node:worker_threads';
export const functions = [
  { name: 'probe.thread', doc: 'thread id', params: [], run: () => threadId },
  { name: 'probe.render_inputs', doc: 'what a template render reaches', params: [], run: (ctx) => ({
      me: threadId,
      other: ctx.syncHost.call('probe.thread', [], {}).return,
      conf: ctx.syncHost.readFile('salt://web/init.sls', 'base'),
      dev: ctx.syncHost.readFile('salt://top.sls?saltenv=dev', 'base'),
      missing: ctx.syncHost.readFile('salt://nope', 'base') === undefined,
    }) },
];
`,
    );
    await fx.cluster.startMinion('probe', { module_dirs: [modules] }).waitForOutput(/ready to receive requests/);
  });
  after(() => fx.close());

  it('cp.cache_file transfers a file into cachedir/files/base, and not again while its content is unchanged', async () => {
    const local = (await run(['cp.cache_file', 'salt://web/app.conf'])) as string;
    assert.equal(local, path.join(fx.cluster.root, 'minions', 'good', 'var', 'cache', 'brine', 'minion', 'files', 'base', 'web', 'app.conf'));
    assert.equal(fs.readFileSync(local, 'utf8'), 'listen 80\n');
    // a transfer writes a new file and renames it over the old one: the inode tells
    const ino = fs.statSync(local).ino;
    assert.equal(await run(['cp.cache_file', 'salt://web/app.conf']), local);
    assert.equal(fs.statSync(local).ino, ino, 'the second cache_file transferred the file again');
    // a new mtime with the same content is not a change (the hash decides)
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(srv, 'web', 'app.conf'), later, later);
    await run(['cp.cache_file', 'salt://web/app.conf']);
    assert.equal(fs.statSync(local).ino, ino, 'a touched but unchanged file was transferred again');
    // changed content is fetched again
    fs.writeFileSync(path.join(srv, 'web', 'app.conf'), 'listen 8080\n');
    await run(['cp.cache_file', 'salt://web/app.conf']);
    assert.equal(fs.readFileSync(local, 'utf8'), 'listen 8080\n');
    assert.notEqual(fs.statSync(local).ino, ino);
    assert.equal(await run(['cp.is_cached', 'salt://web/app.conf']), local);
    assert.equal(await run(['cp.is_cached', 'salt://top.sls']), '');
  });

  it('a file of several MiB arrives intact in many chunks', async () => {
    const local = (await run(['cp.cache_file', 'salt://big.bin'])) as string;
    const got = fs.readFileSync(local);
    assert.equal(got.length, big.length);
    assert.equal(sha(got), sha(big));
    assert.deepEqual(await run(['cp.hash_file', 'salt://big.bin']), { hash_type: 'sha256', hsum: sha(big) });
  });

  it('lists files, directories and SLS names; the first root wins, ignored files are hidden', async () => {
    assert.deepEqual(await run(['cp.list_master']), ['big.bin', 'extra.txt', 'top.sls', 'web/app.conf', 'web/init.sls']);
    assert.deepEqual(await run(['cp.list_master', 'prefix=web/']), ['web/app.conf', 'web/init.sls']);
    assert.deepEqual(await run(['cp.list_master_dirs']), ['web']);
    assert.deepEqual(await run(['cp.list_states']), ['top', 'web']);
    assert.equal(fs.readFileSync((await run(['cp.cache_file', 'salt://extra.txt'])) as string, 'utf8'), 'from the second root\n');
  });

  it('chooses the environment by saltenv= or by ?saltenv= in the URL', async () => {
    assert.deepEqual(await run(['cp.list_master', 'saltenv=dev']), ['top.sls']);
    const a = (await run(['cp.cache_file', 'salt://top.sls', 'saltenv=dev'])) as string;
    const b = (await run(['cp.cache_file', 'salt://top.sls?saltenv=dev'])) as string;
    assert.equal(a, b);
    assert.match(a, /files\/dev\/top\.sls$/);
    assert.equal(fs.readFileSync(a, 'utf8'), 'dev top\n');
  });

  it('cp.get_file copies to a destination (makedirs) and cp.get_dir copies a directory', async () => {
    const out = path.join(fx.cluster.root, 'out');
    const dest = path.join(out, 'a', 'b', 'app.conf');
    const missingDir = await runFull(['cp.get_file', 'salt://web/app.conf', dest]);
    assert.notEqual(missingDir.code, 0);
    assert.match(missingDir.stdout + missingDir.stderr, /makedirs=True/);
    assert.equal(await run(['cp.get_file', 'salt://web/app.conf', dest, 'makedirs=True']), dest);
    assert.equal(fs.readFileSync(dest, 'utf8'), fs.readFileSync(path.join(srv, 'web', 'app.conf'), 'utf8'));
    const copied = (await run(['cp.get_dir', 'salt://web', path.join(out, 'dir')])) as string[];
    assert.deepEqual(copied.sort(), [path.join(out, 'dir', 'web', 'app.conf'), path.join(out, 'dir', 'web', 'init.sls')]);
  });

  it('missing files are FILE_NOT_FOUND; bad paths are refused on the minion before they are sent', async () => {
    const missing = await runFull(['cp.cache_file', 'salt://nope.txt']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr + missing.stdout, /FILE_NOT_FOUND|in no file root/);
    for (const bad of ['salt://../../etc/shadow', 'salt://%2e%2e/%2e%2e/etc/shadow', 'salt://top.sls?saltenv=../x']) {
      const r = await runFull(['cp.cache_file', bad]);
      assert.notEqual(r.code, 0, bad);
      assert.match(r.stdout + r.stderr, /is refused/, bad);
    }
    const leak = await runFull(['cp.cache_file', 'salt://leak.txt']);
    assert.match(leak.stdout + leak.stderr, /outside its file root/);
  });

  it('a job in the minion daemon reaches the master file server and other workers through syncHost', async () => {
    const r = await fx.cluster.brine(['run', 'probe', 'probe.render_inputs', '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const got = (JSON.parse(r.stdout) as { probe: Record<string, unknown> }).probe;
    assert.notEqual(got.other, got.me);
    assert.equal(got.conf, 'nginx:\n  pkg.installed: []\n');
    assert.equal(got.dev, 'dev top\n');
    assert.equal(got.missing, true);
  });

  describe('attack paths through the real protocol (threats.md #8, #10)', () => {
    let raw: RawClient;
    before(async () => {
      raw = await fx.connect();
      raw.send({ t: 'hello', versions: [1], id: 'raw-files', agent: 'raw-client' });
      const auth = await raw.nextFrame(5000);
      assert.equal(auth?.status, 'accepted', JSON.stringify(auth));
    });

    const attacks: Array<Record<string, unknown>> = [
      { t: 'file_stat', saltenv: 'base', path: '../../etc/shadow' },
      { t: 'file_read', saltenv: 'base', path: '../secret.txt', offset: 0, length: 100 },
      { t: 'file_read', saltenv: 'base', path: '/etc/passwd', offset: 0, length: 100 },
      { t: 'file_read', saltenv: 'base', path: 'leak.txt', offset: 0, length: 100 },
      { t: 'file_stat', saltenv: 'base', path: 'file:///etc/shadow' },
      { t: 'file_stat', saltenv: 'base', path: '%2e%2e%2fsecret.txt' },
      { t: 'file_stat', saltenv: 'base', path: '%252e%252e%252fsecret.txt' },
      { t: 'file_stat', saltenv: 'base', path: 'top.sls\u0000.png' },
      { t: 'file_stat', saltenv: 'base', path: '..\\secret.txt' },
      { t: 'file_stat', saltenv: '../x', path: 'top.sls' },
      { t: 'file_list', kind: 'files', saltenv: '..', prefix: '' },
      { t: 'file_list', kind: 'files', saltenv: 'base', prefix: '../' },
    ];
    it('every one gets PATH_REFUSED, the refusal is logged with the minion ID, the master keeps serving', async () => {
      let rid = 100;
      for (const a of attacks) {
        const req = { ...a, rid: ++rid };
        raw.send(req);
        const reply = await raw.nextFrame(5000);
        assert.equal(reply?.t, 'file_reply', `${JSON.stringify(a)} -> ${JSON.stringify(reply)}`);
        assert.equal(reply?.rid, rid);
        assert.equal(reply?.ok, false);
        assert.equal((reply?.error as { code: string } | undefined)?.code, 'PATH_REFUSED', JSON.stringify(reply));
        assert.equal(reply?.data, undefined);
      }
      await waitUntil(() => fx.master.output.split('\n').filter((l) => l.includes('refused a file server request from minion raw-files')).length >= attacks.length, 5000, 'refusals logged');
      // the same session is still served, and so is the other minion
      raw.send({ t: 'file_read', rid: 999, saltenv: 'base', path: 'top.sls', offset: 0, length: 100 });
      const ok = await raw.nextFrame(5000);
      assert.equal(ok?.ok, true, JSON.stringify(ok));
      assert.equal(Buffer.from(String(ok?.data), 'base64').toString(), "base:\n  '*':\n    - web\n");
      assert.equal(ok?.eof, true);
      assert.deepEqual(await run(['cp.list_master', 'saltenv=dev']), ['top.sls']);
      assert.ok(fx.master.running);
    });

    it('a chunk is capped at file_buffer_size whatever length is asked', async () => {
      raw.send({ t: 'file_read', rid: 1000, saltenv: 'base', path: 'big.bin', offset: 0, length: 16 * 1024 * 1024 });
      const r = await raw.nextFrame(5000);
      assert.equal(Buffer.from(String(r?.data), 'base64').length, 65536);
      assert.equal(r?.eof, false);
    });
  });
});
