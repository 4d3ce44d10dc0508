#!/usr/bin/env node
// Bundles the job worker thread's own code (dist/src/minion/job-worker.js and everything of
// brine's it imports) into one file beside it, job-worker.bundle.js. A worker starts for every
// job and every brine call; loading one file instead of ~200 modules makes it ready about 65 ms
// sooner (bench/README.md, bench:states). npm packages stay external: they load from
// node_modules as before (one copy each, native addons untouched), and the bundle sits in the
// same directory as job-worker.js, so import.meta.url-relative requires resolve the same way.
// worker-executor.ts uses the bundle only when it is at least as new as the last tsc output.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'dist', 'src', 'minion');

await build({
  entryPoints: [path.join(dir, 'job-worker.js')],
  outfile: path.join(dir, 'job-worker.bundle.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
