// Salt's expr_match for autosign/autoreject lines: exact string, then an fnmatch glob (Python's
// fnmatch rules: `*`, `?`, `[...]`, `[!...]`), then a regular expression matched in full.

import { globToRegExp } from '../util/glob.js';

export { globToRegExp };

/** Characters that only make sense in a regex; a line with none of them is never read as one. */
const REGEX_ONLY = /[\^$+(){}|\\]|\.[*?]/;

/** fnmatch(name, glob), case-sensitive as on POSIX. */
export function fnmatch(name: string, glob: string): boolean {
  return globToRegExp(glob).test(name);
}

/**
 * A compiled matcher for one expression. brine departs from Salt on purpose in one way: a line is
 * read as a regex only if it contains a regex-only character (^ $ + ( ) { } | \) or the regex
 * idioms `.*` / `.?`. Salt tries every line as a regex too, so `web*` also accepted `we`, and
 * `web1.example.com` accepted `web1xexample.com`; for a file that grants trust, the narrower
 * reading is the safe one, while Salt files written as regexes (`web.*`, `db\d+`) keep working.
 */
export function compileExpr(expr: string): (id: string) => boolean {
  const glob = globToRegExp(expr);
  let regex: RegExp | undefined;
  if (REGEX_ONLY.test(expr)) {
    try {
      regex = new RegExp(`^(?:${expr})$`);
    } catch {
      regex = undefined; // not a valid regex: glob and exact match only
    }
  }
  return (id) => id === expr || glob.test(id) || (regex?.test(id) ?? false);
}

/** Salt's expr_match(line, expr) with the regex rule above. */
export function exprMatch(id: string, expr: string): boolean {
  return compileExpr(expr)(id);
}
