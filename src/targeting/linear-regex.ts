// Target patterns come from API users, publisher_acl users and minions (mine.get), and are
// matched on the master's one event loop. A backtracking engine (V8's RegExp) can spend minutes on
// one pattern (threats.md #44), so every target regex and glob runs on RE2JS, a maintained
// JavaScript port of RE2 whose matching time grows linearly with the text. Decision and
// measurements: docs/targeting.md, "Regular expressions: linear time".

import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { globToRegExpSource, RE2_GLOB } from '../util/glob.js';
import { patternWeight } from './pattern-weight.js';
import { errorMessage } from '../util/errors.js';

// re2js is loaded on the first pattern compiled, not at import: it is 1.5 MiB of heap (its
// Unicode tables) that an idle minion never uses (bench/README.md, issue 27, "minion at 45 MiB").
// Its CommonJS build, so the first use stays synchronous; nothing else imports the package, so
// its exception classes are this copy's.
type Re2 = typeof import('re2js');
let re2: Re2 | undefined;
function engine(): Re2 {
  re2 ??= createRequire(import.meta.url)('re2js') as Re2;
  return re2;
}

/**
 * RE2's time is linear in the text but also in the compiled program, which `{n}` counts multiply
 * (`(.*a){1000}X` is 5,000 instructions, seconds on a 50 kB value). 1,000 instructions keeps
 * the worst pattern in tens of milliseconds per value while `[0-9a-f]{40}` (42) or an alternation
 * of 2,000 minion IDs (623) fits easily.
 */
export const MAX_PROGRAM_SIZE = 1000;

/**
 * Compiling costs time in proportion to the program (about 20 µs an instruction measured), so a
 * pattern whose text promises a huge program is refused before RE2 builds it: see
 * pattern-weight.ts. 2,000 keeps the worst compile near 0.1 s and lets through any pattern short
 * enough to type (an alternation of 200 minion IDs weighs about 1,200).
 */
export const MAX_PATTERN_WEIGHT = 2000;

/** A compiled target pattern. `matches` is Python's re.match: anchored at the start only. */
export interface LinearRegex {
  matches(text: string): boolean;
}

export type LinearCompile = { ok: true; re: LinearRegex } | { ok: false; problem: string };

// What a backtracking-only construct looks like in the pattern text, to explain a refusal.
const BACKTRACKING_ONLY: ReadonlyArray<readonly [RegExp, string]> = [
  [/\(\?<?[=!]/, 'lookahead or lookbehind ((?=, (?!, (?<=, (?<!)'],
  [/\\[1-9]|\\k<|\(\?P=/, 'a backreference (\\1, \\k<name>, (?P=name))'],
  [/\\Z/, "Python's \\Z (write \\z)"],
];

function why(pattern: string, err: unknown): string {
  for (const [shape, what] of BACKTRACKING_ONLY) {
    if (shape.test(pattern)) {
      return `it uses ${what}, which brine does not support in targets: target patterns run on a linear-time engine (RE2 syntax) so that no pattern can stall the master; rewrite it without (for example, list the alternatives with |)`;
    }
  }
  // the syntax error's own description: the message would show the engine's (?i) prefix
  const reason = err instanceof engine().RE2JSSyntaxException ? `${err.getDescription()}` : errorMessage(err);
  return `${reason} (target patterns use RE2 syntax, close to Python's re; see docs/targeting.md)`;
}

function compileRe2(source: string, ignoreCase: boolean): RE2JS {
  const weight = patternWeight(source);
  if (weight > MAX_PATTERN_WEIGHT)
    throw new TooLarge(
      `it is too large: its characters, groups and {n} repeats weigh ${weight}, over the limit of ${MAX_PATTERN_WEIGHT}; use smaller {n} counts or a shorter pattern (a list of IDs is -L)`,
    );
  const { RE2JS: Re } = engine();
  const re = Re.compile(source, ignoreCase ? Re.CASE_INSENSITIVE : 0);
  if (re.programSize() > MAX_PROGRAM_SIZE) {
    throw new TooLarge(`it compiles to ${re.programSize()} instructions, over the limit of ${MAX_PROGRAM_SIZE}; use smaller {n} counts or a shorter pattern`);
  }
  return re;
}

/** A pattern refused for its size, before or after compiling; the message says which limit. */
class TooLarge extends Error {}

/**
 * Compiles a regular expression for re.match. The pattern is first compiled on its own, so an
 * unbalanced `)` is refused rather than closing the `(?:...)` wrapped around it; the wrapped
 * form runs without capture groups, which lets RE2 use its DFA.
 */
export function compileLinearRegex(pattern: string, ignoreCase = false): LinearCompile {
  try {
    compileRe2(pattern, ignoreCase);
    const re = compileRe2(`^(?:${pattern})`, ignoreCase);
    return { ok: true, re: { matches: (text) => re.test(text) } };
  } catch (err) {
    if (err instanceof TooLarge) return { ok: false, problem: err.message };
    if (err instanceof engine().RE2JSException) return { ok: false, problem: why(pattern, err) };
    throw err;
  }
}

/** The longest literal `literalGlob` takes: far inside both size limits, so never refused. */
const LITERAL_GLOB_MAX = 256;

/**
 * The commonest globs, `*`, `web*` and an exact ID, as a prefix or equality test: text with no
 * `?` or `[` and no `*` except a trailing run matches exactly what the compiled pattern matches
 * (fnmatch's `*` is any text, newlines included; case-sensitive; no escapes). The master then
 * neither loads re2js nor compiles in the turn of a publish to `web*` (bench/README.md, stall2).
 * Lone surrogates are left to the engine, which reads code points.
 */
function literalGlob(pattern: string): LinearRegex | undefined {
  let end = pattern.length;
  while (end > 0 && pattern.charCodeAt(end - 1) === 42) end--; // trailing `*`
  if (end > LITERAL_GLOB_MAX) return undefined;
  const literal = pattern.slice(0, end);
  if (literal.includes('*') || literal.includes('?') || literal.includes('[') || /[\uD800-\uDFFF]/.test(literal)) return undefined;
  return end < pattern.length ? { matches: (text) => text.startsWith(literal) } : { matches: (text) => text === literal };
}

/** An fnmatch glob (whole text, case-sensitive) on the linear engine. */
export function compileLinearGlob(pattern: string): LinearCompile {
  const literal = literalGlob(pattern);
  if (literal) return { ok: true, re: literal };
  try {
    const re = compileRe2(globToRegExpSource(pattern, RE2_GLOB), false);
    return { ok: true, re: { matches: (text) => re.test(text) } };
  } catch (err) {
    if (err instanceof TooLarge) return { ok: false, problem: err.message };
    throw err;
  }
}
