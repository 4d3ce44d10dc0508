// Salt's salt.utils.dictupdate as templates reach it (slsutil.update/merge, defaults.merge):
// `update` changes `dest` in place and returns it, which formulas rely on
// (`{% do salt['defaults.merge'](defaults, lookup) %}`), so these work on the template's own
// objects and never on copies.

import { eq, isDict, PyError } from '../jinja/py-values.js';

/** copy.deepcopy of template data (mappings, lists, scalars). */
export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (isDict(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: deepCopy(x), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return v;
}

/** salt.utils.dictupdate.update: recursive into mappings; lists replaced, or with mergeLists extended without duplicates. */
export function update(dest: unknown, upd: unknown, recursiveUpdate = true, mergeLists = false): Record<string, unknown> {
  if (!isDict(dest) || !isDict(upd)) throw new PyError('TypeError: Cannot update using non-dict types in dictupdate.update()');
  const updKeys = Object.keys(upd);
  // Salt skips the recursion when the two share no key (same result, fewer copies)
  const recursive = recursiveUpdate && updKeys.some((k) => Object.hasOwn(dest, k));
  for (const key of updKeys) {
    const val = upd[key];
    const cur = recursive && Object.hasOwn(dest, key) ? dest[key] : undefined;
    let next: unknown = val;
    if (isDict(cur) && isDict(val)) next = update(cur, val, true, mergeLists);
    else if (Array.isArray(cur) && Array.isArray(val) && mergeLists) {
      const merged = deepCopy(cur);
      for (const x of val) if (!merged.some((y) => eq(x, y))) merged.push(x);
      next = merged;
    }
    Object.defineProperty(dest, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return dest;
}

/** salt.utils.dictupdate.merge_list: keys of both become [a, b]. */
function mergeList(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const ret: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) ret[k] = Object.hasOwn(b, k) ? [v, b[k]] : v;
  return ret;
}

/**
 * salt.utils.dictupdate.merge: `smart` is `recurse` unless the renderer is yamlex (which brine
 * has not: its `aggregate` is `recurse` here too); an unknown strategy falls back to recurse, as
 * in Salt (which logs a warning).
 */
export function merge(a: unknown, b: unknown, strategy = 'smart', renderer = 'yaml', mergeLists = false): unknown {
  let s = strategy;
  if (s === 'smart') s = renderer.split('|').pop() === 'yamlex' || renderer.startsWith('yamlex_') ? 'aggregate' : 'recurse';
  if (s === 'list') {
    if (!isDict(a) || !isDict(b)) throw new PyError("AttributeError: 'list' merge needs two dictionaries");
    return mergeList(a, b);
  }
  if (s === 'overwrite') {
    // Salt's merge_overwrite first writes b's top-level keys into a (in place), then recurses
    if (isDict(a) && isDict(b)) for (const k of Object.keys(b)) if (Object.hasOwn(a, k)) a[k] = b[k];
    return update(deepCopy(a), b, true, mergeLists);
  }
  return update(deepCopy(a), b, true, s === 'recurse' ? mergeLists : false);
}
