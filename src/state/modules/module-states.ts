// module.run (and module.wait, which runs only from a watch): call execution functions from a
// state. Current Salt's syntax is the default — each key with a '.' is a function, its list
// holds positional values and one-key mappings for keyword arguments, and `fun:alias` calls the
// same function twice; the legacy syntax (`name: test.echo` plus m_name, args, kwargs) is
// detected as Salt detects it: some key without a '.', or no key at all.

import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';

// Keys the state system passes that are not functions (Salt's ignored list).
const IGNORED = new Set(['name', '__reqs__', 'sfun', 'returner']);
// Legacy spelling of argument names that collide with the state's own.
const M_PREFIXED = new Set(['m_name', 'm_fun', 'm_state', 'm_saltenv', 'm_names']);

/** Salt's call_function argument split: mappings are keyword arguments, everything else positional. */
export function splitCallArgs(value: unknown): { arg: unknown[]; kwarg: Record<string, unknown> } {
  const arg: unknown[] = [];
  const kwarg: Record<string, unknown> = {};
  if (value === undefined || value === null) return { arg, kwarg };
  const items = Array.isArray(value) ? value : typeof value === 'object' ? [value] : [value];
  for (const item of items) {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) Object.assign(kwarg, item);
    else arg.push(item);
  }
  return { arg, kwarg };
}

function describe(v: unknown): string {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const c = (v as Record<string, unknown>).comment;
    return typeof c === 'string' ? c : 'Success';
  }
  // Salt's comment is Python's str() of the return: True, False, None.
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null || v === undefined) return 'None';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

async function available(ctx: StateContext, fun: string): Promise<boolean> {
  const r = await callFn<string[]>(ctx, 'sys.list_functions', [fun]);
  return r.ok && Array.isArray(r.value) && r.value.includes(fun);
}

async function runNew(ctx: StateContext, id: string, calls: [string, unknown][]): Promise<StateResult> {
  if (calls.length === 0) return stateResult(id, false, 'No function provided.');
  const missing: string[] = [];
  const tests: string[] = [];
  for (const [key] of calls) {
    const fun = key.split(':')[0]!;
    if (!(await available(ctx, fun))) missing.push(fun);
    else if (ctx.test) tests.push(fun);
  }
  if (missing.length || tests.length) {
    const parts = [
      missing.length ? `Unavailable function${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}.` : '',
      tests.length ? `Function${tests.length > 1 ? 's' : ''} ${tests.join(', ')} to be executed.` : '',
    ];
    return stateResult(id, missing.length ? false : null, parts.join(' ').trim());
  }
  const failures: string[] = [];
  const success: string[] = [];
  const changes: Record<string, unknown> = {};
  for (const [key, value] of calls) {
    const fun = key.split(':')[0]!;
    const { arg, kwarg } = splitCallArgs(value);
    const r = await ctx.call(fun, arg, kwarg);
    if (r.error) failures.push(`'${key}' failed: ${r.error.message}`);
    else if (r.return === false) failures.push(`'${key}': False`);
    else if (!r.success) failures.push(`'${key}' failed: exit code ${r.retcode}`);
    else {
      success.push(`${key}: ${describe(r.return)}`);
      changes[key] = r.return;
    }
  }
  return stateResult(id, failures.length === 0, [...failures, ...success].join(', '), changes);
}

async function runLegacy(ctx: StateContext, name: string, extra: Record<string, unknown>): Promise<StateResult> {
  if (!(await available(ctx, name))) return stateResult(name, false, `Module function ${name} is not available`);
  if (ctx.test) return stateResult(name, null, `Module function ${name} is set to execute`);
  const kwarg: Record<string, unknown> = {};
  let arg: unknown[] = [];
  for (const [k, v] of Object.entries(extra)) {
    if (k === 'returner') continue;
    if (M_PREFIXED.has(k)) kwarg[k.slice(2)] = v;
    else if (k === 'args' && Array.isArray(v)) arg = v;
    else if (k === 'kwargs' && typeof v === 'object' && v !== null && !Array.isArray(v)) Object.assign(kwarg, v);
    else kwarg[k] = v;
  }
  const r = await ctx.call(name, arg, kwarg);
  if (r.error) return stateResult(name, false, `Module function ${name} threw an exception. Exception: ${r.error.message}`);
  const ok = r.return !== false && r.success;
  return stateResult(name, ok, `Module function ${name} executed`, r.return === null ? {} : { ret: r.return });
}

async function run(ctx: StateContext, name: string, extra: Record<string, unknown>): Promise<StateResult> {
  const keys = Object.keys(extra).filter((k) => !IGNORED.has(k));
  const legacy = keys.some((k) => !k.includes('.')) || keys.length === 0;
  if (legacy) return runLegacy(ctx, name, extra);
  return runNew(
    ctx,
    name,
    keys.map((k) => [k, extra[k]]),
  );
}

const NAME = [{ name: 'name', type: 'string', required: true, doc: 'the state ID (new syntax) or the function to call (legacy syntax)' }] as const;

export const moduleStates: readonly StateFunction[] = [
  defineState({
    name: 'module.run',
    doc: 'Call execution functions: each `mod.fun:` key with its arguments (or legacy `name: mod.fun`).',
    params: NAME,
    kwargs: true,
    example: 'refresh-and-greet:\n  module.run:\n    - saltutil.refresh_grains: []\n    - test.echo:\n      - hello\n    - test.arg:alias:\n      - one\n      - key: value',
    run: (ctx, a) => run(ctx, a.named.name, a.extra),
    modWatch: (ctx, a) => run(ctx, a.named.name, a.extra),
  }),
  defineState({
    name: 'module.wait',
    doc: 'Like module.run, but only when a watched state reports changes.',
    params: NAME,
    kwargs: true,
    example:
      '/etc/brine/grains:\n  file.managed:\n    - source: salt://brine/grains\n\nreload-grains:\n  module.wait:\n    - saltutil.refresh_grains: []\n    - watch:\n      - file: /etc/brine/grains',
    run: async (_ctx, a) => stateResult(a.named.name, true, ''),
    modWatch: (ctx, a) => run(ctx, a.named.name, a.extra),
  }),
];
