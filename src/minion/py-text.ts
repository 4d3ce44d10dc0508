// Python's text primitives that Salt's ID code relies on (str.strip, str.split, universal
// newlines). JavaScript's trim() differs: it strips U+FEFF (a BOM) and keeps \x1c-\x1f and \x85.

// The characters for which Python's str.isspace() is true.
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
const SPLIT = new RegExp(`[${PY_SPACE}]+`);

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(STRIP, '');
}

/** Python's `s.split()` (no separator: runs of whitespace, no empty fields). */
export function pySplit(s: string): string[] {
  const t = pyStrip(s);
  return t === '' ? [] : t.split(SPLIT);
}

/** The lines of a file read in Python's text mode (universal newlines: \n, \r\n and \r). */
export function pyLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
