// Target matchers (Salt's CkMinions for the master, and the minion's own re-check), one per
// target type, found through a Map so grain/compound/nodegroup matchers can be added later.

import { BrineError } from '../util/errors.js';
import { globToRegExp } from './glob.js';

export type TargetType = 'glob' | 'pcre' | 'list';
export type Target = string | readonly string[];

export interface TargetResult {
  /** Candidate IDs the target selects (expected minions). */
  matched: string[];
  /** List entries that name no known ID (Salt reports them as not returning). */
  missing: string[];
}

export interface TargetMatcher {
  readonly type: string;
  /** Master side: which of `ids` (the accepted keys) the target selects. */
  expected(tgt: Target, ids: readonly string[]): TargetResult;
  /** Minion side: does the target select this one ID. */
  matchesId(tgt: Target, id: string): boolean;
}

function requireString(tgt: Target, type: string): string {
  if (typeof tgt !== 'string') {
    throw new BrineError('TARGET_INVALID', `a ${type} target must be one expression, not a list; use -L for a list of IDs`);
  }
  return tgt;
}

function uniq(items: Iterable<string>): string[] {
  return [...new Set(items)];
}

const globMatcher: TargetMatcher = {
  type: 'glob',
  expected(tgt, ids) {
    const re = globToRegExp(requireString(tgt, 'glob'));
    return { matched: uniq(ids.filter((id) => re.test(id))), missing: [] };
  },
  matchesId(tgt, id) {
    return globToRegExp(requireString(tgt, 'glob')).test(id);
  },
};

/**
 * Salt uses Python's re.match: anchored at the start only. The sticky flag gives exactly that
 * without wrapping the expression, so an unbalanced `)` cannot change what the user wrote.
 */
function compilePcre(tgt: Target): RegExp {
  const expr = requireString(tgt, 'pcre');
  try {
    return new RegExp(expr, 'y');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new BrineError('TARGET_INVALID', `the -E target ${JSON.stringify(expr)} is not a valid regular expression: ${reason}`, { cause: err });
  }
}

function pcreTest(re: RegExp, id: string): boolean {
  re.lastIndex = 0;
  return re.test(id);
}

const pcreMatcher: TargetMatcher = {
  type: 'pcre',
  expected(tgt, ids) {
    const re = compilePcre(tgt);
    return { matched: uniq(ids.filter((id) => pcreTest(re, id))), missing: [] };
  },
  matchesId(tgt, id) {
    return pcreTest(compilePcre(tgt), id);
  },
};

/**
 * A list target is a comma-separated string or an array. Entries are trimmed (an ID cannot
 * contain spaces, so `-L 'a, b'` means a and b; Salt would look for " b") and empty ones dropped.
 */
export function listEntries(tgt: Target): string[] {
  const raw = typeof tgt === 'string' ? tgt.split(',') : [...tgt];
  return uniq(raw.map((e) => (typeof e === 'string' ? e.trim() : '')).filter((e) => e !== ''));
}

const listMatcher: TargetMatcher = {
  type: 'list',
  expected(tgt, ids) {
    const known = new Set(ids);
    const entries = listEntries(tgt);
    return { matched: entries.filter((e) => known.has(e)), missing: entries.filter((e) => !known.has(e)) };
  },
  matchesId(tgt, id) {
    return listEntries(tgt).includes(id);
  },
};

const MATCHERS: ReadonlyMap<string, TargetMatcher> = new Map([globMatcher, pcreMatcher, listMatcher].map((m) => [m.type, m]));

/** The matcher for a target type; TARGET_INVALID for a type brine does not (yet) support. */
export function matcherFor(tgtType: string): TargetMatcher {
  const m = MATCHERS.get(tgtType);
  if (!m) {
    throw new BrineError('TARGET_INVALID', `target type ${JSON.stringify(tgtType)} is not supported; use one of ${[...MATCHERS.keys()].join(', ')}`);
  }
  return m;
}

export function supportedTargetTypes(): string[] {
  return [...MATCHERS.keys()];
}

/** Expected minions for a target among `ids` (Salt's check_minions for glob, pcre and list). */
export function matchTarget(tgt: Target, tgtType: TargetType, ids: readonly string[]): TargetResult {
  return matcherFor(tgtType).expected(tgt, ids);
}

/**
 * A minion's check that a publish is meant for it. Throws TARGET_INVALID for an expression that
 * cannot be evaluated (the caller drops the job and logs it).
 */
export function minionMatches(tgt: Target, tgtType: TargetType, id: string): boolean {
  return matcherFor(tgtType).matchesId(tgt, id);
}
