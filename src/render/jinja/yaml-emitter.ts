// Salt's `yaml` filter output: PyYAML's Emitter (salt.utils.yaml.safe_dump, default width 80,
// indent 2, allow_unicode, sorted keys) reproduced state for state, so that long lines fold where
// PyYAML folds them: between words of a plain or quoted scalar, and after a `,` of a flow
// collection, once the column passes 80. The method names follow PyYAML's emitter.py.

import { cmp, dictEntries, isDict, isOrdered, unorderedEntries, isFloat, isSafeString, num, PyError, PyFloat, typeName } from './py-values.js';
import { plainAllowed, YAML_ESCAPES, yamlFloat } from './serialize.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
const LINE_BREAKS = /[\n\x85\u2028\u2029]/;
const BREAK_CHARS = '\n\x85\u2028\u2029';
/** Characters PyYAML's analyze_scalar calls special with allow_unicode: they force double quotes. */
const SPECIAL = /[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10fffe}]|\ufeff/u;

type Style = 'plain' | 'single' | 'double';

class Emitter {
  out = '';
  column = 0;
  whitespace = true;
  indention = true;
  indent: number | null = null;
  readonly indents: (number | null)[] = [];
  flowLevel = 0;
  openEnded = false;

  /** Collections met more than once (by identity): PyYAML's serializer gives them an anchor. */
  private readonly anchors = new Map<object, string | null>();
  private readonly serialized = new Set<object>();

  constructor(
    private readonly flowStyle: boolean,
    root: unknown,
  ) {
    this.anchorNodes(root);
  }

  /** serializer.py anchor_node: ids are numbered in the order second occurrences are found. */
  private anchorNodes(v: unknown): void {
    if (!Array.isArray(v) && !isDict(v)) return;
    if (this.anchors.has(v)) {
      if (this.anchors.get(v) === null) this.anchors.set(v, `id${String(this.nextAnchor()).padStart(3, '0')}`);
      return;
    }
    this.anchors.set(v, null);
    const children = Array.isArray(v)
      ? v
      : Object.keys(v)
          .sort()
          .map((k) => v[k]);
    for (const c of children) this.anchorNodes(c);
  }

  private lastAnchor = 0;
  private nextAnchor(): number {
    this.lastAnchor += 1;
    return this.lastAnchor;
  }

  private write(data: string): void {
    this.out += data;
  }

  private increaseIndent(flow: boolean, indentless = false): void {
    this.indents.push(this.indent);
    if (this.indent === null) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, whitespace = false, indention = false): void {
    const data = this.whitespace || !needWhitespace ? indicator : ` ${indicator}`;
    this.whitespace = whitespace;
    this.indention = this.indention && indention;
    this.column += [...data].length;
    this.openEnded = false;
    this.write(data);
  }

  private writeIndent(): void {
    const indent = this.indent ?? 0;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.writeLineBreak();
    if (this.column < indent) {
      this.whitespace = true;
      this.write(' '.repeat(indent - this.column));
      this.column = indent;
    }
  }

  private writeLineBreak(data = '\n'): void {
    this.whitespace = true;
    this.indention = true;
    this.column = 0;
    this.write(data);
  }

  /** expect_node: a collection in flow or block style, or a scalar. */
  node(v: unknown, ctx: { root?: boolean; mapping?: boolean; simpleKey?: boolean }): void {
    const anchor = (Array.isArray(v) || isDict(v)) && this.anchors.get(v);
    if (anchor) {
      if (this.serialized.has(v as object)) {
        this.writeIndicator(`*${anchor}`, true);
        return;
      }
      this.serialized.add(v as object);
      this.writeIndicator(`&${anchor}`, true);
    }
    if (Array.isArray(v)) {
      if (this.flowLevel > 0 || this.flowStyle || v.length === 0) this.flowSequence(v);
      else this.blockSequence(v, ctx.mapping === true);
    } else if (isDict(v)) {
      const entries = sortedEntries(v);
      if (this.flowLevel > 0 || this.flowStyle || entries.length === 0) this.flowMapping(entries);
      else this.blockMapping(entries);
    } else this.scalar(v, ctx.simpleKey === true, ctx.root === true);
  }

