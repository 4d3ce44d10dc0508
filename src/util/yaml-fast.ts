// A fast path for the plain block YAML that rendered SLS files almost always are: block mappings
// and sequences of single-line plain or simply quoted scalars. The `yaml` package needs ~0.3 s
// (cold) for a 500-state SLS; this line scanner needs a few ms. It never decides a case it is not
// sure of: anything else (flow collections, anchors, tags, block or multi-line scalars, escapes,
// merge keys, duplicate or non-string keys, odd indentation, tabs) returns BAIL and the caller
// parses the text with the `yaml` package, which also reports every error. Plain scalars resolve
// as in that package's schema with Salt's tags (yaml-scalars.ts), so `yes`, `0755` and `1e3` come
// out the same (test/unit/render/yaml-fast.test.ts compares both on a corpus).

import { resolvePlainScalar, UNSURE } from './yaml-scalars.js';

export const BAIL: unique symbol = Symbol('yaml-fast bail');
type Bail = typeof BAIL;

interface Line {
  indent: number;
  content: string;
}

class Bailed extends Error {}
const bail = (): never => {
  throw new Bailed();
};

// control characters, tabs, CR, BOM, NEL and the Unicode line separators: left to the full parser
const UNSURE_CHARS = /[\u0000-\u0009\u000b-\u001f\u007f\u0085\u2028\u2029\ufeff]/;
// first characters a plain scalar (or key) may not start with here; '-' is checked separately
const PLAIN_START = new Set(['[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', ',', '?', ':', "'", '"']);
/** YAML refuses implicit keys longer than 1024 characters. */
const MAX_KEY = 1000;

/** How a plain scalar resolves (a schema's implicit tags), or UNSURE to leave the text to the full parser. */
export type ScalarResolver = (text: string, atKey: boolean) => unknown;

function resolvePlain(resolve: ScalarResolver, text: string, atKey: boolean): unknown {
  const value = resolve(text, atKey);
  return value === UNSURE ? bail() : value;
}

/** A quoted scalar at the start of `s`: its value and the rest of the line after it. */
function quoted(s: string): { value: string; rest: string } {
  const q = s[0]!;
  let out = '';
  let i = 1;
  for (;;) {
    const j = s.indexOf(q, i);
    if (j < 0) return bail(); // continues on the next line
    const part = s.slice(i, j);
    if (q === '"' && part.includes('\\')) return bail(); // escapes
    out += part;
    if (q === "'" && s[j + 1] === "'") {
      out += "'";
      i = j + 2;
      continue;
    }
    return { value: out, rest: s.slice(j + 1) };
  }
}

function plainStartOk(s: string): boolean {
  const c = s[0]!;
  if (PLAIN_START.has(c)) return false;
  if (c === '-') return s.length > 1 && s[1] !== ' ' && !s.startsWith('---');
  return true;
}

