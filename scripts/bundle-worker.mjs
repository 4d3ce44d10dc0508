#!/usr/bin/env node
// Bundles the job worker thread's own code (dist/src/minion/job-worker.js and everything of
// brine's it imports) into one CommonJS file beside it, job-worker.bundle.cjs, and makes its V8
// code cache, job-worker.bundle.cache. A worker starts for every job and every brine call:
// loading one file instead of ~200 modules makes it ready ~65 ms sooner, and the code cache saves
// compiling what a job runs (~35 ms of CPU on a 500-state run; bench/README.md, bench:states).
// npm packages stay external: they load from node_modules as before (one copy each, native
// addons untouched). worker-executor.ts starts job-worker-loader.cjs (which compiles the bundle
// with the cache) only when the bundle is at least as new as the last tsc output.
//
// The cache is made by running what a minion typically runs: `brine call --local state.apply`
// of a small tree (a templated file.managed, file.directory, cmd.run guarded by unless, twice:
// once making changes, once finding none) and grains.items. If that fails the build still
// succeeds, with a warning, and workers compile without a cache.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'dist', 'src', 'minion');
const cache = path.join(dir, 'job-worker.bundle.cache');

await build({
  entryPoints: [path.join(dir, 'job-worker.js')],
  outfile: path.join(dir, 'job-worker.bundle.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  // CommonJS has no import.meta: the bundle's own file URL stands in (same directory as job-worker.js)
  define: { 'import.meta.url': '__brine_bundle_url' },
  banner: { js: 'var __brine_bundle_url = require("node:url").pathToFileURL(__filename).href;' },
});
// the ES module bundle of earlier builds, no longer used
fs.rmSync(path.join(dir, 'job-worker.bundle.js'), { force: true });
fs.rmSync(cache, { force: true });

const TOP = "base:\n  '*':\n    - warm\n";
const TEMPLATE = '# {{ name }} on {{ grains.id }}\n{% for k, v in settings | dictsort %}{{ k }} = {{ v }}\n{% endfor %}';
function sls(dest) {
  const out = [];
  for (let i = 0; i < 3; i++) {
    out.push(
      `warm-file-${i}:\n  file.managed:\n    - name: ${dest}/files/f${i}.conf\n    - source: salt://warm/app.conf.j2\n    - template: jinja\n    - makedirs: True\n    - context:\n        name: f${i}\n        settings: {a: ${i}, b: two}`,
      `warm-dir-${i}:\n  file.directory:\n    - name: ${dest}/dirs/d${i}\n    - makedirs: True`,
      `warm-cmd-${i}:\n  cmd.run:\n    - name: touch ${dest}/m${i}\n    - unless: test -e ${dest}/m${i}\n    - require:\n      - file: warm-dir-${i}`,
    );
  }
  return `${out.join('\n\n')}\n`;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-warm-'));
try {
  const srv = path.join(tmp, 'srv');
  fs.mkdirSync(path.join(srv, 'warm'), { recursive: true });
  fs.mkdirSync(path.join(tmp, 'etc'));
  fs.writeFileSync(path.join(srv, 'top.sls'), TOP);
  fs.writeFileSync(path.join(srv, 'warm', 'app.conf.j2'), TEMPLATE);
  fs.writeFileSync(path.join(srv, 'warm', 'init.sls'), sls(path.join(tmp, 'out')));
  fs.writeFileSync(path.join(tmp, 'etc', 'minion'), JSON.stringify({ root_dir: tmp, id: 'warm-up', file_client: 'local', file_roots: { base: [srv] }, log_level: 'error' }));
  const cli = path.join(root, 'dist', 'src', 'cli', 'main.js');
  const env = { ...process.env, BRINE_WORKER_CODE_CACHE_OUT: cache };
  // each run starts from the cache the one before wrote, and adds what it compiled
  for (const fun of ['state.apply', 'state.apply', 'grains.items']) {
    execFileSync(process.execPath, [cli, 'call', '--local', '-c', path.join(tmp, 'etc'), '--out', 'json', fun], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
  }
  if (!fs.existsSync(cache)) throw new Error('no cache was written');
} catch (err) {
  fs.rmSync(cache, { force: true });
  process.stderr.write(`warning: no code cache for the job worker (${err instanceof Error ? err.message.split('\n')[0] : err}); workers compile without it\n`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
