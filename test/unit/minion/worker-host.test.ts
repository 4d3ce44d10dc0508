// The worker thread's host services with real worker threads (src/minion/worker-host*.ts): a
// blocking syncHost.call runs in a separate worker; a job blocked in one is still ended by
// terminate() (its timeout or kill), and so is the nested call it waits for; a template that
// keeps calling itself is stopped at the nesting limit; files requests without a file client
// are FILESERVER_UNAVAILABLE with the host's reason.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CachingFileClient, FileRoots, LocalFileSource } from '../../../src/fileserver/index.js';
import type { FileClient } from '../../../src/modules/index.js';
import { WorkerExecutor } from '../../../src/minion/worker-executor.js';
import type { WorkerCall } from '../../../src/minion/worker-messages.js';
import { nothingFor, waitUntil } from '../../helpers/wait.js';

const MODULE = `import { threadId } from 'node:worker_threads';
export const functions = [
  { name: 'probe.block', doc: 'Blocks on a nested call.', params: [{ name: 'counter', type: 'any', required: true }],
    run: (ctx, a) => ctx.syncHost.call('probe.spin', [a.named.counter], {}) },
  { name: 'probe.spin', doc: 'Counts in shared memory for ever.', params: [{ name: 'counter', type: 'any', required: true }],
    run: (ctx, a) => { const c = new Int32Array(a.named.counter); for (;;) Atomics.add(c, 0, 1); } },
  { name: 'probe.recurse', doc: 'Calls itself through the host.', params: [],
    run: (ctx) => { const r = ctx.syncHost.call('probe.recurse', [], {}); if (!r.success) throw new Error(r.error.message); return r.return; } },
  { name: 'probe.files', doc: 'Lists files.', params: [], run: (ctx) => ctx.files.listFiles('base') },
  { name: 'probe.read', doc: 'Reads salt:// both ways.', params: [],
    run: async (ctx) => ({ sync: ctx.syncHost.readFile('salt://a.txt', 'base'), missing: ctx.syncHost.readFile('salt://none', 'base') ?? null,
      cached: (await ctx.files.cacheFile('salt://a.txt', 'base')).localPath }) },
];
`;

function setup(t: { after(fn: () => void): void }): { call: (fun: string, arg?: unknown[]) => WorkerCall } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-worker-host-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'probe.mjs'), MODULE);
  return {
    call: (fun, arg = []) => ({ fun, arg, kwarg: {}, jid: '20250101000000000001', minionId: 'm1', grains: {}, config: { module_dirs: [dir] } }),
  };
}

describe('worker host services', () => {
  it('terminate() ends a worker blocked in syncHost.call, and the nested call with it', async (t) => {
    const { call } = setup(t);
    const executor = new WorkerExecutor(0);
    t.after(() => executor.close());
    // shared memory crosses both thread hops; the nested call counts in it while it runs
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const run = executor.start(call('probe.block', [counter.buffer]), () => undefined);
    // the nested call is spinning in its own thread while the caller waits in Atomics.wait
    await waitUntil(() => Atomics.load(counter, 0) > 0, 20_000, 'the nested call to start');
    const started = Date.now();
    run.terminate();
    const r = await run.result;
    assert.equal(r.success, false);
    assert.match(String(r.return), /stopped/);
    assert.ok(Date.now() - started < 2000, 'terminate did not end the blocked worker at once');
    // the nested thread is terminated too: its counter stops moving (terminate takes effect
    // within milliseconds; the window only has to be longer than that)
    await waitUntil(
      async () => {
        const before = Atomics.load(counter, 0);
        await nothingFor(100, 'the nested call counting');
        return Atomics.load(counter, 0) === before;
      },
      5000,
      'the nested call to stop counting',
    );
  });

  it('a call that keeps calling itself stops at the nesting limit with a clear error', async (t) => {
    const { call } = setup(t);
    const executor = new WorkerExecutor(0);
    t.after(() => executor.close());
    const r = await executor.start(call('probe.recurse'), () => undefined).result;
    assert.equal(r.success, false);
    assert.match(String(r.return), /more than 8 nested salt\[\.\.\.\] calls/);
  });

  it('files without a file client fail with the reason the host gave', async (t) => {
    const { call } = setup(t);
    const executor = new WorkerExecutor(0);
    t.after(() => executor.close());
    const r = await executor.start(call('probe.files'), () => undefined, { filesUnavailable: 'no master here; use --local' }).result;
    assert.equal(r.success, false);
    assert.equal(r.error?.code, 'FILESERVER_UNAVAILABLE');
    assert.match(String(r.return), /no master here; use --local/);
  });

  it('with file_client: local the worker serves salt:// itself (same cache path), without asking the host per file', async (t) => {
    const { call } = setup(t);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-worker-local-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, 'srv'));
    fs.writeFileSync(path.join(dir, 'srv', 'a.txt'), 'from the roots');
    const config = { file_roots: { base: [path.join(dir, 'srv')] }, root_dir: '/', cachedir: path.join(dir, 'cache'), file_buffer_size: 262144 };
    const real = new CachingFileClient(new LocalFileSource(new FileRoots(config)), { cachedir: config.cachedir, chunkSize: 262144 });
    // the host's client, counting what the worker asks it for
    let asked = 0;
    const count = <T>(v: T): T => {
      asked++;
      return v;
    };
    const counted: FileClient = {
      listEnvs: () => count(real.listEnvs()),
      listFiles: (e, p) => count(real.listFiles(e, p)),
      listDirs: (e, p) => count(real.listDirs(e, p)),
      stat: (u, e) => count(real.stat(u, e)),
      cacheFile: (u, e) => count(real.cacheFile(u, e)),
    };
    const executor = new WorkerExecutor(0);
    t.after(() => executor.close());
    const base = call('probe.read');
    const withConfig = { ...base, config: { ...base.config, ...config } };
    const expected = { sync: 'from the roots', missing: null, cached: path.join(config.cachedir, 'files', 'base', 'a.txt') };
    const local = await executor.start(withConfig, () => undefined, { files: counted, localFiles: true }).result;
    assert.deepEqual(local.return, expected);
    assert.equal(asked, 0, 'the worker asked the host for a local file');
    // the same call without the flag goes through the host, with the same answers
    const remote = await executor.start(withConfig, () => undefined, { files: counted }).result;
    assert.deepEqual(remote.return, expected);
    assert.ok(asked >= 3, `the host answered ${asked} requests`);
  });
});
