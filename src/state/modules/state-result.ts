// Small helpers shared by the system state modules: building a StateResult, and calling an
// execution function where a failure becomes the state's failure (result False, the coded
// message as the comment) instead of an exception.

import type { StateContext, StateFunction, StateResult } from '../types.js';
import { errorMessage } from '../../util/errors.js';

export function stateResult(name: string, result: boolean | null, comment: string, changes: Record<string, unknown> = {}): StateResult {
  return { name, result, changes, comment };
}

export type Called<T> = { ok: true; value: T } | { ok: false; message: string; details?: unknown; code?: string };

/** Calls an execution function; a failure carries its message (which names the function and what to do). */
export async function callFn<T = unknown>(ctx: StateContext, fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}): Promise<Called<T>> {
  const r = await ctx.call(fun, arg, kwarg);
  if (r.success) return { ok: true, value: r.return as T };
  return { ok: false, message: r.error?.message ?? String(r.return), ...(r.error?.code ? { code: r.error.code } : {}) };
}

/** Drops undefined and null values, so an execution function applies its own defaults. */
export function defined(kw: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(kw).filter(([, v]) => v !== undefined && v !== null));
}

/**
 * A state whose run (and mod_watch) turns a thrown error into result False with the error's
 * message, so a bad argument value found at run time (a pkgs entry of the wrong shape, a
 * missing crontab program) fails that state only, in Salt's words, and never the whole run.
 */
export function failingSoftly(fn: StateFunction): StateFunction {
  const guard =
    (body: StateFunction['run']): StateFunction['run'] =>
    async (ctx, args) => {
      try {
        return await body(ctx, args);
      } catch (err) {
        const name = typeof args.named.name === 'string' ? args.named.name : ctx.low.name;
        return stateResult(name, false, errorMessage(err));
      }
    };
  return { ...fn, run: guard(fn.run.bind(fn)), ...(fn.modWatch ? { modWatch: guard(fn.modWatch.bind(fn)) } : {}) };
}
