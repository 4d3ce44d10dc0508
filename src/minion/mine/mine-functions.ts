// The minion's mine_functions, read as Salt reads them: the minion config merged with the
// `mine_functions` pillar key (config.merge: the config wins for the same name), each entry
// parsed by Salt's parse_function_definition into a function, its arguments and an allow_tgt
// restriction. Pure: no I/O, so the mine service and mine.valid share it.

import { BrineError } from '../../util/errors.js';
import { isPlainObject } from '../../protocol/index.js';

/** One mine entry, ready to run: `name` is the key in the mine (the alias, or the function). */
export interface MineFunction {
  name: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  allowTgt?: string | string[];
  allowTgtType?: string;
}

/** A mine_functions entry that cannot be read; the other entries still run. */
export interface MineEntryProblem {
  name: string;
  error: BrineError;
}

/**
 * Salt's config.merge('mine_functions'): the pillar's mapping with the config's entries laid over
 * it (a shallow merge; the config wins for the same name). Non-mappings count as absent.
 */
export function mergeMineFunctions(config: unknown, pillar: unknown): Record<string, unknown> {
  const fromPillar = isPlainObject(pillar) ? pillar : {};
  const fromConfig = isPlainObject(config) ? config : {};
  return { ...fromPillar, ...fromConfig };
}

/** The protocol's grammar for a mine name (messages.ts mineName). */
const MINE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

const ACL_TYPES = new Set(['glob', 'pcre', 'list', 'grain', 'grain_pcre', 'ipcidr', 'compound', 'nodegroup', 'pillar', 'pillar_pcre']);

/**
 * Salt's parse_function_definition for one entry: `[]` or null (no arguments), a list (scalars are
 * positional arguments, mappings keyword arguments; `mine_function`, `allow_tgt` and
 * `allow_tgt_type` are taken out), or a mapping (keyword arguments, same three keys taken out).
 */
export function parseMineEntry(name: string, definition: unknown): MineFunction {
  if (!MINE_NAME.test(name) || name.length > 256) {
    throw new BrineError('CONFIG_VALUE', `mine_functions: ${JSON.stringify(name.slice(0, 64))} is not a usable mine name; use letters, digits, _, . and - (at most 256 characters)`);
  }
  const arg: unknown[] = [];
  const kwarg: Record<string, unknown> = {};
  if (Array.isArray(definition)) {
    for (const item of definition) {
      if (isPlainObject(item)) Object.assign(kwarg, item);
      else arg.push(item);
    }
  } else if (isPlainObject(definition)) {
    Object.assign(kwarg, definition);
  } else if (definition !== null && definition !== undefined) {
    throw new BrineError(
      'CONFIG_VALUE',
      `mine_functions: the entry ${JSON.stringify(name)} must be a list of arguments or a mapping, not ${JSON.stringify(definition)}; write e.g. \`${name}: [${JSON.stringify(definition)}]\``,
    );
  }
  const mineFunction = takeKey(kwarg, 'mine_function');
  const allowTgt = takeKey(kwarg, 'allow_tgt');
  const allowTgtType = takeKey(kwarg, 'allow_tgt_type');
  const fun = mineFunction ?? name;
  if (typeof fun !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(fun)) {
    throw new BrineError('CONFIG_VALUE', `mine_functions: ${JSON.stringify(name)} does not name a function (module.function); give one with \`mine_function: module.function\``);
  }
  const out: MineFunction = { name, fun, arg, kwarg };
  if (allowTgt !== undefined) {
    if (!(typeof allowTgt === 'string' || (Array.isArray(allowTgt) && allowTgt.every((x) => typeof x === 'string')))) {
      throw new BrineError('CONFIG_VALUE', `mine_functions: allow_tgt of ${JSON.stringify(name)} must be a target expression (a string, or a list for allow_tgt_type: list)`);
    }
    out.allowTgt = allowTgt as string | string[];
    const type = allowTgtType ?? 'glob';
    if (typeof type !== 'string' || !ACL_TYPES.has(type)) {
      throw new BrineError('CONFIG_VALUE', `mine_functions: allow_tgt_type of ${JSON.stringify(name)} must be one of ${[...ACL_TYPES].join(', ')}`);
    }
    out.allowTgtType = type;
  }
  return out;
}

function takeKey(map: Record<string, unknown>, key: string): unknown {
  if (!Object.hasOwn(map, key)) return undefined;
  const v = map[key];
  delete map[key];
  return v;
}

/** Every entry parsed; the unreadable ones are reported beside the others, never instead of them. */
export function parseMineFunctions(merged: Readonly<Record<string, unknown>>): { functions: MineFunction[]; problems: MineEntryProblem[] } {
  const functions: MineFunction[] = [];
  const problems: MineEntryProblem[] = [];
  for (const [name, definition] of Object.entries(merged)) {
    try {
      functions.push(parseMineEntry(name, definition));
    } catch (err) {
      problems.push({ name, error: err instanceof BrineError ? err : new BrineError('CONFIG_VALUE', String(err)) });
    }
  }
  return { functions, problems };
}

/** mine.valid: what each entry would run, as Salt shows it ({alias: {function: args}} or {function: args}). */
export function describeMineFunctions(functions: readonly MineFunction[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of functions) {
    const args: unknown[] = [...f.arg, ...(Object.keys(f.kwarg).length > 0 ? [f.kwarg] : [])];
    out[f.name] = f.name === f.fun ? args : { [f.fun]: args };
  }
  return out;
}
