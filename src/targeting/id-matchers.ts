// Targets that look only at minion IDs: glob (fnmatch), pcre (Python re.match) and list.

import { BrineError } from '../util/errors.js';
import { compileLinearGlob, compileLinearRegex, type LinearRegex } from './linear-regex.js';
import type { Target, TargetMatcher } from './types.js';

export function requireString(tgt: Target, type: string): string {
  if (typeof tgt !== 'string') {
    throw new BrineError('TARGET_INVALID', `a ${type} target must be one expression, not a list; use -L for a list of IDs`);
  }
  return tgt;
}

export function uniq(items: Iterable<string>): string[] {
  return [...new Set(items)];
}

/** A glob target on the linear engine: `*a*a*a*b` would backtrack for seconds in V8's RegExp. */
export function compileGlobTarget(expr: string, flag = 'glob'): LinearRegex {
  const c = compileLinearGlob(expr);
  if (!c.ok) throw new BrineError('TARGET_INVALID', `the ${flag} target ${JSON.stringify(expr)} cannot be matched: ${c.problem}`);
  return c.re;
}

export const globMatcher: TargetMatcher = {
  type: 'glob',
  expected(tgt, fleet) {
    const re = compileGlobTarget(requireString(tgt, 'glob'));
    return { matched: uniq(fleet.ids.filter((id) => re.matches(id))), missing: [] };
  },
  matchesSelf(tgt, self) {
    return compileGlobTarget(requireString(tgt, 'glob')).matches(self.id);
  },
};

/** Salt uses Python's re.match: anchored at the start only. Linear-time, see linear-regex.ts. */
export function compilePcre(expr: string, flag = '-E'): LinearRegex {
  const c = compileLinearRegex(expr);
  if (!c.ok) throw new BrineError('TARGET_INVALID', `the ${flag} target ${JSON.stringify(expr)} is not a valid regular expression: ${c.problem}`);
  return c.re;
}

export const pcreMatcher: TargetMatcher = {
  type: 'pcre',
  expected(tgt, fleet) {
    const re = compilePcre(requireString(tgt, 'pcre'));
    return { matched: uniq(fleet.ids.filter((id) => re.matches(id))), missing: [] };
  },
  matchesSelf(tgt, self) {
    return compilePcre(requireString(tgt, 'pcre')).matches(self.id);
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

export const listMatcher: TargetMatcher = {
  type: 'list',
  expected(tgt, fleet) {
    const known = new Set(fleet.ids);
    const entries = listEntries(tgt);
    return { matched: entries.filter((e) => known.has(e)), missing: entries.filter((e) => !known.has(e)) };
  },
  matchesSelf(tgt, self) {
    return listEntries(tgt).includes(self.id);
  },
};
