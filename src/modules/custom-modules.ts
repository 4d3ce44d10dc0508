// Custom execution modules from the minion's `module_dirs`: every *.js / *.mjs file there
// exports `functions` (or a default export) of ModuleFunction objects, registered through the
// same registry contract as the built-ins. A broken file is logged and skipped, never fatal.

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { importFile } from '../util/dynamic-import.js';
import { isBrineError, errorMessage } from '../util/errors.js';
import { ModuleRegistry } from './registry.js';
import type { ModuleFunction } from './types.js';

/** The part of the logger this needs (pino's Logger fits). */
export interface ModuleLoadLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ModuleLoadReport {
  /** Files loaded, each with the functions it registered. */
  loaded: { file: string; functions: string[] }[];
  /** Files (or directories) skipped, with why. */
  skipped: { file: string; reason: string }[];
}

const IMPORT_TIMEOUT_MS = 10_000;

function describe(err: unknown): string {
  return errorMessage(err);
}

/** The functions a module file exports: `functions`, a default array, or default.functions. */
function exportedFunctions(mod: Record<string, unknown>): unknown {
  if (mod.functions !== undefined) return mod.functions;
  const def = mod.default;
  if (Array.isArray(def)) return def;
  if (typeof def === 'object' && def !== null) return (def as Record<string, unknown>).functions;
  return undefined;
}

/** Checks the shape the registry relies on, so a bad export fails here with the file named. */
function checkShape(value: unknown): ModuleFunction[] {
  if (!Array.isArray(value)) throw new Error('it must export `functions` (or a default export) as an array of {name, doc, params, run}');
  return value.map((fn, i) => {
    const f = fn as Partial<ModuleFunction> | null;
    if (typeof f !== 'object' || f === null) throw new Error(`functions[${i}] is not an object`);
    const label = typeof f.name === 'string' ? `'${f.name}'` : `functions[${i}]`;
    if (typeof f.name !== 'string') throw new Error(`${label} has no string name`);
    if (typeof f.doc !== 'string') throw new Error(`${label} has no one-line doc string`);
    if (!Array.isArray(f.params)) throw new Error(`${label} has no params array (use [] for none)`);
    if (typeof f.run !== 'function') throw new Error(`${label} has no run(ctx, args) function`);
    return f as ModuleFunction;
  });
}

/**
 * Imports a module file with a bounded wait. The URL carries the content's hash: the ESM loader
 * caches by URL, so a file replaced by saltutil.sync_* must get a new URL to be loaded again.
 */
export async function importModuleFile(file: string): Promise<Record<string, unknown>> {
  const version = createHash('sha256')
    .update(await readFile(file))
    .digest('hex')
    .slice(0, 16);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`importing it did not finish within ${IMPORT_TIMEOUT_MS / 1000} s (top-level await that never settles?)`)), IMPORT_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([importFile(`${pathToFileURL(file).href}?v=${version}`), timeout])) as Record<string, unknown>;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Loads every *.js / *.mjs file of each directory (in name order) into the registry. A file is
 * registered whole or not at all: one that throws on import, exports the wrong shape, breaks
 * the naming rules, or reuses a name already registered (built-in or from an earlier file) is
 * logged with the file's path and skipped. Never throws.
 */
export async function loadModuleDirs(registry: ModuleRegistry, dirs: readonly string[], logger: ModuleLoadLogger): Promise<ModuleLoadReport> {
  const report: ModuleLoadReport = { loaded: [], skipped: [] };
  const origin = new Map<string, string>();
  const skip = (file: string, reason: string): void => {
    report.skipped.push({ file, reason });
    logger.error({ file, reason }, `custom module ${file} was not loaded: ${reason}`);
  };

  for (const dir of dirs) {
    let names: string[];
    try {
      names = (await readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isFile() && /\.(m?js)$/.test(e.name))
        .map((e) => e.name)
        .sort();
    } catch (err) {
      report.skipped.push({ file: dir, reason: describe(err) });
      logger.warn({ dir, err: describe(err) }, `module_dirs entry ${dir} cannot be read and is skipped; create it or remove it from module_dirs`);
      continue;
    }
    for (const name of names) {
      const file = path.resolve(dir, name);
      let fns: ModuleFunction[];
      try {
        fns = checkShape(exportedFunctions(await importModuleFile(file)));
        // Validate names, docs and params in a scratch registry first, so a file is all or nothing.
        new ModuleRegistry().registerAll(fns);
      } catch (err) {
        skip(file, isBrineError(err) ? err.message : describe(err));
        continue;
      }
      const clash = fns.find((f) => registry.get(f.name) !== undefined);
      if (clash) {
        const first = origin.get(clash.name);
        skip(file, `'${clash.name}' is already registered ${first ? `by ${first}` : 'as a built-in function'}; custom modules cannot replace existing functions, rename it`);
        continue;
      }
      registry.registerAll(fns);
      for (const f of fns) origin.set(f.name, file);
      report.loaded.push({ file, functions: fns.map((f) => f.name) });
      logger.info({ file, functions: fns.map((f) => f.name) }, `loaded custom module ${file}`);
    }
  }
  return report;
}