  private flowSequence(items: unknown[]): void {
    this.writeIndicator('[', true, true);
    this.flowLevel++;
    this.increaseIndent(true);
    items.forEach((item, i) => {
      if (i > 0) this.writeIndicator(',', false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      this.node(item, {});
    });
    this.indent = this.indents.pop() ?? null;
    this.flowLevel--;
    this.writeIndicator(']', false);
  }

  private flowMapping(entries: [unknown, unknown][]): void {
    this.writeIndicator('{', true, true);
    this.flowLevel++;
    this.increaseIndent(true);
    entries.forEach(([k, x], i) => {
      if (i > 0) this.writeIndicator(',', false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      this.simpleKey(k);
      this.node(k, { mapping: true, simpleKey: true });
      this.writeIndicator(':', false);
      this.node(x, { mapping: true });
    });
    this.indent = this.indents.pop() ?? null;
    this.flowLevel--;
    this.writeIndicator('}', false);
  }

  private blockSequence(items: unknown[], mappingContext: boolean): void {
    this.increaseIndent(false, mappingContext && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, {});
    }
    this.indent = this.indents.pop() ?? null;
  }

  private blockMapping(entries: [unknown, unknown][]): void {
    this.increaseIndent(false);
    for (const [k, x] of entries) {
      this.writeIndent();
      this.simpleKey(k);
      this.node(k, { mapping: true, simpleKey: true });
      this.writeIndicator(':', false);
      this.node(x, { mapping: true });
    }
    this.indent = this.indents.pop() ?? null;
  }

  /** check_simple_key: brine writes only simple keys (PyYAML switches to `? key` past 128 characters). */
  private simpleKey(k: unknown): void {
    if (typeof k === 'string' && ([...k].length >= 128 || LINE_BREAKS.test(k)))
      throw new PyError('a mapping key longer than 128 characters or with a line break is written as a complex key by PyYAML, which brine does not reproduce');
  }

  /** expect_scalar + process_scalar. */
  private scalar(v: unknown, simpleKey: boolean, root: boolean): void {
    this.increaseIndent(true);
    const [text, style] = scalarText(v, this.flowLevel > 0, simpleKey);
    const split = !simpleKey;
    if (style === 'plain') this.writePlain(text, split, root);
    else if (style === 'single') this.writeSingleQuoted(text, split);
    else this.writeDoubleQuoted(text, split);
    this.indent = this.indents.pop() ?? null;
  }

  private writePlain(text: string, split: boolean, root: boolean): void {
    if (root) this.openEnded = true;
    if (text === '') return;
    if (!this.whitespace) {
      this.column += 1;
      this.write(' ');
    }
    this.whitespace = false;
    this.indention = false;
    const chars = [...text];
    let spaces = false;
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split) {
            this.writeIndent();
            this.whitespace = false;
            this.indention = false;
          } else this.writeChars(chars, start, end);
          start = end;
        }
      } else if (ch === undefined || ch === ' ') {
        this.writeChars(chars, start, end);
        start = end;
      }
      if (ch !== undefined) spaces = ch === ' ';
    }
  }

  private writeSingleQuoted(text: string, split: boolean): void {
    this.writeIndicator("'", true);
    const chars = [...text];
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : undefined;
      if (spaces) {
        if (ch === undefined || ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split && start !== 0 && end !== chars.length) this.writeIndent();
          else this.writeChars(chars, start, end);
          start = end;
        }
      } else if (breaks) {
        // a line break in a quoted scalar is written as an empty line (a folded newline)
        if (ch === undefined || !BREAK_CHARS.includes(ch)) {
          if (chars[start] === '\n') this.writeLineBreak();
          for (const br of chars.slice(start, end)) this.writeLineBreak(br);
          this.writeIndent();
          start = end;
        }
      } else if (ch === undefined || ch === ' ' || BREAK_CHARS.includes(ch) || ch === "'") {
        if (start < end) {
          this.writeChars(chars, start, end);
          start = end;
        }
      }
      if (ch === "'") {
        this.column += 2;
        this.write("''");
        start = end + 1;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = BREAK_CHARS.includes(ch);
      }
    }
    this.writeIndicator("'", false);
  }

  private writeDoubleQuoted(text: string, split: boolean): void {
    this.writeIndicator('"', true);
    const chars = [...text];
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : undefined;
      if (ch === undefined || '"\\\x85\u2028\u2029\ufeff'.includes(ch) || !printable(ch)) {
        if (start < end) {
          this.writeChars(chars, start, end);
          start = end;
        }
        if (ch !== undefined) {
          const c = ch.codePointAt(0)!;
          const data = YAML_ESCAPES[ch] !== undefined ? `\\${YAML_ESCAPES[ch]}` : c <= 0xff ? `\\x${hex(c, 2)}` : c <= 0xffff ? `\\u${hex(c, 4)}` : `\\U${hex(c, 8)}`;
          this.column += data.length;
          this.write(data);
          start = end + 1;
        }
      }
      if (end > 0 && end < chars.length - 1 && (ch === ' ' || start >= end) && this.column + (end - start) > BEST_WIDTH && split) {
        const data = `${chars.slice(start, end).join('')}\\`;
        if (start < end) start = end;
        this.column += [...data].length;
        this.write(data);
        this.writeIndent();
        this.whitespace = false;
        this.indention = false;
        if (chars[start] === ' ') {
          this.column += 1;
          this.write('\\');
        }
      }
    }
    this.writeIndicator('"', false);
  }

  private writeChars(chars: string[], start: number, end: number): void {
    this.column += end - start;
    this.write(chars.slice(start, end).join(''));
  }
}

