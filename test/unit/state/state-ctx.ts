// Builds a StateContext for state-module tests: a real execution registry (the default one, or
// the functions given) and a plain ExecContext.

import { createDefaultRegistry, ModuleRegistry, type ExecContext, type ModuleFunction } from '../../../src/modules/index.js';
import { createStateContext, type StateContext, type StateFunction, type StateResult } from '../../../src/state/index.js';
import { builtinStateFunctions } from '../../../src/state/index.js';

export interface CtxOptions {
  test?: boolean;
  /** Replace these functions of the default registry (same names), e.g. ones bound to a temp dir. */
  override?: readonly ModuleFunction[];
  exec?: Partial<ExecContext>;
}

export function registryWith(override: readonly ModuleFunction[] = []): ModuleRegistry {
  const names = new Set(override.map((f) => f.name));
  const base = createDefaultRegistry();
  const r = new ModuleRegistry();
  for (const n of base.list()) if (!names.has(n)) r.register(base.get(n)!);
  r.registerAll(override);
  return r;
}

export function stateCtx(fun: string, name: string, o: CtxOptions = {}): StateContext {
  const [state, f] = fun.split('.') as [string, string];
  const exec: ExecContext = {
    grains: () => ({ id: 'web1', os: 'Debian' }),
    minionId: 'web1',
    config: {},
    signal: new AbortController().signal,
    jid: '20240101000000000000',
    ...o.exec,
  };
  return createStateContext({ test: o.test ?? false, exec, low: { __id__: name, __sls__: 'test', state, fun: f, name }, registry: registryWith(o.override) });
}

export function stateFn(fun: string): StateFunction {
  const fn = builtinStateFunctions.find((s) => s.name === fun);
  if (!fn) throw new Error(`no state function ${fun}`);
  return fn;
}

/** Runs a state function the way the runtime does: declared arguments by name, the rest as extra. */
export function runState(fun: string, args: Record<string, unknown>, o: CtxOptions & { watch?: boolean } = {}): Promise<StateResult> {
  const fn = stateFn(fun);
  const named: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const p of fn.params) if (p.default !== undefined) named[p.name] = p.default;
  for (const [k, v] of Object.entries(args)) {
    if (fn.params.some((p) => p.name === k)) named[k] = v;
    else extra[k] = v;
  }
  const ctx = stateCtx(fun, String(args.name), o);
  const call = o.watch && fn.modWatch ? fn.modWatch : fn.run;
  return call.call(fn, ctx, { named, rest: [], extra } as never);
}
