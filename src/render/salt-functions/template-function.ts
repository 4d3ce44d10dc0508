// An execution function a template runs on its own thread (salt['mod.fun'] answered without a
// call to the host): pure data functions whose in-place effects on the template's objects Salt
// formulas rely on, and log.*. Declared once with Salt's parameter names, so that the render's
// `salt` proxy and the minion's execution-module registry (src/state/template-modules.ts) bind
// arguments the same way.

import { PyError } from '../jinja/py-values.js';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error' | 'critical';

/** What a template function may reach besides its arguments. */
export interface TemplateHost {
  /** grains.get's traversal (`a:b`, lists by index) with a default. */
  grain(key: unknown, dflt: unknown): unknown;
  grains(): Record<string, unknown>;
  /** The minion's configuration (`opts`). */
  opts(): Record<string, unknown>;
  pillar(): Record<string, unknown>;
  /** The minion's (or master's) log; absent where the caller keeps no log. */
  log?: (level: LogLevel, message: string) => void;
}

export interface TemplateParam {
  name: string;
  /** The Python default; a parameter without one is required. */
  default?: unknown;
}

export interface TemplateFunction {
  /** One line, for sys.doc. */
  doc: string;
  params: readonly TemplateParam[];
  /** Takes surplus positional arguments (Python's *args). */
  varargs?: boolean;
  /** Takes surplus keyword arguments (Python's **kwargs). */
  kwargs?: boolean;
  run(host: TemplateHost, a: Record<string, unknown>, rest: unknown[], extra: Record<string, unknown>): unknown;
}

/** Python's argument binding for a template call; a mismatch is Python's TypeError. */
export function bindTemplateArgs(name: string, fn: TemplateFunction, pos: unknown[], kw: Record<string, unknown>): [Record<string, unknown>, unknown[], Record<string, unknown>] {
  const a: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  const { params } = fn;
  if (pos.length > params.length && !fn.varargs) throw new PyError(`TypeError: ${name}() takes ${params.length} positional arguments but ${pos.length} were given`);
  params.forEach((p, i) => {
    if (i < pos.length) a[p.name] = pos[i];
  });
  for (const [k, v] of Object.entries(kw)) {
    const declared = params.findIndex((p) => p.name === k);
    if (declared >= 0) {
      if (declared < pos.length) throw new PyError(`TypeError: ${name}() got multiple values for argument '${k}'`);
      a[k] = v;
    } else if (fn.kwargs) extra[k] = v;
    // Salt's loader drops the __pub_* keys it adds itself; any other unknown keyword is an error
    else if (!k.startsWith('__')) throw new PyError(`TypeError: ${name}() got an unexpected keyword argument '${k}'`);
  }
  for (const p of params) {
    if (Object.hasOwn(a, p.name)) continue;
    if (!Object.hasOwn(p, 'default')) throw new PyError(`TypeError: ${name}() missing 1 required positional argument: '${p.name}'`);
    a[p.name] = p.default;
  }
  return [a, pos.slice(params.length), extra];
}
