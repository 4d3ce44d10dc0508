// JS objects list integer-like keys ('80', '628') first, ascending; Python dicts keep insertion
// order. For the dicts brine builds itself with such keys (a dict display in a template, a
// mapping from import_yaml/load_yaml, keys added by update/setdefault), the insertion order is
// recorded here, so that iterating, printing and dumping them follow Python. Only dicts with an
// integer-like key are recorded and only they are looked up, so other dicts cost nothing. A dict
// changed some other way (a copy, a merge) no longer matches its record and is refused as before.

const order = new WeakMap<object, string[]>();

/** Keys JS lists first: array indices. */
export const ARRAY_INDEX = /^(0|[1-9]\d{0,9})$/;

export function isArrayIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) < 4294967295;
}

/** Records `keys` (the dict's own property names, in insertion order) when one is integer-like. */
export function recordKeyOrder(d: object, keys: readonly string[]): void {
  if (keys.some(isArrayIndex)) order.set(d, [...keys]);
}

/** `d[key]` is about to be added: keeps a recorded order, or starts one when the key needs it. */
export function noteKeyAdded(d: Record<string, unknown>, key: string): void {
  if (Object.hasOwn(d, key)) return;
  const known = order.get(d);
  if (known) known.push(key);
  // an unrecorded dict's own order is its insertion order only while it has no integer-like key
  else if (isArrayIndex(key) && !Object.keys(d).some(isArrayIndex)) order.set(d, [...Object.keys(d), key]);
}

/** `d.update(src)`: src's items added in src's order, which d's record follows. */
export function assignInOrder(d: Record<string, unknown>, src: Record<string, unknown>): void {
  const keys = Object.keys(src);
  const srcHasIndex = keys.some(isArrayIndex);
  if (!srcHasIndex && !order.has(d)) {
    Object.assign(d, src);
    return;
  }
  const srcOrder = srcHasIndex && keys.length > 1 ? recordedKeyOrder(src, keys) : keys;
  if (srcOrder === undefined) {
    // src's order is unknown, so d's is too: it is refused when iterated
    order.delete(d);
    Object.assign(d, src);
    return;
  }
  for (const k of srcOrder) {
    noteKeyAdded(d, k);
    d[k] = src[k];
  }
}

/** The dict's keys in insertion order, or undefined when no record matches its keys. */
export function recordedKeyOrder(d: Record<string, unknown>, keys: readonly string[]): string[] | undefined {
  const known = order.get(d);
  if (!known) return undefined;
  const present = known.filter((k) => Object.hasOwn(d, k));
  return present.length === keys.length ? present : undefined;
}
