// Stage "argument check": the arguments a chunk passes its state function have the declared
// types (the registry's binding rules), and the global arguments are well formed. As in Salt,
// two things are not compile errors (issue 22): an argument the function does not take is
// ignored with a warning in the state's return, and a state function that does not exist fails
// only its own state, at run time (both handled by the runner with the helpers below).

import { bindArguments, type BoundArgs, type ModuleFunction } from '../../modules/index.js';
import { isBrineError } from '../../util/errors.js';
import type { StateFunction } from '../types.js';
import { compileError, type CompileError, type LowChunk } from './high-types.js';
import { isFunctionArg, UNSUPPORTED_REQUISITES } from './requisite-kinds.js';

/**
 * The chunk's arguments the function does not take, in chunk order. Salt passes them into a
 * state function's **kwargs (most of Salt's take them) and never fails for them; here they are
 * dropped and named in the return's `warnings`.
 */
export function ignoredArgs(fn: StateFunction, chunk: LowChunk): string[] {
  if (fn.kwargs) return [];
  const known = paramNames(fn);
  return Object.keys(chunk).filter((k) => isFunctionArg(k) && !known.has(k));
}

// each chunk is checked at compile time and bound again when it runs: 500 chunks built a set of
// their function's ~50 parameter names twice each (bench:states, issue 27)
const paramNamesOf = new WeakMap<StateFunction, ReadonlySet<string>>();
function paramNames(fn: StateFunction): ReadonlySet<string> {
  let names = paramNamesOf.get(fn);
  if (names === undefined) {
    names = new Set(fn.params.map((p) => p.name));
    paramNamesOf.set(fn, names);
  }
  return names;
}

/**
 * The warning Salt's salt.utils.args.format_call words for unexpected keyword arguments:
 * "'a' is an invalid keyword argument for 'x.y'", or "'a', 'b' and 'c' are invalid keyword
 * arguments for 'x.y'".
 */
export function ignoredArgsWarning(full: string, ignored: readonly string[]): string {
  if (ignored.length === 1) return `'${ignored[0]}' is an invalid keyword argument for '${full}'`;
  const quoted = ignored.map((k) => `'${k}'`);
  return `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)} are invalid keyword arguments for '${full}'`;
}

/**
 * Salt's comment for a state whose function does not exist (State.verify_data; each error is
 * followed by a newline): "State 'x.y' was not found in SLS 'z'\nReason: 'x.y' is not available.\n".
 */
export function missingFunctionComment(chunk: Pick<LowChunk, 'state' | 'fun' | '__sls__'>): string {
  const full = `${chunk.state}.${chunk.fun}`;
  return `State '${full}' was not found in SLS '${chunk.__sls__}'\nReason: '${full}' is not available.\n`;
}

const isEmptyMapping = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/**
 * What a Python state function reads the way Python tests it (`if enabled:`, `if backup:`):
 * `enabled: 1` is true, and `backup: False` on an optional text argument or `{}` on an optional
 * list argument is "not set", as real trees write them (grafana-formula, sift-saltstack,
 * SnapServ); other mismatched types stay errors.
 */
function pythonTruth(fn: StateFunction, kwarg: Record<string, unknown>): void {
  for (const p of fn.params) {
    const v = kwarg[p.name];
    if (p.type === 'bool' && (v === 0 || v === 1)) kwarg[p.name] = v === 1;
    else if (p.type === 'string' && v === false && !p.required && (p.default === undefined || p.default === '')) delete kwarg[p.name];
    // an empty mapping is as falsy as an empty list (`sources: {}` from a pillar default: SnapServ)
    else if (p.type === 'list' && !p.required && isEmptyMapping(v)) delete kwarg[p.name];
  }
}

/** The registry's binding rules, applied to a state function's declared params; arguments it does not take are left out. */
export function bindStateArgs(fn: StateFunction, chunk: LowChunk): BoundArgs {
  const kwarg: Record<string, unknown> = {};
  const known = fn.kwargs ? undefined : paramNames(fn);
  for (const k of Object.keys(chunk)) if ((known === undefined || known.has(k)) && isFunctionArg(k)) kwarg[k] = chunk[k];
  pythonTruth(fn, kwarg);
  const asModule: ModuleFunction = { name: fn.name, doc: fn.doc, params: fn.params, run: () => undefined };
  if (fn.kwargs) asModule.kwargs = true;
  return bindArguments(asModule, [], kwarg);
}

const isStringList = (v: unknown): boolean => typeof v === 'string' || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string'));
const isFunCheck = (x: unknown): boolean => typeof x === 'object' && x !== null && !Array.isArray(x) && typeof (x as { fun?: unknown }).fun === 'string';
/** onlyif/unless: commands, `{fun: ...}` function checks, or a list mixing them. */
// a boolean inside the list (samba-formula's `- {{ grains.os_family in (...) }}`) is Salt's "bad
// type passed": it ends the checks and the state runs (State._run_check_onlyif/_unless)
const isCheckList = (v: unknown): boolean =>
  typeof v === 'string' || isFunCheck(v) || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' || typeof x === 'boolean' || isFunCheck(x)));

function checkGlobals(c: LowChunk): string[] {
  const bad: string[] = [];
  for (const key of ['onlyif', 'unless'] as const) {
    if (key in c && !(isCheckList(c[key]) || typeof c[key] === 'boolean')) bad.push(`'${key}' must be a command, a '{fun: module.function, ...}' check, a list of them, or a boolean`);
  }
  for (const key of ['creates', 'check_cmd'] as const) {
    if (key in c && !isStringList(c[key])) bad.push(`'${key}' must be ${key === 'creates' ? 'a path or a list of paths' : 'a command or a list of commands'}`);
  }
  if ('failhard' in c && typeof c.failhard !== 'boolean') bad.push("'failhard' must be true or false");
  // `retry` is never a compile error: Salt's verify_retry_data logs a warning and uses its defaults
  // for a value that is not a mapping, or for a key of the wrong type (runtime/retry.ts)
  return bad;
}

/** Errors for arguments of the wrong type and malformed global arguments, one per chunk. */
export function checkArguments(chunks: readonly LowChunk[], functions: ReadonlyMap<string, StateFunction>): CompileError[] {
  const errors: CompileError[] = [];
  for (const c of chunks) {
    const where = `${c.__sls__}:${c.__id__}`;
    const full = `${c.state}.${c.fun}`;
    const fn = functions.get(full);
    // a missing function fails its own state when the run reaches it (the runner), as in Salt
    if (fn) {
      try {
        bindStateArgs(fn, c);
      } catch (err) {
        if (!isBrineError(err)) throw err;
        errors.push(compileError(`State '${full}' (ID '${c.__id__}', name '${c.name}') in SLS '${c.__sls__}': ${err.message}`, where));
      }
    }
    for (const [key, instead] of UNSUPPORTED_REQUISITES) {
      if (key in c) errors.push(compileError(`State '${full}' (ID '${c.__id__}') in SLS '${c.__sls__}' uses the requisite '${key}', which brine does not support: ${instead}`, where));
    }
    for (const b of checkGlobals(c)) errors.push(compileError(`State '${full}' (ID '${c.__id__}') in SLS '${c.__sls__}': ${b}`, where));
  }
  return errors;
}
