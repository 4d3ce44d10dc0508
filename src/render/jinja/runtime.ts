// `env.brine`: what compiled templates call for every operation, so that values behave as in
// Python Jinja2 (see py-values.ts). Also the Jinja2 globals brine provides (range, dict,
// namespace) and Salt's (raise).

import { type Filter, gen, isGenerator, JINJA_FILTERS } from './filters-jinja.js';
import { SALT_FILTERS } from './filters-salt.js';
import { getattr, PYATTR, type PyObject, slice, splitArgs } from './py-methods.js';
import { binop, concat, dict, unop, unpack } from './py-ops.js';
import { cmp, contains, eq, iter, PyError, PyFloat, setStrictUndefined, str, truthy, tuple, typeName, undefinedError } from './py-values.js';
import { runtime } from './nunjucks-internals.js';
import { TESTS } from './tests.js';

export const FILTERS: Record<string, Filter> = { ...JINJA_FILTERS, ...SALT_FILTERS };
export const FILTER_NAMES: ReadonlySet<string> = new Set(Object.keys(FILTERS));
export const TEST_NAMES: ReadonlySet<string> = new Set(Object.keys(TESTS));

/** What the runtime needs from the render in progress. */
export interface RenderHooks {
  /** The variables every template of this render sees (Salt puts them in the template globals). */
  globals(): Record<string, unknown>;
  /** Renders another file of the environment as an import without context and returns its text. */
  renderFile(name: string): string;
  /** Keeps the first error a called function raised, which nunjucks' error wrapping would lose. */
  noteCallError(err: unknown): void;
  /** Parses data for import_yaml/load_yaml. */
  parseData(kind: string, text: string, name: string): unknown;
}

class Namespace implements PyObject {
  constructor(readonly attrs: Record<string, unknown>) {}
  [PYATTR](name: string): unknown {
    return Object.hasOwn(this.attrs, name) ? this.attrs[name] : undefined;
  }
}

function loopObject(items: unknown[], i: number): Record<string, unknown> {
  const n = items.length;
  return {
    index: i + 1,
    index0: i,
    revindex: n - i,
    revindex0: n - i - 1,
    first: i === 0,
    last: i === n - 1,
    length: n,
    depth: 1,
    depth0: 0,
    previtem: i > 0 ? items[i - 1] : undefined,
    nextitem: i < n - 1 ? items[i + 1] : undefined,
    cycle: (...args: unknown[]) => {
      if (args.length === 0) throw new PyError('no items for cycling given');
      return args[i % args.length];
    },
  };
}

function range(...args: unknown[]): unknown[] {
  const nums = args.map((a) => {
    if (typeof a !== 'number' || !Number.isInteger(a)) throw new PyError(`'${typeName(a)}' object cannot be interpreted as an integer`);
    return a;
  });
  const [start, stop, step] = nums.length === 1 ? [0, nums[0]!, 1] : [nums[0]!, nums[1]!, nums[2] ?? 1];
  if (step === 0) throw new PyError('range() arg 3 must not be zero');
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push(i);
    if (out.length > 100000) throw new PyError('range too big');
  }
  return gen(out);
}

export function jinjaGlobals(): Record<string, unknown> {
  return {
    range,
    dict: (...args: unknown[]) => {
      const [pos, kw] = splitArgs(args);
      const out: Record<string, unknown> = {};
      if (pos[0] !== undefined) Object.assign(out, pos[0]);
      return Object.assign(out, kw);
    },
    namespace: (...args: unknown[]) => {
      const [pos, kw] = splitArgs(args);
      return new Namespace(Object.assign({}, pos[0] ?? {}, kw));
    },
    raise: (msg: unknown) => {
      throw new PyError(`TemplateError: ${str(msg)}`);
    },
  };
}

/** Jinja2 refuses extra positional and unknown keyword arguments to a macro. */
function checkMacroArgs(what: string, params: string[], args: unknown[]): void {
  const [pos, kw] = splitArgs(args);
  if (pos.length > params.length) throw new PyError(`macro '${what}' takes not more than ${params.length} argument(s)`);
  for (const k of Object.keys(kw)) {
    if (k !== 'caller' && !params.includes(k)) throw new PyError(`macro '${what}' takes no keyword argument '${k}'`);
  }
}

/** A copy of the visible variables without the including loop's `loop` (Jinja2 does not pass it to includes). */
function includeFrame(frame: { variables: Record<string, unknown>; parent?: unknown; push(isolate?: boolean): unknown }): unknown {
  const vars: Record<string, unknown> = {};
  const chain: { variables: Record<string, unknown>; parent?: unknown }[] = [];
  for (let f: { variables: Record<string, unknown>; parent?: unknown } | undefined = frame; f; f = f.parent as typeof f) chain.unshift(f);
  for (const f of chain) Object.assign(vars, f.variables);
  delete vars.loop;
  const top = new runtime.Frame();
  top.variables = vars;
  return top;
}

