// nunjucks' lexer with Jinja2's lexical rules where the two differ: string literals read as
// Python reads them (unknown escapes keep their backslash), `}}` inside an open `{` closing the
// brace rather than the tag, and a `#}` outside a comment read as text.

import { type Any, lexer, Unsupported } from './nunjucks-internals.js';

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\n': '' };

/** A string literal as Jinja2 reads it (Python's unicode-escape): unknown escapes such as `\d` keep their backslash. */
function parsePyString(tk: Any, delimiter: string): string {
  tk.forward();
  let out = '';
  const take = (n: number, re: RegExp): string | undefined => {
    const s = tk.str.slice(tk.index, tk.index + n);
    return s.length === n && re.test(s) ? s : undefined;
  };
  while (!tk.isFinished() && tk.current() !== delimiter) {
    const cur = tk.current();
    if (cur !== '\\') {
      out += cur;
      tk.forward();
      continue;
    }
    tk.forward();
    const c = tk.current();
    if (Object.hasOwn(SIMPLE_ESCAPES, c)) {
      out += SIMPLE_ESCAPES[c];
      tk.forward();
      continue;
    }
    const hex = c === 'x' ? 2 : c === 'u' ? 4 : c === 'U' ? 8 : 0;
    if (hex) {
      tk.forward();
      const digits = take(hex, new RegExp(`^[0-9a-fA-F]{${hex}}$`));
      if (!digits) throw new Unsupported(`truncated \\${c} escape in a string literal`, tk.lineno, tk.colno);
      out += String.fromCodePoint(Number.parseInt(digits, 16));
      for (let i = 0; i < hex; i++) tk.forward();
      continue;
    }
    if (/[0-7]/.test(c)) {
      let digits = '';
      while (digits.length < 3 && /[0-7]/.test(tk.current())) {
        digits += tk.current();
        tk.forward();
      }
      out += String.fromCodePoint(Number.parseInt(digits, 8));
      continue;
    }
    if (c === 'N') throw new Unsupported('\\N{...} escapes are not supported', tk.lineno, tk.colno);
    out += `\\${c}`;
    tk.forward();
  }
  tk.forward();
  return out;
}

/**
 * nunjucks ends a tag at the first `}}` even inside a dict display (`{% set m = {'a': {'b': 1}} %}`);
 * Jinja2 balances braces first. While a `{` is open, `}}` is read as a closing brace.
 */
export function balancedLexer(src: string): Any {
  const tk = lexer.lex(src, {});
  const next = tk.nextToken.bind(tk);
  tk._parseString = (delimiter: string) => parsePyString(tk, delimiter);
  // Jinja2 reads a `#}` outside a comment as text; nunjucks calls it an unexpected end of comment
  let inComment = false;
  const extractString = tk._extractString.bind(tk);
  tk._extractString = (what: string) => {
    const got = extractString(what);
    if (got && what === '{#') inComment = true;
    else if (got && what === '#}') inComment = false;
    return got;
  };
  const matches = tk._matches.bind(tk);
  tk._matches = (what: string) => (what === '#}' && !inComment ? false : matches(what));
  let depth = 0;
  tk.nextToken = () => {
    if (tk.in_code && depth > 0 && tk.str.startsWith('}}', tk.index)) {
      const tok = { type: lexer.TOKEN_RIGHT_CURLY, value: '}', lineno: tk.lineno, colno: tk.colno };
      tk.forward();
      depth--;
      return tok;
    }
    const tok = next();
    if (tok?.type === lexer.TOKEN_LEFT_CURLY) depth++;
    else if (tok?.type === lexer.TOKEN_RIGHT_CURLY) depth--;
    else if (tok?.type === lexer.TOKEN_BLOCK_END || tok?.type === lexer.TOKEN_VARIABLE_END) depth = 0;
    return tok;
  };
  return tk;
}
