// Jinja2's built-in filters with Jinja2 3.1's semantics (case-insensitive sort, `round` giving a
// float, `title` splitting on -/space/brackets, generators from map/select/reverse...).

import { getattr, type Kwargs } from './py-methods.js';
import { binop } from './py-ops.js';
import { percentFormat, pyFixed } from './py-format.js';
import {
  cmp,
  dictEntries,
  unorderedEntries,
  eq,
  isDict,
  isFloat,
  isSafeString,
  iter,
  len,
  mkFloat,
  num,
  PLAIN_UNDEFINED,
  PyError,
  PyFloat,
  str,
  truthy,
  tuple,
  typeName,
  undefinedError,
} from './py-values.js';
import { TESTS } from './tests.js';
import { wrap } from './textwrap.js';

export type Filter = (args: unknown[], kw: Kwargs) => unknown;

/** Arrays that are Python generators/iterators: they cannot be printed, measured or indexed. */
const generators = new WeakSet<unknown[]>();
export function gen(items: unknown[]): unknown[] {
  generators.add(items);
  return items;
}
export function isGenerator(v: unknown): boolean {
  return Array.isArray(v) && generators.has(v);
}

function arg(args: unknown[], kw: Kwargs, i: number, name: string, dflt: unknown): unknown {
  if (args.length > i) return args[i];
  if (Object.hasOwn(kw, name)) return kw[name];
  return dflt;
}

/** Jinja2's make_attrgetter: `a.b.0` walks items first, then attributes. */
function attrGetter(attribute: unknown, dflt?: unknown): (item: unknown) => unknown {
  const parts = String(attribute)
    .split('.')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return (item: unknown) => {
    let v = item;
    for (const p of parts) {
      v = v === undefined ? undefined : getattr(v, p, true, String(attribute));
    }
    return v === undefined && dflt !== undefined ? dflt : v;
  };
}

function lowerKey(v: unknown, caseSensitive: boolean): unknown {
  if (!caseSensitive && (typeof v === 'string' || isSafeString(v))) return str(v).toLowerCase();
  return v;
}

function stableSort(items: unknown[], key: (v: unknown) => unknown, reverse: boolean): unknown[] {
  const decorated = items.map((v, i) => ({ k: key(v), v, i }));
  decorated.sort((a, b) => {
    const c = cmp(a.k, b.k);
    return c !== 0 ? (reverse ? -c : c) : a.i - b.i;
  });
  return decorated.map((d) => d.v);
}

function testCall(name: unknown, rest: unknown[]): (v: unknown) => boolean {
  if (name === undefined) return truthy;
  const t = TESTS[String(name)];
  if (!t) throw new PyError(`No test named '${String(name)}'`);
  return (v) => t(v, ...rest);
}

function selectFilter(keep: boolean, byAttr: boolean): Filter {
  return (args) => {
    const [seq, ...rest] = args;
    let get: (v: unknown) => unknown = (v) => v;
    let testArgs = rest;
    if (byAttr) {
      get = attrGetter(rest[0]);
      testArgs = rest.slice(1);
    }
    const t = testCall(testArgs[0], testArgs.slice(1));
    return gen(iter(seq).filter((v) => t(get(v)) === keep));
  };
}

/** Python's round() to `p` digits: correctly rounded from the exact binary value, exact ties to even. */
function pyRound(n: number, p: number): number {
  if (p >= 0) return Number(pyFixed(n, p));
  const f = 10 ** -p;
  return Number(pyFixed(n / f, 0)) * f;
}

function toInt(v: unknown, dflt: unknown, base: number): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || v instanceof PyFloat) return Math.trunc(num(v));
  const s = str(v).trim().replace(/_/g, '');
  if (base === 10 && /^[-+]?\d+$/.test(s)) return Number.parseInt(s, 10);
  if (base !== 10) {
    const body = s.replace(/^[-+]?(0[xob])?/i, '');
    const n = Number.parseInt(body, base);
    if (!Number.isNaN(n) && body !== '') return s.startsWith('-') ? -n : n;
  }
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return Math.trunc(Number(s));
  return dflt;
}

