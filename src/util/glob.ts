// Shell-style globs with Python fnmatch semantics (Salt's glob targeting, salt-key globs,
// autosign files, sys.list_functions): `*`, `?`, `[seq]`, `[!seq]`, case-sensitive, whole name.

/**
 * The regex syntax a glob is written in: JavaScript's (flags `su`) or RE2's, which targeting
 * matches with a linear-time engine. Every pattern character is written as a code-point escape
 * so nothing in the pattern can be regex syntax.
 */
export interface GlobDialect {
  lit(ch: string): string;
  /** any one character, newlines included */
  any: string;
  /** a set that matches nothing (Python's empty `[]` set) */
  none: string;
}

const hex = (ch: string): string => ch.codePointAt(0)!.toString(16);

export const JS_GLOB: GlobDialect = { lit: (ch) => `\\u{${hex(ch)}}`, any: '.', none: '(?!)' }; // with the `s` flag, `.` is any character
export const RE2_GLOB: GlobDialect = { lit: (ch) => `\\x{${hex(ch)}}`, any: '(?s:.)', none: '[^\\x{0}-\\x{10ffff}]' };

/**
 * Translates a `[...]` set starting at chars[start] (the `[`). Returns the regex and the index
 * after the closing `]`, or undefined when the set is not closed (then `[` is a literal).
 */
function translateSet(chars: readonly string[], start: number, d: GlobDialect): { re: string; end: number } | undefined {
  let j = start + 1;
  const negate = chars[j] === '!';
  if (negate) j++;
  // A `]` right after `[` or `[!` belongs to the set.
  const bodyStart = j;
  if (chars[j] === ']') j++;
  while (j < chars.length && chars[j] !== ']') j++;
  if (j >= chars.length) return undefined;
  const body = chars.slice(bodyStart, j);

  const parts: string[] = [];
  for (let k = 0; k < body.length; k++) {
    const lo = body[k]!;
    const hi = body[k + 2];
    if (body[k + 1] === '-' && hi !== undefined) {
      // A reversed range (z-a) is empty, as in Python 3.7+ fnmatch.
      if (lo.codePointAt(0)! <= hi.codePointAt(0)!) parts.push(`${d.lit(lo)}-${d.lit(hi)}`);
      k += 2;
    } else {
      parts.push(d.lit(lo));
    }
  }
  let re: string;
  if (parts.length === 0) re = negate ? d.any : d.none;
  else re = `[${negate ? '^' : ''}${parts.join('')}]`;
  return { re, end: j + 1 };
}

/** The anchored regex source for an fnmatch pattern (JS dialect: flags `su`). */
export function globToRegExpSource(pattern: string, d: GlobDialect = JS_GLOB): string {
  const chars = Array.from(pattern); // code points, so `?` is one character as in Python
  let out = '';
  for (let i = 0; i < chars.length; ) {
    const ch = chars[i]!;
    if (ch === '*') {
      out += `${d.any}*`;
      while (chars[i] === '*') i++; // `**` is the same as `*`; collapsing avoids needless backtracking
      continue;
    }
    if (ch === '?') {
      out += d.any;
    } else if (ch === '[') {
      const set = translateSet(chars, i, d);
      if (set) {
        out += set.re;
        i = set.end;
        continue;
      }
      out += d.lit(ch);
    } else {
      out += d.lit(ch);
    }
    i++;
  }
  return `^(?:${out})$`;
}

export function globToRegExp(pattern: string): RegExp {
  return new RegExp(globToRegExpSource(pattern), 'su');
}

/** fnmatch.fnmatchcase: the whole name must match, case-sensitively. */
export function globMatch(pattern: string, name: string): boolean {
  return globToRegExp(pattern).test(name);
}
