// Attribute and item lookup as Jinja2 does it (`a.b` tries the attribute then the item, `a['b']`
// the item then the attribute; a miss is Undefined, a lookup on Undefined is an error), with the
// Python str, dict and list methods Salt templates call.

import { strFormat } from './py-format.js';
import { assignInOrder, noteKeyAdded } from './digit-key-order.js';
import { dictEntries, dictKeys, eq, isDict, isOrdered, keyFor, markOrdered, rawKey, isSafeString, iter, PyError, str, truthy, tuple, isTuple, typeName, view } from './py-values.js';

/** Objects of the compatibility layer (`salt`, namespace()) answer attribute lookups themselves. */
export const PYATTR = Symbol('pyattr');
export interface PyObject {
  [PYATTR](name: string, bracket: boolean): unknown;
}

export type Kwargs = Record<string, unknown>;

/** Splits a nunjucks call's arguments into positional ones and the keyword object (flagged `__keywords`). */
export function splitArgs(args: unknown[]): [unknown[], Kwargs] {
  const last = args[args.length - 1];
  if (isDict(last) && (last as { __keywords?: boolean }).__keywords === true) {
    const kw: Kwargs = {};
    for (const [k, v] of Object.entries(last)) if (k !== '__keywords') kw[k] = v;
    return [args.slice(0, -1), kw];
  }
  return [args, {}];
}

function method<T>(name: string, self: T, fn: (self: T, args: unknown[], kw: Kwargs) => unknown): (...args: unknown[]) => unknown {
  const f = (...args: unknown[]) => {
    const [pos, kw] = splitArgs(args);
    return fn(self, pos, kw);
  };
  Object.defineProperty(f, 'name', { value: name });
  return f;
}

function wantStr(v: unknown, what: string): string {
  if (isSafeString(v)) return v.val;
  if (typeof v !== 'string') throw new PyError(`${what} argument must be str, not ${typeName(v)}`);
  return v;
}

function stripChars(chars: unknown): string | undefined {
  return chars === undefined || chars === null ? undefined : wantStr(chars, 'strip');
}

