#!/usr/bin/env node
// Bundles the CLI (dist/src/cli/program.js and everything of brine's it imports) into
// dist/src/cli/bundle/: one ES module per dynamic import (each subcommand, the daemons, the
// lazily loaded parts), shared code in chunks. `brine run` then loads 20 files instead of 56
// modules, and a minion 37 instead of 155: Node's ES module loader was ~60% of a `brine run`
// (bench/README.md, issue 12, perf-lean3). main.js runs the bundle when it is at least as new as
// the last tsc output (see there), so a compile without this step never runs stale code.
//
// npm packages stay external, loaded from node_modules as before (one copy each, native addons
// untouched). import.meta.url is rewritten to the URL of the compiled file each module came
// from, so paths beside it (the job worker, the web view's static files, createRequire) resolve
// as before. Source maps chain to the TypeScript sources (node --enable-source-maps).
// The metafile (meta.json) says which modules each chunk holds: test/integration/lean-imports
// reads it to check what a process loaded.

import * as fs from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'src', 'cli');
const outdir = path.join(cli, 'bundle');

/** import.meta.url of a bundled module: its own compiled file's URL, relative to the chunk. */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      // every chunk sits in outdir, so one relative URL serves whichever chunk holds the module
      const rel = path.relative(outdir, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * Node's built-ins without their ES module facades (issue 27, thinmin2). An ES import of a
 * built-in builds a facade that reads every export once, and with that runs every lazy getter:
 * `node:crypto` loads WebCrypto, `node:util` parseArgs and MIMEType, `node:net` BlockList and
 * SocketAddress, none of which a minion uses. In the bundle each `node:X` import resolves to a
 * module that takes the built-in's own exports object (process.getBuiltinModule, Node >= 20.16,
 * else createRequire) and exports each of its names as a pure read, so esbuild keeps only the
 * names the code imports and no getter runs for the others. Not esbuild's CommonJS interop:
 * that defines a getter per property of every built-in (+0.9 MiB of closures in the minion).
 * `node:module` itself stays an ES import.
 */
const IDENT = /^[A-Za-z_$][\w$]*$/;
const builtinsWithoutFacades = {
  name: 'builtins-without-facades',
  setup(b) {
    const helper = 'brine-builtin-require';
    const req = createRequire(import.meta.url);
    b.onResolve({ filter: /^[a-z0-9_/:-]+$/ }, (args) => {
      if (args.path === helper) return { path: helper, namespace: 'builtin-module' };
      if (args.namespace === 'builtin-module' || !isBuiltin(args.path)) return undefined;
      const name = args.path.replace(/^node:/, '');
      if (name === 'module') return { path: 'node:module', external: true };
      return { path: name, namespace: 'builtin-module' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin-module' }, (args) => {
      if (args.path === helper) {
        const text =
          "import { createRequire } from 'node:module';\nexport const builtin = process.getBuiltinModule ?? createRequire(import.meta.url);\n/* @__NO_SIDE_EFFECTS__ */ export function pick(m, name) {\n  return m[name];\n}\n";
        return { contents: text, loader: 'js' };
      }
      // the names only, never the values: reading them would run the getters this avoids
      const names = Object.keys(req(`node:${args.path}`)).filter((n) => IDENT.test(n) && n !== 'default');
      const lines = [`import { builtin, pick } from ${JSON.stringify(helper)};`, `const m = builtin(${JSON.stringify(`node:${args.path}`)});`, 'export default m;'];
      for (const n of names) lines.push(`export const ${n} = /* @__PURE__ */ pick(m, ${JSON.stringify(n)});`);
      return { contents: `${lines.join('\n')}\n`, loader: 'js' };
    });
  },
};

fs.rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(cli, 'program.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunk-[hash]',
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  plugins: [ownImportMetaUrl, builtinsWithoutFacades],
});
// paths relative to dist/src/cli/bundle, as the chunks' URLs are
const meta = {};
for (const [out, info] of Object.entries(result.metafile.outputs)) {
  if (!out.endsWith('.js')) continue;
  meta[path.basename(out)] = Object.keys(info.inputs).map((i) => path.relative(outdir, path.resolve(root, i)).split(path.sep).join('/'));
}
fs.writeFileSync(path.join(outdir, 'meta.json'), `${JSON.stringify(meta)}\n`);
