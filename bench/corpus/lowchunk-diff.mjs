// Compares two lists of low chunks (Salt's and brine's) the way a reader would: chunk order
// counts, key order inside a chunk does not (Salt's JSON output sorts nothing either way).

/** Order-insensitive for object keys, order-sensitive for arrays. */
export function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
}

const short = (v) => {
  const s = v === undefined ? '(absent)' : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

/**
 * The first difference between `salt` and `brine` chunk lists, or undefined when equal:
 * { index, id, key, salt, brine } (key '(count)' when one list is longer).
 */
export function firstDifference(salt, brine) {
  const n = Math.min(salt.length, brine.length);
  for (let i = 0; i < n; i++) {
    const s = salt[i];
    const b = brine[i];
    if (sameValue(s, b)) continue;
    const keys = [...new Set([...Object.keys(s), ...Object.keys(b)])];
    // identity keys first so a reordered list reads as such, then the rest in Salt's order
    const ordered = [...['__id__', 'state', 'fun', 'name'].filter((k) => keys.includes(k)), ...keys];
    const key = ordered.find((k) => !sameValue(s[k], b[k]));
    return { index: i, id: s.__id__ ?? b.__id__, key, salt: short(s[key]), brine: short(b[key]) };
  }
  if (salt.length !== brine.length) {
    const extra = salt.length > brine.length ? salt[n] : brine[n];
    return { index: n, id: extra?.__id__, key: '(count)', salt: String(salt.length), brine: String(brine.length) };
  }
  return undefined;
}

/** Replaces every occurrence of the given paths (temp dirs) by a placeholder, in a JSON-able value. */
export function normalisePaths(value, paths) {
  let text = JSON.stringify(value);
  for (const [p, name] of paths) text = text.split(JSON.stringify(p).slice(1, -1)).join(name);
  return JSON.parse(text);
}

/** Grains that differ: { missing: [salt keys brine lacks], extra: [brine keys Salt lacks], differ: [{key, salt, brine}] }. */
export function grainDifferences(salt, brine) {
  const missing = Object.keys(salt)
    .filter((k) => !Object.hasOwn(brine, k))
    .sort();
  const extra = Object.keys(brine)
    .filter((k) => !Object.hasOwn(salt, k))
    .sort();
  const differ = Object.keys(salt)
    .filter((k) => Object.hasOwn(brine, k) && !sameValue(salt[k], brine[k]))
    .sort()
    .map((key) => ({ key, salt: short(salt[key]), brine: short(brine[key]) }));
  return { missing, extra, differ };
}
