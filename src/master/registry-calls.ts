// salt.runner and salt.wheel reach the runner and wheel functions the API offers (src/api's
// RUNNERS and WHEELS, over the master's own API backend). While the runner registry needs that
// backend, these steps need the API enabled (`api:`); without it they fail with a coded error.

import { RUNNERS, WHEELS, type ApiBackend } from '../api/index.js';
import { BrineError } from '../util/errors.js';
import type { FunctionCall } from '../orchestrate/index.js';

type Registry = ReadonlyMap<string, (b: ApiBackend, c: FunctionCall & { user?: string }) => unknown>;

function caller(kind: 'runner' | 'wheel', registry: Registry, backend: () => ApiBackend | undefined) {
  return async (fun: string, call: FunctionCall, user: string): Promise<unknown> => {
    const fn = registry.get(fun);
    if (!fn) throw new BrineError('UNKNOWN_FUNCTION', `${kind} function '${fun.slice(0, 100)}' is not one brine has; use ${[...registry.keys()].join(', ')}`);
    const b = backend();
    if (!b) throw new BrineError('ORCHESTRATE_UNAVAILABLE', `salt.${kind} needs the master's API backend for ${kind} functions: enable the API in the master config (api: {port: ...})`);
    return fn(b, { ...call, user });
  };
}

export function registryCalls(backend: () => ApiBackend | undefined): { runner: ReturnType<typeof caller>; wheel: ReturnType<typeof caller> } {
  return { runner: caller('runner', RUNNERS, backend), wheel: caller('wheel', WHEELS, backend) };
}
