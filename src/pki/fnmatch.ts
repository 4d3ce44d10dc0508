// Salt's expr_match for autosign/autoreject lines: exact string, then an fnmatch glob (Python's
// fnmatch rules: `*`, `?`, `[...]`, `[!...]`), then a regular expression matched in full.

/** Characters that only make sense in a regex; a line with none of them is never read as one. */
const REGEX_ONLY = /[\^$+(){}|\\]/;

/** Translates an fnmatch glob to an anchored RegExp, as Python's fnmatch.translate does. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const c = glob[i++]!;
    if (c === '*') {
      if (!out.endsWith('.*')) out += '.*';
    } else if (c === '?') {
      out += '.';
    } else if (c === '[') {
      let j = i;
      if (glob[j] === '!') j++;
      if (glob[j] === ']') j++; // a `]` first in the set is a member, not the end
      while (j < glob.length && glob[j] !== ']') j++;
      if (j >= glob.length) {
        out += '\\['; // unclosed: a literal bracket
      } else {
        out += charClass(glob.slice(i, j));
        i = j + 1;
      }
    } else {
      out += escapeRegExp(c);
    }
  }
  return new RegExp(`^(?:${out})$`, 's');
}

function charClass(body: string): string {
  const negated = body.startsWith('!');
  const members = negated ? body.slice(1) : body;
  let set = '';
  for (let k = 0; k < members.length; ) {
    const lo = members[k]!;
    if (members[k + 1] === '-' && k + 2 < members.length) {
      const hi = members[k + 2]!;
      if (lo <= hi) set += `${escapeClassChar(lo)}-${escapeClassChar(hi)}`; // reversed ranges are dropped, as in Python
      k += 3;
    } else {
      set += escapeClassChar(lo);
      k += 1;
    }
  }
  if (set === '') return negated ? '.' : '(?!)';
  return negated ? `[^${set}]` : `[${set}]`;
}

function escapeClassChar(c: string): string {
  return /[\\\]\[^-]/.test(c) ? `\\${c}` : c;
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** fnmatch(name, glob), case-sensitive as on POSIX. */
export function fnmatch(name: string, glob: string): boolean {
  return globToRegExp(glob).test(name);
}

/**
 * A compiled matcher for one expression. brine departs from Salt on purpose in one way: a line is
 * read as a regex only if it contains a regex-only character (^ $ + ( ) { } | \). Salt tries every
 * line as a regex too, so `web*` also accepted `we` and `webbb`, and `web1.example.com` accepted
 * `web1xexample.com`; for a file that grants trust, the narrower reading is the safe one.
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
  return (id) => id === expr || glob.test(id) || (regex !== undefined && regex.test(id));
}

/** Salt's expr_match(line, expr) with the regex rule above. */
export function exprMatch(id: string, expr: string): boolean {
  return compileExpr(expr)(id);
}
