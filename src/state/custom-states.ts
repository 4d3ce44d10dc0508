// Custom state modules (`_states/` synced into <cachedir>/extmods/states): every *.js / *.mjs file
// exports `states` (or a default export) of state functions in the shape of defineState
// ({name, doc, params, run}). A file is taken whole or not at all; a broken one is reported by
// name and skipped, and never replaces a built-in state.

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { importModuleFile, ModuleRegistry, type ModuleLoadLogger, type ModuleLoadReport } from '../modules/index.js';
import { errorMessage } from '../util/errors.js';
import type { StateFunction } from './types.js';

function describe(err: unknown): string {
  return errorMessage(err);
}

function exportedStates(mod: Record<string, unknown>): unknown {
  if (mod.states !== undefined) return mod.states;
  const def = mod.default;
  if (Array.isArray(def)) return def;
  if (typeof def === 'object' && def !== null) return (def as Record<string, unknown>).states;
  return undefined;
}

function checkShape(value: unknown): StateFunction[] {
  if (!Array.isArray(value)) throw new Error('it must export `states` (or a default export) as an array of {name, doc, params, run}');
  const fns = value.map((fn, i) => {
    const f = fn as Partial<StateFunction> | null;
    if (typeof f !== 'object' || f === null) throw new Error(`states[${i}] is not an object`);
    const label = typeof f.name === 'string' ? `'${f.name}'` : `states[${i}]`;
    if (typeof f.name !== 'string') throw new Error(`${label} has no string name`);
    if (typeof f.doc !== 'string') throw new Error(`${label} has no one-line doc string`);
    if (!Array.isArray(f.params)) throw new Error(`${label} has no params array (use [{ name: 'name', type: 'string', required: true }])`);
    if (typeof f.run !== 'function') throw new Error(`${label} has no run(ctx, args) function`);
    if (f.modWatch !== undefined && typeof f.modWatch !== 'function') throw new Error(`${label} has a modWatch that is not a function`);
    return { example: '', ...f } as StateFunction;
  });
  // names and params follow the same rules as execution functions (module.function, typed params)
  new ModuleRegistry().registerAll(fns.map((f) => ({ name: f.name, doc: f.doc, params: f.params, run: () => undefined })));
  return fns;
}

/**
 * Loads the state functions of every module file in `dir` (name order). `taken` are the names
 * already known (the built-in states): a file reusing one is skipped. A missing directory means
 * no custom states. Never throws.
 */
export async function loadCustomStates(dir: string, taken: ReadonlySet<string>, logger: ModuleLoadLogger): Promise<{ states: StateFunction[]; report: ModuleLoadReport }> {
  const report: ModuleLoadReport = { loaded: [], skipped: [] };
  const states: StateFunction[] = [];
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile() && /\.m?js$/.test(e.name))
      .map((e) => e.name)
      .sort();
  } catch {
    return { states, report };
  }
  const origin = new Map<string, string>();
  for (const name of names) {
    const file = path.join(dir, name);
    let fns: StateFunction[];
    try {
      fns = checkShape(exportedStates(await importModuleFile(file)));
    } catch (err) {
      report.skipped.push({ file, reason: describe(err) });
      logger.error({ file, reason: describe(err) }, `custom state module ${file} was not loaded: ${describe(err)}`);
      continue;
    }
    const clash = fns.find((f) => taken.has(f.name) || origin.has(f.name));
    if (clash) {
      const reason = `state '${clash.name}' is already defined ${origin.has(clash.name) ? `by ${origin.get(clash.name)}` : 'as a built-in state'}; custom states cannot replace existing ones, rename it`;
      report.skipped.push({ file, reason });
      logger.error({ file, reason }, `custom state module ${file} was not loaded: ${reason}`);
      continue;
    }
    for (const f of fns) origin.set(f.name, file);
    states.push(...fns);
    report.loaded.push({ file, functions: fns.map((f) => f.name) });
    logger.info({ file, states: fns.map((f) => f.name) }, `loaded custom state module ${file}`);
  }
  return { states, report };
}
