// What Salt adds to a template: the `salt` function dictionary (`salt['mod.fun'](...)` and
// `salt.mod.fun(...)`), with `grains.get`, `pillar.get`, `config.get` and `grains.filter_by`
// answered from the render's own data like Salt's loader would, and everything else sent to the
// caller's `callFunction`. Values from grains or arguments are only ever data here (threats #37).

import { PYATTR, type PyObject, splitArgs } from './py-methods.js';
import { bindTemplateArgs, type LogLevel, TEMPLATE_FUNCTIONS } from '../salt-functions/index.js';
import { decodeKey, dictKeys, eq, isDict, isOrdered, markOrdered, plain, PyError, rawKey, truthy } from './py-values.js';

/** salt.utils.data.traverse_dict_and_list. */
export function traverse(data: unknown, key: unknown, dflt: unknown, delimiter = ':'): unknown {
  let ptr = data;
  const parts = typeof key === 'string' ? key.split(delimiter) : Array.isArray(key) ? key.map(String) : [String(key)];
  for (const each of parts) {
    if (Array.isArray(ptr)) {
      const idx = /^-?\d+$/.test(each) ? Number(each) : undefined;
      const embedded = ptr.filter(isDict).find((d) => Object.hasOwn(d, each));
      if (embedded) ptr = embedded[each];
      else if (idx !== undefined && (idx < 0 ? -idx <= ptr.length : idx < ptr.length)) ptr = ptr[idx < 0 ? ptr.length + idx : idx];
      else return dflt;
    } else if (isDict(ptr) && Object.hasOwn(ptr, each)) {
      ptr = ptr[each];
    } else {
      return dflt;
    }
  }
  return ptr;
}

/** salt.utils.dictupdate.update (recursive, lists replaced). */
export function dictUpdate(dest: Record<string, unknown>, upd: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(upd)) {
    const cur = dest[k];
    if (isDict(cur) && isDict(v)) dictUpdate(cur, v);
    else dest[k] = v;
  }
  return dest;
}

function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (isDict(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepCopy(x);
    // copy.deepcopy keeps an OrderedDict ordered
    return (isOrdered(v) ? markOrdered(out) : out) as T;
  }
  return v;
}

/** fnmatch.fnmatchcase. */
function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const j = pattern.indexOf(']', i + 2);
      if (j < 0) re += '\\[';
      else {
        let set = pattern.slice(i + 1, j).replace(/\\/g, '\\\\');
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        re += `[${set}]`;
        i = j;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(name);
}

function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  return String(v);
}

/** salt.utils.data.filter_by. */
export function filterBy(lookup: unknown, grainValue: unknown, merge: unknown, dflt: unknown, base: unknown): unknown {
  if (!isDict(lookup)) throw new PyError('filter_by lookup must be a dictionary');
  let ret: unknown = null;
  for (const each of Array.isArray(grainValue) ? grainValue : [grainValue]) {
    // Salt takes the first key that matches; where the key order is not Jinja2's (integer-like
    // keys such as osmajorrelease '10', '11') that only matters when two keys match
    // a key that is not a str is matched as str(key), as Salt does
    const matching = Object.keys(lookup).filter((key) => fnmatch(pyStr(each), pyStr(decodeKey(key))));
    if (matching.length > 1) dictKeys(lookup);
    if (matching.length > 0) ret = lookup[matching[0]!];
    if (ret !== null && ret !== undefined) break;
  }
  // lookup_dict.get(default): the key itself, so `default=3` finds the int key 3 only
  const dfltKey = rawKey(lookup, dflt);
  if (ret === null || ret === undefined) ret = dfltKey !== undefined ? lookup[dfltKey] : null;
  const baseKey = truthy(base) ? rawKey(lookup, base) : undefined;
  if (baseKey !== undefined) {
    const baseValues = lookup[baseKey];
    if (ret === null) ret = baseValues;
    else if (isDict(baseValues)) {
      if (!isDict(ret)) throw new PyError('filter_by default and look-up values must both be dictionaries.');
      ret = dictUpdate(deepCopy(baseValues), ret);
    }
  }
  // Salt tests `if merge:`, so an empty pillar.get default ('' or {}) merges nothing
  if (truthy(merge)) {
    if (!isDict(merge)) throw new PyError('filter_by merge argument must be a dictionary.');
    if (ret === null) ret = merge;
    else dictUpdate(ret as Record<string, unknown>, deepCopy(merge));
  }
  return ret;
}

export interface SaltData {
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
  opts: Record<string, unknown>;
  call(fun: string, args: unknown[], kwargs: Record<string, unknown>): unknown;
  /** Where log.* from the template goes (the minion's log); absent = nowhere. */
  log?: (level: LogLevel, message: string) => void;
}

type Local = (pos: unknown[], kw: Record<string, unknown>) => unknown;