/** represent_mapping: items sorted by key, or left in order when the keys do not compare (TypeError). */
function sortedEntries(d: Record<string, unknown>): [unknown, unknown][] {
  // Salt's SafeOrderedDumper writes an OrderedDict in its own order
  if (isOrdered(d)) return dictEntries(d);
  const entries = unorderedEntries(d);
  if (entries.every(([k]) => typeof k === 'string')) return entries.sort(([a], [b]) => ((a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0));
  try {
    return [...entries].sort(([a], [b]) => cmp(a, b));
  } catch {
    return dictEntries(d);
  }
}

function hex(c: number, width: number): string {
  return c.toString(16).toUpperCase().padStart(width, '0');
}

/** What write_double_quoted leaves unescaped with allow_unicode. */
function printable(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd);
}

/** The representer's text for a scalar and the style choose_scalar_style picks for it. */
function scalarText(v: unknown, flow: boolean, simpleKey: boolean): [string, Style] {
  if (v === undefined) throw new PyError('cannot represent an Undefined value in YAML');
  if (v === null) return ['null', 'plain'];
  if (v === true) return ['true', 'plain'];
  if (v === false) return ['false', 'plain'];
  if (v instanceof PyFloat || typeof v === 'number') return [isFloat(v) ? yamlFloat(num(v)) : String(v), 'plain'];
  if (typeof v !== 'string' && !isSafeString(v)) throw new PyError(`cannot represent an object of type ${typeName(v)} in YAML`);
  const s = isSafeString(v) ? v.val : v;
  if (SPECIAL.test(s)) return [s, 'double'];
  if (LINE_BREAKS.test(s)) {
    // analyze_scalar: a space next to a line break (or a multi-line key) rules out single quotes
    if (simpleKey || /[ ][\n\x85\u2028\u2029]|[\n\x85\u2028\u2029][ ]/.test(s)) return [s, 'double'];
    return [s, 'single'];
  }
  if (s === '' && simpleKey) return [s, 'single'];
  return [s, plainAllowed(s.replace(/[^\x20-\x7e]/gu, 'a'), flow) ? 'plain' : 'single'];
}

/** safe_dump(value, default_flow_style=flowStyle) as Salt's `yaml` filter returns it (stripped, without `...`). */
export function yamlDump(v: unknown, flowStyle: boolean): string {
  const e = new Emitter(flowStyle, v);
  e.node(v, { root: true });
  let out = e.out.trim();
  // a plain root scalar leaves the document open: PyYAML writes `...`, Salt's filter drops it
  if (out.endsWith('\n...')) out = out.slice(0, -4);
  return out;
}