function toFloat(v: unknown, dflt: unknown): unknown {
  if (typeof v === 'boolean') return mkFloat(v ? 1 : 0);
  if (typeof v === 'number' || v instanceof PyFloat) return mkFloat(num(v));
  const s = str(v).trim().toLowerCase();
  if (/^[-+]?(\d+\.?\d*|\.\d+)([e][-+]?\d+)?$/.test(s)) return mkFloat(Number(s));
  if (/^[-+]?(inf|infinity)$/.test(s)) return s.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (/^[-+]?nan$/.test(s)) return Number.NaN;
  return dflt;
}

function splitlines(s: string): string[] {
  const lines = s.split(/\r\n|\n|\r|\x0b|\x0c|\x1c|\x1d|\x1e|\x85|\u2028|\u2029/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };

export const JINJA_FILTERS: Record<string, Filter> = {
  abs: ([v]) => (isFloat(v) ? mkFloat(Math.abs(num(v))) : Math.abs(num(v))),
  attr: ([v, name]) => (isDict(v) ? undefined : getattr(v, name, false, 'attr')),
  batch: ([v, n, fill]) => {
    const items = iter(v);
    const out: unknown[][] = [];
    for (let i = 0; i < items.length; i += Number(n)) out.push(items.slice(i, i + Number(n)));
    const last = out[out.length - 1];
    if (fill !== undefined && last) while (last.length < Number(n)) last.push(fill);
    return gen(out);
  },
  capitalize: ([v]) => {
    const s = str(v);
    return s ? s[0]!.toUpperCase() + s.slice(1).toLowerCase() : s;
  },
  center: ([v, w]) => {
    const s = str(v);
    const width = Number(w ?? 80);
    const n = width - s.length;
    if (n <= 0) return s;
    const left = Math.floor(n / 2) + (n % 2 && width % 2 ? 1 : 0);
    return ' '.repeat(left) + s + ' '.repeat(n - left);
  },
  default: (args, kw) => {
    const [v] = args;
    const dflt = arg(args, kw, 1, 'default_value', '');
    const boolean = truthy(arg(args, kw, 2, 'boolean', false));
    return v === undefined || v === PLAIN_UNDEFINED || (boolean && !truthy(v)) ? dflt : v;
  },
  dictsort: (args, kw) => {
    const [v] = args;
    // Jinja2 calls value.items(): an Undefined (strict or not) raises its own message
    if (v === undefined) throw undefinedError();
    if (!isDict(v)) throw new PyError(`'${typeName(v)}' object has no attribute 'items'`);
    const cs = truthy(arg(args, kw, 1, 'case_sensitive', false));
    const by = arg(args, kw, 2, 'by', 'key');
    const reverse = truthy(arg(args, kw, 3, 'reverse', false));
    const pos = by === 'key' ? 0 : by === 'value' ? 1 : -1;
    if (pos < 0) throw new PyError('You can only sort by either "key" or "value"');
    const items = unorderedEntries(v).map(([k, x]) => tuple([k, x]));
    return stableSort(items, (p) => lowerKey((p as unknown[])[pos], cs), reverse);
  },
  escape: ([v]) => str(v).replace(/[&<>"']/g, (c) => ESCAPES[c]!),
  first: ([v]) => iter(v)[0],
  float: (args, kw) => toFloat(args[0], arg(args, kw, 1, 'default', new PyFloat(0))),
  format: ([v, ...rest]) => percentFormat(str(v), rest.length === 1 && isDict(rest[0]) ? rest[0] : tuple(rest)),
  groupby: (args, kw) => {
    const get = attrGetter(arg(args, kw, 1, 'attribute', undefined), arg(args, kw, 2, 'default', undefined));
    const sorted = stableSort(iter(args[0]), get, false);
    const out: unknown[] = [];
    for (const item of sorted) {
      const k = get(item);
      const last = out[out.length - 1] as unknown[] | undefined;
      if (last && eq(last[0], k)) (last[1] as unknown[]).push(item);
      else {
        const group = tuple([k, [item]]);
        Object.defineProperty(group, 'grouper', { value: k });
        Object.defineProperty(group, 'list', { get: () => group[1] });
        out.push(group);
      }
    }
    return out;
  },
  indent: (args, kw) => {
    const width = arg(args, kw, 1, 'width', 4);
    const first = truthy(arg(args, kw, 2, 'first', false));
    const blank = truthy(arg(args, kw, 3, 'blank', false));
    const ind = typeof width === 'string' ? width : ' '.repeat(Number(width));
    const lines = splitlines(`${str(args[0])}\n`);
    let rv: string;
    if (blank) rv = lines.join(`\n${ind}`);
    else {
      rv = lines.shift() ?? '';
      if (lines.length) rv += `\n${lines.map((l) => (l ? ind + l : l)).join('\n')}`;
    }
    return first ? ind + rv : rv;
  },
  int: (args, kw) => toInt(args[0], arg(args, kw, 1, 'default', 0), Number(arg(args, kw, 2, 'base', 10))),
  items: ([v]) =>
    v === undefined
      ? gen([])
      : isDict(v)
        ? gen(dictEntries(v).map(([k, x]) => tuple([k, x])))
        : (() => {
            throw new PyError(`Can only get item pairs from a mapping, not ${typeName(v)}`);
          })(),
  join: (args, kw) => {
    const d = str(arg(args, kw, 1, 'd', ''));
    const attribute = arg(args, kw, 2, 'attribute', undefined);
    const items = iter(args[0]);
    const get = attribute === undefined ? (x: unknown) => x : attrGetter(attribute);
    return items.map((x) => str(get(x))).join(d);
  },
  last: ([v]) => {
    if (isGenerator(v)) throw new PyError("'generator' object is not reversible");
    const items = iter(v);
    return items[items.length - 1];
  },
  length: ([v]) => {
    if (isGenerator(v)) throw new PyError("object of type 'generator' has no len()");
    return len(v);
  },
  list: ([v]) => [...iter(v)],
  lower: ([v]) => str(v).toLowerCase(),
  map: (args, kw) => {
    const [seq, ...rest] = args;
    if (Object.hasOwn(kw, 'attribute')) return gen(iter(seq).map(attrGetter(kw.attribute, kw.default)));
    const name = String(rest[0]);
    const f = JINJA_FILTERS[name] ?? MORE_FILTERS[name];
    if (!f) throw new PyError(`No filter named '${name}'`);
    return gen(iter(seq).map((x) => f([x, ...rest.slice(1)], {})));
  },
  max: (args, kw) => {
    const items = iter(args[0]);
    if (!items.length) return undefined;
    const cs = truthy(arg(args, kw, 1, 'case_sensitive', false));
    const get = kw.attribute === undefined ? (x: unknown) => x : attrGetter(kw.attribute);
    return items.reduce((a, b) => (cmp(lowerKey(get(b), cs), lowerKey(get(a), cs)) > 0 ? b : a));
  },
  min: (args, kw) => {
    const items = iter(args[0]);
    if (!items.length) return undefined;
    const cs = truthy(arg(args, kw, 1, 'case_sensitive', false));
    const get = kw.attribute === undefined ? (x: unknown) => x : attrGetter(kw.attribute);
    return items.reduce((a, b) => (cmp(lowerKey(get(b), cs), lowerKey(get(a), cs)) < 0 ? b : a));
  },
  // Jinja2's do_random: random.choice of the items; an empty sequence gives an Undefined
  random: ([v]) => {
    const items = iter(v);
    return items.length === 0 ? undefined : items[Math.floor(Math.random() * items.length)];
  },
  reject: selectFilter(false, false),
  rejectattr: selectFilter(false, true),
  replace: ([v, a, b, n]) => {
    const s = str(v);
    const parts = s.split(str(a));
    if (n === undefined || n === null || Number(n) < 0) return parts.join(str(b));
    return parts.slice(0, Number(n) + 1).join(str(b)) + (parts.length > Number(n) + 1 ? str(a) + parts.slice(Number(n) + 1).join(str(a)) : '');
  },
  reverse: ([v]) => {
    if (typeof v === 'string' || isSafeString(v)) return [...str(v)].reverse().join('');
    return gen([...iter(v)].reverse());
  },
  round: (args, kw) => {
    const v = num(args[0]);
    const p = Number(arg(args, kw, 1, 'precision', 0));
    const method = arg(args, kw, 2, 'method', 'common');
    const f = 10 ** p;
    if (method === 'ceil') return mkFloat(Math.ceil(v * f) / f);
    if (method === 'floor') return mkFloat(Math.floor(v * f) / f);
    if (method !== 'common') throw new PyError('method must be common, ceil or floor');
    // Python's round() keeps an int an int
    if (!isFloat(args[0]) && typeof args[0] === 'number') return p >= 0 ? v : pyRound(v, p);
    return mkFloat(pyRound(v, p));
  },
  safe: ([v]) => str(v),
  select: selectFilter(true, false),
  selectattr: selectFilter(true, true),
  slice: ([v, n, fill]) => {
    const items = iter(v);
    const slices = Number(n);
    const per = Math.floor(items.length / slices);
    const extra = items.length % slices;
    const out: unknown[][] = [];
    let offset = 0;
    for (let i = 0; i < slices; i++) {
      const start = offset + i * per;
      if (i < extra) offset++;
      const end = offset + (i + 1) * per;
      const chunk = items.slice(start, end);
      if (fill !== undefined && i >= extra) chunk.push(fill);
      out.push(chunk);
    }
    return gen(out);
  },
  sort: (args, kw) => {
    const reverse = truthy(arg(args, kw, 1, 'reverse', false));
    const cs = truthy(arg(args, kw, 2, 'case_sensitive', false));
    const attribute = arg(args, kw, 3, 'attribute', undefined);
    const get = attribute === undefined ? (x: unknown) => x : attrGetter(attribute);
    return stableSort([...iter(args[0])], (x) => lowerKey(get(x), cs), reverse);
  },
  string: ([v]) => str(v),
  sum: (args, kw) => {
    const attribute = arg(args, kw, 1, 'attribute', undefined);
    const get = attribute === undefined ? (x: unknown) => x : attrGetter(attribute);
    return iter(args[0]).reduce((acc: unknown, x) => binop('+', acc, get(x)), arg(args, kw, 2, 'start', 0));
  },
  title: ([v]) =>
    str(v)
      .split(/([-\s({[<]+)/)
      .filter((x) => x !== '')
      .map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase())
      .join(''),
  trim: ([v, chars]) => {
    const s = str(v);
    if (chars === undefined || chars === null) return s.replace(/^\s+|\s+$/g, '');
    const set = str(chars);
    let a = 0;
    let b = s.length;
    while (a < b && set.includes(s[a]!)) a++;
    while (b > a && set.includes(s[b - 1]!)) b--;
    return s.slice(a, b);
  },
  truncate: (args, kw) => {
    const s = str(args[0]);
    const length = Number(arg(args, kw, 1, 'length', 255));
    const killwords = truthy(arg(args, kw, 2, 'killwords', false));
    const end = str(arg(args, kw, 3, 'end', '...'));
    const leeway = Number(arg(args, kw, 4, 'leeway', 5));
    if (s.length <= length + leeway) return s;
    if (killwords) return s.slice(0, length - end.length) + end;
    const cut = s.slice(0, length - end.length);
    const i = cut.lastIndexOf(' ');
    return (i >= 0 ? cut.slice(0, i) : cut) + end;
  },
  upper: ([v]) => str(v).toUpperCase(),
  wordcount: ([v]) => (str(v).match(/\w+/gu) ?? []).length,
  // Jinja2 3.1's do_wordwrap: each line of the text wrapped on its own, joined with wrapstring
  wordwrap: (args, kw) => {
    const width = Number(arg(args, kw, 1, 'width', 79));
    const breakLongWords = truthy(arg(args, kw, 2, 'break_long_words', true));
    const wrapstring = arg(args, kw, 3, 'wrapstring', null);
    const breakOnHyphens = truthy(arg(args, kw, 4, 'break_on_hyphens', true));
    const sep = wrapstring === null || wrapstring === undefined ? '\n' : str(wrapstring);
    return splitlines(str(args[0]))
      .map((line) => wrap(line, { width, breakLongWords, breakOnHyphens }).join(sep))
      .join(sep);
  },
};
JINJA_FILTERS.d = JINJA_FILTERS.default!;
JINJA_FILTERS.e = JINJA_FILTERS.escape!;
JINJA_FILTERS.count = JINJA_FILTERS.length!;

/** Filters from other files (Salt's) that `map('name')` may apply; filled in by filters-salt.ts. */
export const MORE_FILTERS: Record<string, Filter> = {};
