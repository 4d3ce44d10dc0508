// `env.brine`: what compiled templates call for every operation, so that values behave as in
// Python Jinja2 (see py-values.ts). Also the Jinja2 globals brine provides (range, dict,
// namespace) and Salt's (raise).

import { type Filter, gen, isGenerator, JINJA_FILTERS } from './filters-jinja.js';
import { SALT_FILTERS } from './filters-salt.js';
import { getattr, PYATTR, type PyObject, slice, splitArgs } from './py-methods.js';
import { binop, concat, dict, unop, unpack } from './py-ops.js';
import {
  cmp,
  contains,
  dictEntries,
  eq,
  forgetUndefined,
  isDict,
  iter,
  keyFor,
  markOrdered,
  missingHint,
  noteUndefined,
  PLAIN_UNDEFINED,
  PyError,
  PyFloat,
  setStrictUndefined,
  str,
  truthy,
  tuple,
  typeName,
  undefinedError,
} from './py-values.js';
import { type Any, runtime } from './nunjucks-internals.js';
import { TESTS } from './tests.js';

export const FILTERS: Record<string, Filter> = { ...JINJA_FILTERS, ...SALT_FILTERS };
export const FILTER_NAMES: ReadonlySet<string> = new Set(Object.keys(FILTERS));
export const TEST_NAMES: ReadonlySet<string> = new Set(Object.keys(TESTS));