function strip(s: string, chars: string | undefined, left: boolean, right: boolean): string {
  const set = chars ?? ' \t\n\r\x0b\x0c';
  let a = 0;
  let b = s.length;
  if (left) while (a < b && set.includes(s[a]!)) a++;
  if (right) while (b > a && set.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

function split(s: string, sep: unknown, maxsplit: number, fromRight: boolean): string[] {
  if (sep === undefined || sep === null) {
    const words = s.trim() === '' ? [] : s.trim().split(/\s+/);
    if (maxsplit < 0 || words.length <= maxsplit + 1) return words;
    if (fromRight) {
      const keep = words.slice(words.length - maxsplit);
      const re = new RegExp(`\\s+${keep.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+')}\\s*$`);
      return [s.trimStart().replace(re, ''), ...keep];
    }
    let rest = s.trimStart();
    const out: string[] = [];
    for (let i = 0; i < maxsplit; i++) {
      const m = /^(\S+)\s+/.exec(rest)!;
      out.push(m[1]!);
      rest = rest.slice(m[0].length);
    }
    return [...out, rest];
  }
  const sp = wantStr(sep, 'split');
  if (sp === '') throw new PyError('ValueError: empty separator');
  const parts = s.split(sp);
  if (maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
  if (fromRight) return [parts.slice(0, parts.length - maxsplit).join(sp), ...parts.slice(parts.length - maxsplit)];
  return [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(sp)];
}

const STR_METHODS: Record<string, (s: string, a: unknown[], kw: Kwargs) => unknown> = {
  startswith: (s, [p]) => (Array.isArray(p) ? p.some((x) => s.startsWith(wantStr(x, 'startswith'))) : s.startsWith(wantStr(p, 'startswith'))),
  endswith: (s, [p]) => (Array.isArray(p) ? p.some((x) => s.endsWith(wantStr(x, 'endswith'))) : s.endsWith(wantStr(p, 'endswith'))),
  split: (s, [sep, max], kw) => split(s, sep ?? kw.sep, Number(max ?? kw.maxsplit ?? -1), false),
  rsplit: (s, [sep, max], kw) => split(s, sep ?? kw.sep, Number(max ?? kw.maxsplit ?? -1), true),
  strip: (s, [c]) => strip(s, stripChars(c), true, true),
  lstrip: (s, [c]) => strip(s, stripChars(c), true, false),
  rstrip: (s, [c]) => strip(s, stripChars(c), false, true),
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  title: (s) => s.toLowerCase().replace(/(^|[^A-Za-z])([a-z])/g, (_m, a: string, b: string) => a + b.toUpperCase()),
  capitalize: (s) => (s ? s[0]!.toUpperCase() + s.slice(1).toLowerCase() : s),
  replace: (s, [a, b, n]) => {
    const from = wantStr(a, 'replace');
    const to = wantStr(b, 'replace');
    if (n === undefined || Number(n) < 0) return s.split(from).join(to);
    const parts = s.split(from);
    return parts.slice(0, Number(n) + 1).join(to) + (parts.length > Number(n) + 1 ? from + parts.slice(Number(n) + 1).join(from) : '');
  },
  format: (s, a, kw) => strFormat(s, a, kw),
  join: (s, [items]) =>
    iter(items)
      .map((x) => wantStr(x, 'sequence item'))
      .join(s),
  splitlines: (s, [keep]) => {
    const lines = s.split(/(?<=\r\n|\n|\r)/);
    return keep !== undefined && truthy(keep) ? lines : lines.map((l) => l.replace(/\r?\n$|\r$/, ''));
  },
  find: (s, [sub]) => s.indexOf(wantStr(sub, 'find')),
  rfind: (s, [sub]) => s.lastIndexOf(wantStr(sub, 'rfind')),
  index: (s, [sub]) => {
    const i = s.indexOf(wantStr(sub, 'index'));
    if (i < 0) throw new PyError('ValueError: substring not found');
    return i;
  },
  count: (s, [sub]) => s.split(wantStr(sub, 'count')).length - 1,
  isdigit: (s) => /^[0-9]+$/.test(s),
  isalpha: (s) => /^[A-Za-z]+$/.test(s),
  isalnum: (s) => /^[A-Za-z0-9]+$/.test(s),
  isspace: (s) => /^\s+$/.test(s),
  islower: (s) => /[a-z]/.test(s) && s === s.toLowerCase(),
  isupper: (s) => /[A-Z]/.test(s) && s === s.toUpperCase(),
  zfill: (s, [w]) => (s.startsWith('-') ? `-${s.slice(1).padStart(Number(w) - 1, '0')}` : s.padStart(Number(w), '0')),
  center: (s, [w, f]) => {
    const n = Number(w) - s.length;
    if (n <= 0) return s;
    const fill = (f as string | undefined) ?? ' ';
    const left = Math.floor(n / 2) + (n % 2 && Number(w) % 2 ? 1 : 0);
    return fill.repeat(left) + s + fill.repeat(n - left);
  },
  ljust: (s, [w, f]) => s.padEnd(Number(w), (f as string | undefined) ?? ' '),
  rjust: (s, [w, f]) => s.padStart(Number(w), (f as string | undefined) ?? ' '),
  partition: (s, [sep]) => {
    const p = wantStr(sep, 'partition');
    const i = s.indexOf(p);
    return tuple(i < 0 ? [s, '', ''] : [s.slice(0, i), p, s.slice(i + p.length)]);
  },
  rpartition: (s, [sep]) => {
    const p = wantStr(sep, 'rpartition');
    const i = s.lastIndexOf(p);
    return tuple(i < 0 ? ['', '', s] : [s.slice(0, i), p, s.slice(i + p.length)]);
  },
  swapcase: (s) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''),
};

function popIndex(l: unknown[], i: unknown): number {
  let n = i === undefined ? l.length - 1 : Number(i);
  if (n < 0) n += l.length;
  if (n < 0 || n >= l.length) throw new PyError('IndexError: pop index out of range');
  return n;
}

const LIST_METHODS: Record<string, (l: unknown[], a: unknown[], kw: Kwargs) => unknown> = {
  append: (l, [x]) => {
    l.push(x);
    return null;
  },
  extend: (l, [x]) => {
    l.push(...iter(x));
    return null;
  },
  insert: (l, [i, x]) => {
    let n = Number(i);
    if (n < 0) n = Math.max(0, l.length + n);
    l.splice(n, 0, x);
    return null;
  },
  pop: (l, [i]) => l.splice(popIndex(l, i), 1)[0],
  remove: (l, [x]) => {
    const i = l.findIndex((y) => eq(x, y));
    if (i < 0) throw new PyError('ValueError: list.remove(x): x not in list');
    l.splice(i, 1);
    return null;
  },
  index: (l, [x]) => {
    const i = l.findIndex((y) => eq(x, y));
    if (i < 0) throw new PyError(`ValueError: ${str(x)} is not in list`);
    return i;
  },
  count: (l, [x]) => l.filter((y) => eq(x, y)).length,
  reverse: (l) => {
    l.reverse();
    return null;
  },
  copy: (l) => [...l],
  clear: (l) => {
    l.length = 0;
    return null;
  },
};

const DICT_METHODS: Record<string, (d: Record<string, unknown>, a: unknown[], kw: Kwargs) => unknown> = {
  items: (d) =>
    view(
      dictEntries(d).map(([k, v]) => tuple([k, v])),
      'dict_items',
    ),
  keys: (d) => view(dictKeys(d), 'dict_keys'),
  values: (d) =>
    view(
      dictEntries(d).map(([, v]) => v),
      'dict_values',
    ),
  get: (d, [k, dflt]) => {
    const key = rawKey(d, k);
    return key !== undefined ? d[key] : dflt === undefined ? null : dflt;
  },
  update: (d, [other], kw) => {
    if (isDict(other)) assignInOrder(d, other);
    else if (Array.isArray(other)) {
      for (const pair of other) {
        const key = keyFor(d, (pair as unknown[])[0]);
        noteKeyAdded(d, key);
        d[key] = (pair as unknown[])[1];
      }
    } else if (other !== undefined && other !== null) throw new PyError(`'${typeName(other)}' object is not iterable`);
    assignInOrder(d, kw);
    return null;
  },
  setdefault: (d, [k, dflt]) => {
    const key = keyFor(d, k);
    noteKeyAdded(d, key);
    if (!Object.hasOwn(d, key)) d[key] = dflt === undefined ? null : dflt;
    return d[key];
  },
  pop: (d, [k, dflt]) => {
    const key = rawKey(d, k);
    if (key !== undefined) {
      const v = d[key];
      delete d[key];
      return v;
    }
    if (dflt === undefined) throw new PyError(`KeyError: ${str(k)}`);
    return dflt;
  },
  copy: (d) => (isOrdered(d) ? markOrdered({ ...d }) : { ...d }),
  clear: (d) => {
    for (const k of Object.keys(d)) delete d[k];
    return null;
  },
};

function pyAttr(obj: unknown, name: string): unknown {
  if (isSafeString(obj)) obj = obj.val;
  if (typeof obj === 'string') {
    const m = STR_METHODS[name];
    return m && Object.hasOwn(STR_METHODS, name) ? method(name, obj, m) : undefined;
  }
  if (Array.isArray(obj)) {
    // groupby's (grouper, list) tuples
    if ((name === 'grouper' || name === 'list') && Object.hasOwn(obj, name)) return (obj as unknown as Record<string, unknown>)[name];
    const m = LIST_METHODS[name];
    return m && Object.hasOwn(LIST_METHODS, name) ? method(name, obj, m) : undefined;
  }
  if (isDict(obj)) {
    const m = DICT_METHODS[name];
    return m && Object.hasOwn(DICT_METHODS, name) ? method(name, obj, m) : undefined;
  }
  return undefined;
}

function pyItem(obj: unknown, key: unknown): unknown {
  if (isSafeString(obj)) obj = obj.val;
  if (typeof key === 'number' && (typeof obj === 'string' || Array.isArray(obj))) {
    const seq = typeof obj === 'string' ? [...obj] : obj;
    const i = key < 0 ? seq.length + key : key;
    return i >= 0 && i < seq.length ? seq[i] : undefined;
  }
  if (isDict(obj)) {
    const k = rawKey(obj, key);
    return k === undefined ? undefined : obj[k];
  }
  return undefined;
}

function hasPyAttr(obj: unknown): obj is PyObject {
  return (typeof obj === 'object' || typeof obj === 'function') && obj !== null && PYATTR in obj;
}

/**
 * `obj.name` (bracket false) or `obj[key]` (bracket true) with Jinja2's order of attempts.
 * `what` names the looked-up expression for the error Jinja2 gives on Undefined.
 */
export function getattr(obj: unknown, key: unknown, bracket: boolean, what: string): unknown {
  if (obj === undefined) throw new PyError(`'${what}' is undefined`);
  if (hasPyAttr(obj)) return obj[PYATTR](String(key), bracket);
  if (bracket) {
    const v = pyItem(obj, key);
    if (v !== undefined) return v;
    return typeof key === 'string' ? pyAttr(obj, key) : undefined;
  }
  const name = String(key);
  const v = pyAttr(obj, name);
  return v !== undefined ? v : pyItem(obj, name);
}

/** `obj[start:stop:step]` on a list, tuple or string. */
export function slice(obj: unknown, start: unknown, stop: unknown, step: unknown): unknown {
  if (isSafeString(obj)) obj = obj.val;
  const isStr = typeof obj === 'string';
  if (!isStr && !Array.isArray(obj)) throw new PyError(`'${typeName(obj)}' object is not subscriptable`);
  const seq: unknown[] = isStr ? [...(obj as string)] : (obj as unknown[]);
  const n = seq.length;
  const st = step === undefined || step === null ? 1 : Number(step);
  if (st === 0) throw new PyError('ValueError: slice step cannot be zero');
  const norm = (v: unknown, dflt: number, lo: number, hi: number): number => {
    if (v === undefined || v === null) return dflt;
    let i = Number(v);
    if (i < 0) i += n;
    return Math.min(Math.max(i, lo), hi);
  };
  const out: unknown[] = [];
  if (st > 0) {
    const a = norm(start, 0, 0, n);
    const b = norm(stop, n, 0, n);
    for (let i = a; i < b; i += st) out.push(seq[i]);
  } else {
    const a = norm(start, n - 1, -1, n - 1);
    const b = norm(stop, -1, -1, n - 1);
    for (let i = a; i > b; i += st) out.push(seq[i]);
  }
  if (isStr) return out.join('');
  return isTuple(obj) ? tuple(out) : out;
}