function param(pos: unknown[], kw: Record<string, unknown>, i: number, name: string, dflt: unknown): unknown {
  if (pos.length > i) return pos[i];
  return Object.hasOwn(kw, name) ? kw[name] : dflt;
}

/** salt.modules.pillar.get: `a:b` traversal, and with merge=True a dict/list default merged with the value. */
function pillarGet(pillar: Record<string, unknown>, pos: unknown[], kw: Record<string, unknown>): unknown {
  const key = param(pos, kw, 0, 'key', '');
  const dflt = param(pos, kw, 1, 'default', '');
  const merge = truthy(param(pos, kw, 2, 'merge', false));
  const delimiter = String(param(pos, kw, 4, 'delimiter', ':'));
  if (merge && isDict(dflt)) {
    const ret = traverse(pillar, key, {}, delimiter);
    if (isDict(ret)) return dictUpdate(deepCopy(dflt), deepCopy(ret));
  } else if (merge && Array.isArray(dflt)) {
    const ret = traverse(pillar, key, [], delimiter);
    if (Array.isArray(ret)) {
      const out = deepCopy(dflt);
      for (const x of ret) if (!out.some((y) => eq(x, y))) out.push(x);
      return out;
    }
  }
  return traverse(pillar, key, dflt, delimiter);
}

function locals(d: SaltData): Record<string, Local> {
  // slsutil.*, defaults.*, log.*, file path helpers: run here, on the template's own objects
  // (defaults.merge merges in place, as formulas expect)
  const host = {
    grain: (key: unknown, dflt: unknown) => traverse(d.grains, key, dflt),
    grains: () => d.grains,
    opts: () => d.opts,
    pillar: () => d.pillar,
    ...(d.log ? { log: d.log } : {}),
  };
  const templateFunctions: Record<string, Local> = {};
  for (const [name, f] of TEMPLATE_FUNCTIONS) templateFunctions[name] = (pos, kw) => f.run(host, ...bindTemplateArgs(name, f, pos, kw));
  const get =
    (src: () => Record<string, unknown>): Local =>
    (pos, kw) =>
      traverse(src(), param(pos, kw, 0, 'key', ''), param(pos, kw, 1, 'default', ''), String(param(pos, kw, 2, 'delimiter', ':')));
  return {
    ...templateFunctions,
    'grains.get': get(() => d.grains),
    'pillar.get': (pos, kw) => pillarGet(d.pillar, pos, kw),
    'config.get': (pos, kw) => {
      const key = param(pos, kw, 0, 'key', '');
      const dflt = param(pos, kw, 1, 'default', '');
      const delimiter = String(param(pos, kw, 2, 'delimiter', ':'));
      for (const src of [d.opts, d.grains, d.pillar]) {
        const v = traverse(src, key, undefined, delimiter);
        if (v !== undefined) return v;
      }
      return dflt;
    },
    'grains.filter_by': (pos, kw) =>
      filterBy(
        param(pos, kw, 0, 'lookup_dict', undefined),
        traverse(d.grains, param(pos, kw, 1, 'grain', 'os_family'), []),
        param(pos, kw, 2, 'merge', null),
        param(pos, kw, 3, 'default', 'default'),
        param(pos, kw, 4, 'base', null),
      ),
  };
}

function fn(name: string, body: Local): (...args: unknown[]) => unknown {
  const f = (...args: unknown[]) => {
    const [pos, kw] = splitArgs(args);
    return body(pos, kw);
  };
  Object.defineProperty(f, 'name', { value: name });
  return f;
}

/**
 * What `salt['mod.fun'](...)` runs: the functions a template answers itself (grains.get,
 * pillar.get, slsutil.*...) here, everything else through `d.call`. The Python renderers
 * (src/render/python/) call back through this too, so they reach exactly what a template reaches.
 */
export function saltCaller(d: SaltData): (fun: string, pos: unknown[], kw: Record<string, unknown>) => unknown {
  const local = locals(d);
  return (fun, pos, kw) => {
    const l = local[fun];
    if (l) return l(pos, kw);
    return d.call(fun, plain(pos) as unknown[], plain(kw) as Record<string, unknown>);
  };
}

/** The `salt` variable. */
export function saltProxy(d: SaltData): PyObject {
  const call = saltCaller(d);
  const callable = (fun: string) => fn(fun, (pos, kw) => call(fun, pos, kw));
  return {
    [PYATTR](name: string): unknown {
      if (name.includes('.')) return callable(name);
      // salt.mod.fun and salt['mod'].fun: Salt's renderer adds a `lambda: None` per module whose
      // attributes are its functions (salt/renderers/jinja.py _split_module_dicts)
      return Object.assign(() => null, { [PYATTR]: (fun: string) => callable(`${name}.${fun}`) });
    },
  };
}
