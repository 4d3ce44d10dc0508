// The execution-module registry: functions register explicitly with a doc and an argument
// shape, and every call goes through one path that binds arguments and codes failures.

import { BrineError, isBrineError, type ErrorCode, errorMessage } from '../util/errors.js';
import { bindArguments } from './bind-args.js';
import { resolveRetcode } from './retcode.js';
import type { BoundArgs, ExecContext, ExecResult, ModuleFunction } from './types.js';

// Salt's own names put capitals in the function part (dnsutil.A, dig.AAAA), never in the module.
const FUNCTION_NAME = /^[a-z_][a-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$/;
const PARAM_NAME = /^[a-z_][a-z0-9_]*$/;

function failure(code: ErrorCode, message: string, ret?: unknown, retcode?: unknown): ExecResult {
  // As in Salt, the return itself carries the message so that plain outputters show it; an
  // error may carry Salt's own return instead (state compile errors: a list of strings), and
  // Salt's own retcode where it has one (5 for a pillar that failed to render)
  const rc = typeof retcode === 'number' && Number.isInteger(retcode) && retcode > 0 ? retcode : 1;
  return { return: ret === undefined ? message : ret, retcode: rc, success: false, error: { code, message } };
}

function isPlainMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export class ModuleRegistry {
  // A Map, never an object: names such as `__proto__` or `constructor` must not resolve.
  private readonly fns = new Map<string, ModuleFunction>();

  /** Adds a function; a second function with the same name is a programming error. */
  register(fn: ModuleFunction): void {
    const bad = (why: string): BrineError => new BrineError('INTERNAL', `cannot register execution function '${fn.name}': ${why}`);
    if (!FUNCTION_NAME.test(fn.name)) throw bad("the name must be 'module.function' in letters, digits and '_' (the module in lower case)");
    if (this.fns.has(fn.name)) throw bad('a function with this name is already registered');
    if (fn.doc.trim() === '' || fn.doc.includes('\n')) throw bad('the doc must be one non-empty line');
    const seen = new Set<string>();
    let optionalSeen = false;
    for (const p of fn.params) {
      if (!PARAM_NAME.test(p.name)) throw bad(`parameter name '${p.name}' is not an identifier`);
      if (seen.has(p.name)) throw bad(`parameter '${p.name}' is declared twice`);
      seen.add(p.name);
      if (p.required && p.default !== undefined) throw bad(`parameter '${p.name}' is required but has a default`);
      if (p.keywordOnly) continue;
      // A required positional after an optional one could never be reached by position.
      if (p.required && optionalSeen) throw bad(`required parameter '${p.name}' follows an optional one`);
      if (!p.required) optionalSeen = true;
    }
    this.fns.set(fn.name, fn);
  }

  registerAll(fns: Iterable<ModuleFunction>): void {
    for (const fn of fns) this.register(fn);
  }

  get(name: string): ModuleFunction | undefined {
    return this.fns.get(name);
  }

  /** All function names, sorted. */
  list(): string[] {
    return [...this.fns.keys()].sort();
  }

  /**
   * Runs `fun` with Salt-style arguments. Never throws: unknown functions, bad arguments and
   * failures inside the function all come back as a coded ExecResult with retcode 1 (or the
   * error's `details.retcode`, where Salt has its own).
   */
  async call(fun: string, arg: unknown[], kwarg: Record<string, unknown>, ctx: ExecContext): Promise<ExecResult> {
    const fn = typeof fun === 'string' ? this.fns.get(fun) : undefined;
    if (!fn) return failure('UNKNOWN_FUNCTION', `'${String(fun)}' is not available.`);
    if (!Array.isArray(arg)) return failure('BAD_ARGUMENTS', `${fn.name}: positional arguments must be a list`);
    if (!isPlainMapping(kwarg)) return failure('BAD_ARGUMENTS', `${fn.name}: keyword arguments must be a mapping`);

    let bound: BoundArgs;
    try {
      bound = bindArguments(fn, arg, kwarg);
    } catch (err) {
      if (isBrineError(err)) return failure(err.code, err.message);
      return failure('INTERNAL', `${fn.name}: argument binding failed: ${String(err)}`);
    }

    let raw: unknown;
    try {
      raw = await fn.run(ctx, bound);
    } catch (err) {
      if (isBrineError(err)) return failure(err.code, err.message, err.details.return, err.details.retcode);
      const message = errorMessage(err);
      return failure('EXEC_FAILED', message === '' ? `${fn.name} failed without a message` : message);
    }
    const { value, retcode } = resolveRetcode(raw);
    return { return: value === undefined ? null : value, retcode, success: retcode === 0 };
  }
}
