// Command-line flags for the benchmarks: `--name value` or `--name=value`, with typed defaults,
// and where the compiled brine lives (--build-dir, default dist/).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Parses argv against `spec` ({ name: default }); a number default makes the flag numeric, a
 * boolean default makes it a switch. Unknown flags are an error, so a typo never runs silently.
 */
export function parseFlags(argv, spec, usage) {
  try {
    return parse(argv, spec, usage);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
}

function parse(argv, spec, usage) {
  const out = { ...spec };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(arg);
    const key = m ? m[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase()) : undefined;
    if (!m || !(key in spec)) throw new Error(`unknown argument '${arg}'\n${usage}`);
    if (typeof spec[key] === 'boolean') {
      out[key] = m[2] === undefined ? true : m[2] !== 'false';
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${m[1]} needs a value\n${usage}`);
    if (typeof spec[key] === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new Error(`--${m[1]} must be a number, got '${value}'`);
      out[key] = n;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The compiled tree to benchmark: dist/ by default, or a private outDir such as .build-x. */
export function resolveBuild(buildDir) {
  const root = path.resolve(REPO_ROOT, buildDir);
  const cli = path.join(root, 'src', 'cli', 'main.js');
  if (!fs.existsSync(cli)) throw new Error(`no compiled CLI at ${cli}: run \`npm run build\` (or pass --build-dir <outDir>)`);
  /** import(build.module('protocol/index.js')) loads a compiled module. */
  return { root, cli, module: (rel) => pathToFileURL(path.join(root, 'src', rel)).href };
}
