// Entry point of a job worker thread when the bundle is built: compiles job-worker.bundle.cjs
// with the V8 code cache made at build time (job-worker.bundle.cache), so the thread skips
// parsing and compiling what a typical job runs (measured: ~35 ms of CPU per state run of 500
// states). Node 20 offers no code cache for ES modules, hence a CommonJS bundle and vm.Script.
//
// V8 checks a cache only against the source's length, so the cache file starts with the SHA-256
// of the bundle it was made from; any other bundle compiles without it. Nothing is written at run
// time: only the build (scripts/bundle-worker.mjs) sets BRINE_WORKER_CODE_CACHE_OUT.

import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { parentPort, type TransferListItem } from 'node:worker_threads';
import { frameCodeCache, readCodeCache, sourceDigest } from './code-cache.cjs';

const bundle = path.join(__dirname, 'job-worker.bundle.cjs');
const cacheFile = path.join(__dirname, 'job-worker.bundle.cache');
// hashed as bytes: hashing the decoded string re-encodes all of it (~10 ms here)
const bytes = readFileSync(bundle);
const digest = sourceDigest(bytes);
const source = bytes.toString('utf8');

// the same wrapper Node gives a CommonJS module
const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
const script = new vm.Script(wrapper, { filename: bundle, cachedData: readCodeCache(cacheFile, digest) });

// functions restored from a code cache cannot import(): module_dirs files are imported by this
// file instead (src/util/dynamic-import.ts)
(globalThis as Record<symbol, unknown>)[Symbol.for('brine.import')] = (url: string) => import(url);

const out = process.env.BRINE_WORKER_CODE_CACHE_OUT;
if (out !== undefined && parentPort) {
  // after each job, so the cache holds the functions that job compiled
  const port = parentPort;
  const post = port.postMessage.bind(port);
  port.postMessage = (message: unknown, transfer?: readonly TransferListItem[]) => {
    if ((message as { t?: unknown } | null)?.t === 'result') writeFileSync(out, frameCodeCache(digest, script.createCachedData()));
    post(message, transfer);
  };
}

const mod = { exports: {} };
(script.runInThisContext() as (e: object, r: NodeJS.Require, m: object, f: string, d: string) => void)(mod.exports, require, mod, bundle, __dirname);