/** What the runtime needs from the render in progress. */
export interface RenderHooks {
  /** The variables every template of this render sees (Salt puts them in the template globals). */
  globals(): Record<string, unknown>;
  /** Renders another file of the environment and returns its text: with the given variables (`with context`) or the render's globals. */
  renderFile(name: string, variables: Record<string, unknown> | null): string;
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

/** What one `for` loop keeps across its iterations: the last `loop.changed()` value, its depth, itself when recursive. */
interface LoopState {
  recurse: ((items: unknown, depth: number) => string) | null;
  depth: number;
  lastChanged: unknown[] | undefined;
}

function loopState(recurse: LoopState['recurse'], depth: number): LoopState {
  return { recurse, depth, lastChanged: undefined };
}

/** Jinja2's LoopContext for item i; callable as `loop(children)` in a recursive loop. */
function loopObject(items: unknown[], i: number, state: LoopState): unknown {
  const n = items.length;
  const attrs: Record<string, unknown> = {
    index: i + 1,
    index0: i,
    revindex: n - i,
    revindex0: n - i - 1,
    first: i === 0,
    last: i === n - 1,
    length: n,
    depth: state.depth,
    depth0: state.depth - 1,
    previtem: i > 0 ? items[i - 1] : undefined,
    nextitem: i < n - 1 ? items[i + 1] : undefined,
    cycle: (...args: unknown[]) => {
      if (args.length === 0) throw new PyError('no items for cycling given');
      return args[i % args.length];
    },
    changed: (...args: unknown[]) => {
      const last = state.lastChanged;
      if (last !== undefined && last.length === args.length && last.every((v, k) => eq(v, args[k]))) return false;
      state.lastChanged = args;
      return true;
    },
  };
  const recurse = state.recurse;
  if (!recurse) return attrs;
  const call = (children: unknown) => new runtime.SafeString(recurse(children, state.depth + 1));
  return Object.assign(call, { [PYATTR]: (name: string) => (Object.hasOwn(attrs, name) ? attrs[name] : undefined) });
}

/** A macro that takes `varargs`/`kwargs`: extra positional and unknown keyword arguments go there. */
function variadic(fn: (...args: unknown[]) => unknown, params: string[], varargs: boolean, kwargs: boolean): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => {
    const [pos, kw] = splitArgs(args);
    const named: Record<string, unknown> = {};
    const unknown: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(kw)) {
      if (k === 'caller' || params.includes(k)) named[k] = v;
      else unknown[k] = v;
    }
    const extra = pos.slice(params.length);
    if (extra.length > 0 && !varargs) throw new PyError(`macro takes not more than ${params.length} argument(s)`);
    const unknownNames = Object.keys(unknown);
    if (unknownNames.length > 0 && !kwargs) throw new PyError(`macro takes no keyword argument '${unknownNames[0]}'`);
    if (varargs) named.varargs = tuple(extra);
    if (kwargs) named.kwargs = unknown;
    return fn(...pos.slice(0, params.length), runtime.makeKeywordArgs(named));
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
    // Salt's `odict` (collections.OrderedDict): pairs, a dict or keywords, in order
    odict: (...args: unknown[]) => {
      const [pos, kw] = splitArgs(args);
      const out: Record<string, unknown> = {};
      const src = pos[0];
      if (isDict(src)) for (const [k, v] of dictEntries(src)) out[keyFor(out, k)] = v;
      else if (src !== undefined && src !== null) {
        for (const pair of iter(src)) {
          const [k, v] = unpack(pair, 2);
          out[keyFor(out, k)] = v;
        }
      }
      for (const [k, v] of Object.entries(kw)) out[k] = v;
      return markOrdered(out);
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
    PLAIN_UNDEFINED,
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
      // a test handles an Undefined (`is defined`): a later error is not about this one
      if (v === undefined) forgetUndefined();
      return TESTS[name]!(v, ...args);
    },
    /** `obj.key`/`obj[key]`; `what` names obj, `expr` the whole expression, for Undefined's message. */
    getattr(obj: unknown, key: unknown, bracket: boolean, what: string, expr: string): unknown {
      if (isGenerator(obj)) throw new PyError("'generator' object is not subscriptable");
      // an attribute of an Undefined raises that Undefined's own message, as Jinja2's does
      if (obj === undefined) throw undefinedError(what);
      const v = getattr(obj, key, bracket, what);
      return v === undefined ? noteUndefined(missingHint(obj, key), expr) : v;
    },
    slice,
    includeFrame,
    lookup(context: { ctx: Record<string, unknown>; env: { globals: Record<string, unknown> } }, frame: { variables: Record<string, unknown>; parent?: unknown }, name: string): unknown {
      for (let f: typeof frame | undefined = frame; f; f = f.parent as typeof frame | undefined) {
        if (Object.hasOwn(f.variables, name) && f.variables[name] !== undefined) return f.variables[name];
      }
      if (Object.hasOwn(context.ctx, name)) return context.ctx[name];
      if (Object.hasOwn(context.env.globals, name)) return context.env.globals[name];
      return noteUndefined(`'${name}' is undefined`, name);
    },
    call(fn: unknown, what: string, args: unknown[]): unknown {
      if (fn === undefined) throw undefinedError(what);
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
      if (pos[0] === undefined && (name === 'default' || name === 'd')) forgetUndefined();
      return FILTERS[name]!(pos, kw);
    },
    /** `f(k=v, **mapping)`: the mapping's items join the keywords; a name given twice is Python's TypeError. */
    starKwargs(named: Record<string, unknown>, mapping: unknown): Record<string, unknown> {
      if (!isDict(mapping)) throw new PyError(`argument after ** must be a mapping, not ${typeName(mapping)}`);
      const out: Record<string, unknown> = { ...named };
      for (const [k, v] of Object.entries(mapping)) {
        if (Object.hasOwn(out, k)) throw new PyError(`got multiple values for keyword argument '${k}'`);
        out[k] = v;
      }
      return runtime.makeKeywordArgs(out);
    },
    dict,
    tuple,
    float: (n: number) => new PyFloat(n),
    iter(v: unknown): unknown[] {
      return iter(v);
    },
    unpack,
    selfRef(context: Any, frame: unknown, env: unknown, rt: unknown): PyObject {
      return {
        [PYATTR](name: string): unknown {
          if (!context.blocks || !Object.hasOwn(context.blocks, name)) return undefined;
          return () => {
            let out = '';
            // nunjucks calls a block's callback synchronously when nothing in it is async
            context.getBlock(name)(env, context, frame, rt, (err: unknown, res: string) => {
              if (err) throw err;
              out = res;
            });
            return new runtime.SafeString(out);
          };
        },
      };
    },
    loop: loopObject,
    loopState,
    variadic,
    setattr(ns: unknown, attr: string, v: unknown): void {
      if (!(ns instanceof Namespace)) throw new PyError('can only assign attributes to a namespace()');
      ns.attrs[attr] = v;
    },
    importContext(context: { getVariables(): Record<string, unknown> }, withContext: boolean): Record<string, unknown> {
      return withContext ? context.getVariables() : { ...hooks().globals() };
    },
    /** What `import ... with context` passes: the context's variables and the locals in scope. */
    contextVariables(context: { getVariables(): Record<string, unknown> }, frame: { variables: Record<string, unknown>; parent?: unknown; push(isolate?: boolean): unknown }): Record<string, unknown> {
      const locals = (includeFrame(frame) as { variables: Record<string, unknown> }).variables;
      return { ...context.getVariables(), ...locals };
    },
    loadData(kind: string, how: string, value: unknown, variables: Record<string, unknown> | null): unknown {
      const h = hooks();
      if (how === 'template') {
        const name = str(value);
        return h.parseData(kind, h.renderFile(name, variables), name);
      }
      return h.parseData(kind, str(value), '<load block>');
    },
  };
}

export type BrineRuntime = ReturnType<typeof createRuntime>;
