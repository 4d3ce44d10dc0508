// Targets that look only at minion IDs: glob (fnmatch), pcre (Python re.match) and list.

import { BrineError } from '../util/errors.js';
import { globToRegExp } from './glob.js';
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

export const globMatcher: TargetMatcher = {
  type: 'glob',
  expected(tgt, fleet) {
    const re = globToRegExp(requireString(tgt, 'glob'));
    return { matched: uniq(fleet.ids.filter((id) => re.test(id))), missing: [] };
  },
  matchesSelf(tgt, self) {
    return globToRegExp(requireString(tgt, 'glob')).test(self.id);
  },
};

/**
 * Salt uses Python's re.match: anchored at the start only. The sticky flag gives exactly that
 * without wrapping the expression, so an unbalanced `)` cannot change what the user wrote.
 */
export function compilePcre(expr: string, flag = '-E'): RegExp {
  try {
    return new RegExp(expr, 'y');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new BrineError('TARGET_INVALID', `the ${flag} target ${JSON.stringify(expr)} is not a valid regular expression: ${reason}`, { cause: err });
  }
}

export function pcreTest(re: RegExp, id: string): boolean {
  re.lastIndex = 0;
  return re.test(id);
}

export const pcreMatcher: TargetMatcher = {
  type: 'pcre',
  expected(tgt, fleet) {
    const re = compilePcre(requireString(tgt, 'pcre'));
    return { matched: uniq(fleet.ids.filter((id) => pcreTest(re, id))), missing: [] };
  },
  matchesSelf(tgt, self) {
    return pcreTest(compilePcre(requireString(tgt, 'pcre')), self.id);
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
