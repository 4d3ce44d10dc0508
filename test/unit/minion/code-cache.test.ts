// The job worker's code cache (scripts/bundle-worker.mjs makes it, job-worker-loader.cts uses it):
// the build leaves one that V8 accepts for this bundle, a cache made from other source is never
// handed to V8 (V8 itself compares only the length), and a worker whose cache is stale still runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { frameCodeCache, readCodeCache, sourceDigest } from '../../../src/minion/code-cache.cjs';
import { WorkerExecutor } from '../../../src/minion/worker-executor.js';

const minionDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/minion');
const bundleFile = path.join(minionDir, 'job-worker.bundle.cjs');
const cacheFile = path.join(minionDir, 'job-worker.bundle.cache');

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-codecache-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('job worker code cache', () => {
  it('the build made a cache for this very bundle, and V8 accepts it', (t) => {
    if (!fs.existsSync(bundleFile)) return t.skip('running from source: no bundle (npm run build makes it)');
    const source = fs.readFileSync(bundleFile, 'utf8');
    const data = readCodeCache(cacheFile, sourceDigest(source));
    assert.ok(data, 'no code cache for the current bundle: scripts/bundle-worker.mjs warned why');
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundleFile, cachedData: data });
    assert.equal(script.cachedDataRejected, false);
  });

  it('a cache made from other source is not used, even when V8 would take it', () => {
    const a = 'module.exports = 1;';
    const b = 'module.exports = 2;'; // same length: V8 alone cannot tell them apart
    const made = new vm.Script(a).createCachedData();
    const file = path.join(dir, 'cache');
    fs.writeFileSync(file, frameCodeCache(sourceDigest(a), made));
    assert.deepEqual(readCodeCache(file, sourceDigest(a)), made);
    assert.equal(readCodeCache(file, sourceDigest(b)), undefined);
    fs.writeFileSync(file, sourceDigest(a)); // header only
    assert.equal(readCodeCache(file, sourceDigest(a)), undefined);
    assert.equal(readCodeCache(path.join(dir, 'missing'), sourceDigest(a)), undefined);
  });

  it('a worker whose cache belongs to another build still runs jobs', async (t) => {
    if (!fs.existsSync(bundleFile)) return t.skip('running from source: no bundle');
    const saved = fs.readFileSync(cacheFile);
    // the real cache data behind another build's digest: what an upgrade that left the old cache would look like
    fs.writeFileSync(cacheFile, Buffer.concat([Buffer.alloc(32, 7), saved.subarray(32)]));
    const executor = new WorkerExecutor(0);
    try {
      const r = await executor.start({ fun: 'test.echo', arg: ['still works'], kwarg: {}, jid: 'req', minionId: 'm1', grains: {}, config: {} }, () => undefined).result;
      assert.equal(r.return, 'still works');
    } finally {
      executor.close();
      fs.writeFileSync(cacheFile, saved);
    }
  });
});
