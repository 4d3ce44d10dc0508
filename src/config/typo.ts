// Typo detection for option names: a key one edit away from a known option is almost certainly a
// misspelling that Salt would have ignored silently (surprise 21), leaving the default in force.

import { knownOptionNames } from './schema.js';

/**
 * Damerau-Levenshtein distance in its optimal-string-alignment form: insertions, deletions,
 * substitutions and swaps of two adjacent characters each cost 1. (The restricted form only
 * differs from the full one for distances of 3 or more, which never matter here.)
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    const row = d[i] as number[];
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

// Very short names (`id`) are one edit away from too many unrelated keys (`ip`, `i`) to guess.
const MIN_SUGGESTABLE_LENGTH = 4;

/** The known option (of any role) that `key` is probably a typo of, or undefined. */
export function suggestOption(key: string): string | undefined {
  if (key.length < MIN_SUGGESTABLE_LENGTH - 1) return undefined;
  return knownOptionNames().find((name) => name.length >= MIN_SUGGESTABLE_LENGTH && Math.abs(name.length - key.length) <= 1 && editDistance(key, name) === 1);
}