/** A value after `key: ` or `- `, on one line. */
function inlineScalar(s: string, resolve: ScalarResolver): unknown {
  if (s[0] === "'" || s[0] === '"') {
    const { value, rest } = quoted(s);
    if (rest !== '' && !/^\s+(#.*)?$/.test(rest)) bail();
    return value;
  }
  if (!plainStartOk(s)) bail();
  const hash = s.indexOf(' #');
  const text = (hash < 0 ? s : s.slice(0, hash)).trimEnd();
  if (text.includes(': ') || text.endsWith(':')) bail();
  return resolvePlain(resolve, text, false);
}

type Pair = { key: string; rest: string } | 'not-a-pair';

/** `key: rest` (rest without its leading blanks), 'not-a-pair' for a plain scalar, or BAIL. */
function splitPair(s: string, resolve: ScalarResolver): Pair {
  if (s[0] === "'" || s[0] === '"') {
    const { value, rest } = quoted(s);
    if (rest === ':' || rest.startsWith(': ')) return { key: value, rest: rest.slice(1).trimStart() };
    if (rest !== '' && !/^\s+(#.*)?$/.test(rest)) bail();
    return 'not-a-pair';
  }
  let colon = s.indexOf(': ');
  if (colon < 0 && s.endsWith(':')) colon = s.length - 1;
  const hash = s.indexOf(' #');
  if (colon < 0) {
    return 'not-a-pair';
  }
  if (hash >= 0 && hash < colon) bail();
  const raw = s.slice(0, colon).trimEnd();
  if (raw === '' || raw.length > MAX_KEY || !plainStartOk(raw) || raw[0] === '-') bail();
  const key = resolvePlain(resolve, raw, true);
  if (typeof key !== 'string' || key === '__proto__' || key === '<<') bail();
  return { key: key as string, rest: s.slice(colon + 1).trimStart() };
}

const isSeqItem = (l: Line): boolean => l.content === '-' || l.content.startsWith('- ');
const valueIsEmpty = (rest: string): boolean => rest === '' || rest.startsWith('#');

class Scanner {
  i = 0;
  constructor(
    readonly lines: Line[],
    readonly resolve: ScalarResolver,
  ) {}

  peek(): Line | undefined {
    return this.lines[this.i];
  }

  block(): unknown {
    const l = this.peek()!;
    return isSeqItem(l) ? this.seq(l.indent) : this.map(l.indent);
  }

  /** The value of a `key:` or `- ` whose inline part is empty: a nested block, or null. */
  nested(indent: number, allowSameIndentSeq: boolean): unknown {
    const next = this.peek();
    if (next && next.indent > indent) return this.block();
    if (next && allowSameIndentSeq && next.indent === indent && isSeqItem(next)) return this.seq(indent);
    return null;
  }

  /** After an inline scalar, a deeper line would continue it (or be an error): not handled here. */
  noContinuation(indent: number): void {
    const next = this.peek();
    if (next && next.indent > indent) bail();
  }

  map(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (let l = this.peek(); l && l.indent === indent && !isSeqItem(l); l = this.peek()) {
      const pair = splitPair(l.content, this.resolve);
      if (pair === 'not-a-pair' || seen.has(pair.key)) return bail();
      seen.add(pair.key);
      this.i++;
      if (valueIsEmpty(pair.rest)) out[pair.key] = this.nested(indent, true);
      else {
        out[pair.key] = inlineScalar(pair.rest, this.resolve);
        this.noContinuation(indent);
      }
    }
    return out;
  }

  seq(indent: number): unknown[] {
    const out: unknown[] = [];
    for (let l = this.peek(); l && l.indent === indent && isSeqItem(l); l = this.peek()) {
      const after = l.content.slice(1);
      const rest = after.trimStart();
      if (valueIsEmpty(rest)) {
        this.i++;
        out.push(this.nested(indent, false));
        continue;
      }
      if (rest === '-' || rest.startsWith('- ')) bail(); // `- - x`
      const pair = splitPair(rest, this.resolve);
      if (pair === 'not-a-pair') {
        this.i++;
        out.push(inlineScalar(rest, this.resolve));
        this.noContinuation(indent);
        continue;
      }
      // `- key: value` opens a mapping at the column of `key`: read this line as its first line
      this.lines[this.i] = { indent: indent + 1 + (after.length - rest.length), content: rest };
      out.push(this.map(this.lines[this.i]!.indent));
    }
    return out;
  }
}

/**
 * The document's value, or BAIL when the text is not (sure to be) in the subset this reads; the
 * caller then uses the full parser. An empty document (blanks and comments) is null. Plain
 * scalars resolve as Salt's loader does unless `resolve` gives another schema's rules.
 */
export function fastLoadYaml(text: string, resolve: ScalarResolver = resolvePlainScalar): unknown | Bail {
  if (UNSURE_CHARS.test(text)) return BAIL;
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const content = raw.trimStart();
    if (content === '' || content.startsWith('#')) continue;
    const indent = raw.length - content.length;
    // document markers and directives
    if (indent === 0 && (content.startsWith('---') || content.startsWith('...') || content.startsWith('%'))) return BAIL;
    lines.push({ indent, content: content.trimEnd() });
  }
  if (lines.length === 0) return null;
  const s = new Scanner(lines, resolve);
  try {
    const value = s.block();
    return s.i === lines.length ? value : BAIL;
  } catch (err) {
    if (err instanceof Bailed) return BAIL;
    throw err;
  }
}
