// Custom grains (`_grains/` synced into <cachedir>/extmods/grains): every *.js / *.mjs file there
// exports functions that return a mapping of grains. As in Salt, every exported function is
// called and its mapping laid over the core grains; config `grains:` still wins over both.
// A file that fails to import, or a function that throws or returns something else, is
// reported with the file's name and skipped; the other grains are still collected.

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { importModuleFile, type ModuleLoadLogger } from './custom-modules.js';
import type { Grains } from './types.js';
import { errorMessage } from '../util/errors.js';

/** What a grain function receives: the grains collected so far (core) and the minion config. */
export interface GrainFunctionInput {
  grains: Grains;
  opts: Readonly<Record<string, unknown>>;
}

export interface CustomGrainsResult {
  grains: Record<string, unknown>;
  /** Files loaded, each with the functions it ran. */
  loaded: { file: string; functions: string[] }[];
  /** Files or functions that failed, with why. */
  skipped: { file: string; reason: string }[];
}

const CALL_TIMEOUT_MS = 10_000;

function describe(err: unknown): string {
  return errorMessage(err);
}

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

async function callWithTimeout(fn: (input: GrainFunctionInput) => unknown, input: GrainFunctionInput): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not return within ${CALL_TIMEOUT_MS / 1000} s`)), CALL_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => fn(input)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The grain functions of a module: its exported functions (default included), in export order. */
function grainFunctions(mod: Record<string, unknown>): [string, (input: GrainFunctionInput) => unknown][] {
  return Object.entries(mod).filter((e): e is [string, (input: GrainFunctionInput) => unknown] => typeof e[1] === 'function' && !e[0].startsWith('_'));
}

/**
 * Runs every grain function of every module file in `dir` (name order); later files win on the
 * same grain. A missing directory means no custom grains. Never throws.
 */
export async function loadCustomGrains(dir: string, input: GrainFunctionInput, logger: ModuleLoadLogger): Promise<CustomGrainsResult> {
  const out: CustomGrainsResult = { grains: {}, loaded: [], skipped: [] };
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile() && /\.m?js$/.test(e.name))
      .map((e) => e.name)
      .sort();
  } catch {
    return out;
  }
  const skip = (file: string, reason: string): void => {
    out.skipped.push({ file, reason });
    logger.error({ file, reason }, `custom grains ${file} were not loaded: ${reason}`);
  };
  for (const name of names) {
    const file = path.join(dir, name);
    let fns: ReturnType<typeof grainFunctions>;
    try {
      fns = grainFunctions(await importModuleFile(file));
    } catch (err) {
      skip(file, describe(err));
      continue;
    }
    if (fns.length === 0) {
      skip(file, 'it exports no functions; export functions that return a mapping of grains');
      continue;
    }
    const ran: string[] = [];
    for (const [fname, fn] of fns) {
      let value: unknown;
      try {
        value = await callWithTimeout(fn, input);
      } catch (err) {
        skip(file, `${fname}() failed: ${describe(err)}`);
        continue;
      }
      if (value === undefined || value === null) continue; // Salt: a grain function may return nothing
      if (!isMapping(value)) {
        skip(file, `${fname}() returned ${Array.isArray(value) ? 'a list' : typeof value}, not a mapping of grain names to values`);
        continue;
      }
      let plain: Record<string, unknown>;
      try {
        // grains travel to the master and to job threads: keep only what JSON carries
        plain = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
      } catch (err) {
        skip(file, `${fname}() returned grains that are not plain data: ${describe(err)}`);
        continue;
      }
      for (const [k, v] of Object.entries(plain)) Object.defineProperty(out.grains, k, { value: v, enumerable: true, writable: true, configurable: true });
      ran.push(fname);
    }
    if (ran.length > 0) out.loaded.push({ file, functions: ran });
  }
  return out;
}