/** Under StrictUndefined, fails naming the expression; otherwise stays undefined. */
function undefinedOr(what: string): undefined {
  const strict = setStrictUndefined(true);
  setStrictUndefined(strict);
  if (strict) throw undefinedError(what);
  return undefined;
}

export function createRuntime(hooks: () => RenderHooks) {
  return {
    PyFloat,
    out(v: unknown, what?: string): string {
      if (v === undefined && what !== undefined) return str(v === undefined ? undefinedOr(what) : v);
      if (isGenerator(v)) throw new PyError('printing a generator (the result of map/select/reverse/range...) shows a Python object address; add |list or |join');
      if (typeof v === 'function') throw new PyError('printing a function or macro object is not supported; call it');
      return str(v);
    },
    truthy(v: unknown, what?: string): boolean {
      if (v === undefined && what !== undefined) return truthy(undefinedOr(what));
      return isGenerator(v) ? true : truthy(v);
    },
    or: (a: unknown, b: () => unknown) => (truthy(a) ? a : b()),
    and: (a: unknown, b: () => unknown) => (truthy(a) ? b() : a),
    binop,
    unop,
    concat,
    contains,
    compare(first: unknown, ...rest: unknown[]): boolean {
      let left = first;
      for (let i = 0; i < rest.length; i += 2) {
        const op = rest[i] as string;
        const right = (rest[i + 1] as () => unknown)();
        let ok: boolean;
        if (op === '==') ok = eq(left, right);
        else if (op === '!=') ok = !eq(left, right);
        else {
          const c = cmp(left, right);
          ok = op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0;
        }
        if (!ok) return false;
        left = right;
      }
      return true;
    },
    test(name: string, v: unknown, ...args: unknown[]): boolean {
      return TESTS[name]!(v, ...args);
    },
    getattr(obj: unknown, key: unknown, bracket: boolean, what: string): unknown {
      if (isGenerator(obj)) throw new PyError("'generator' object is not subscriptable");
      return getattr(obj, key, bracket, what);
    },
    slice,
    includeFrame,
    lookup(context: { ctx: Record<string, unknown>; env: { globals: Record<string, unknown> } }, frame: { variables: Record<string, unknown>; parent?: unknown }, name: string): unknown {
      for (let f: typeof frame | undefined = frame; f; f = f.parent as typeof frame | undefined) {
        if (Object.hasOwn(f.variables, name) && f.variables[name] !== undefined) return f.variables[name];
      }
      if (Object.hasOwn(context.ctx, name)) return context.ctx[name];
      return Object.hasOwn(context.env.globals, name) ? context.env.globals[name] : undefined;
    },
    call(fn: unknown, what: string, args: unknown[]): unknown {
      if (fn === undefined) throw new PyError(`'${what}' is undefined`);
      if (typeof fn !== 'function') throw new PyError(`'${typeName(fn)}' object is not callable`);
      const params = (fn as { brineParams?: string[] }).brineParams;
      if (params) checkMacroArgs(what, params, args);
      try {
        return fn(...args);
      } catch (err) {
        if (!(err instanceof PyError)) hooks().noteCallError(err);
        throw err;
      }
    },
    filter(name: string, args: unknown[]): unknown {
      const [pos, kw] = splitArgs(args);
      return FILTERS[name]!(pos, kw);
    },
    dict,
    tuple,
    float: (n: number) => new PyFloat(n),
    iter(v: unknown): unknown[] {
      return iter(v);
    },
    unpack,
    loop: loopObject,
    setattr(ns: unknown, attr: string, v: unknown): void {
      if (!(ns instanceof Namespace)) throw new PyError('can only assign attributes to a namespace()');
      ns.attrs[attr] = v;
    },
    importContext(context: { getVariables(): Record<string, unknown> }, withContext: boolean): Record<string, unknown> {
      return withContext ? context.getVariables() : { ...hooks().globals() };
    },
    importError(name: string, lineno: number, colno: number): Error {
      return Object.assign(new PyError(`cannot import name '${name}'`), { lineno: lineno + 1, colno: colno + 1 });
    },
    loadData(kind: string, how: string, value: unknown): unknown {
      const h = hooks();
      if (how === 'template') {
        const name = str(value);
        return h.parseData(kind, h.renderFile(name), name);
      }
      return h.parseData(kind, str(value), '<load block>');
    },
  };
}

export type BrineRuntime = ReturnType<typeof createRuntime>;
