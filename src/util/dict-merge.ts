// How pillar data is merged (Salt's salt.utils.dictupdate.merge, as the pillar compiler calls
// it with pillar_source_merging_strategy and pillar_merge_lists). Pure: returns a new value and
// never changes its inputs, so a cached pillar cannot be altered by a later merge.

import { BrineError } from './errors.js';

export const MERGE_STRATEGIES = ['smart', 'recurse', 'aggregate', 'overwrite', 'none'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

export type PillarData = Record<string, unknown>;

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A deep copy of plain data (mappings, lists, scalars). */
export function copyData<T>(v: T): T {
  if (Array.isArray(v)) return v.map(copyData) as T;
  if (isMapping(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) defineKey(out, k, copyData(x));
    return out as T;
  }
  return v;
}

// a key called __proto__ stays an own, plain key
function defineKey(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Structural equality of plain data (Python's == on the values a pillar holds). */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameData(x, b[i]));
  if (isMapping(a) && isMapping(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameData(a[k], b[k]));
  }
  return false;
}

/** salt.utils.dictupdate.update on a copy: mappings merge recursively; lists replace, or with mergeLists extend without duplicates. */
export function mergeRecurse(a: PillarData, b: PillarData, mergeLists = false): PillarData {
  const out = copyData(a);
  for (const [k, v] of Object.entries(b)) {
    const cur = Object.hasOwn(out, k) ? out[k] : undefined;
    if (isMapping(cur) && isMapping(v)) defineKey(out, k, mergeRecurse(cur, v, mergeLists));
    else if (mergeLists && Array.isArray(cur) && Array.isArray(v)) defineKey(out, k, [...cur, ...copyData(v).filter((x) => !cur.some((y) => sameData(x, y)))]);
    else defineKey(out, k, copyData(v));
  }
  return out;
}

/** salt.utils.dictupdate.merge_overwrite: a top-level key of `b` replaces the whole value in `a`. */
export function mergeOverwrite(a: PillarData, b: PillarData): PillarData {
  const out = copyData(a);
  for (const [k, v] of Object.entries(b)) defineKey(out, k, copyData(v));
  return out;
}

/**
 * Refuses a strategy brine does not implement, at start-up, with the fix. `aggregate` needs
 * Salt's yamlex renderer (its !aggregate tags), which brine does not have.
 */
export function checkMergeStrategy(strategy: string): MergeStrategy {
  if (strategy === 'aggregate') {
    throw new BrineError('CONFIG_VALUE', "pillar_source_merging_strategy 'aggregate' needs Salt's yamlex renderer (!aggregate tags), which brine does not have: use smart, recurse, overwrite or none");
  }
  if (!(MERGE_STRATEGIES as readonly string[]).includes(strategy)) {
    throw new BrineError('CONFIG_VALUE', `pillar_source_merging_strategy ${JSON.stringify(strategy)} is not one of ${MERGE_STRATEGIES.join(', ')}`);
  }
  return strategy as MergeStrategy;
}

/**
 * salt.utils.dictupdate.merge for the yaml renderer: smart = recurse (the renderer is not
 * yamlex), none = recurse (Salt's `none` only stops ext_pillar merging, which brine has not).
 */
export function mergePillar(a: PillarData, b: PillarData, strategy: MergeStrategy, mergeLists: boolean): PillarData {
  switch (strategy) {
    case 'overwrite':
      // Salt's merge_overwrite replaces the top-level keys, then recurses with the lists option
      return mergeRecurse(mergeOverwrite(a, b), b, mergeLists);
    case 'none':
      return mergeRecurse(a, b);
    case 'smart':
    case 'recurse':
      return mergeRecurse(a, b, mergeLists);
    case 'aggregate':
      checkMergeStrategy(strategy);
      return mergeRecurse(a, b, mergeLists);
  }
}
