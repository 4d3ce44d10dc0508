// Python's value model inside templates, so that a template prints and compares what Jinja2 would.
// None is null, Jinja2's Undefined is undefined, dicts are plain objects, lists are arrays, a
// tuple is an array registered in `tuples`, and a float whose value is integral (2.0, which JS
// cannot tell from 2) is a PyFloat box. Everything else is the JS value itself.

/**
 * Salt renders with jinja2.StrictUndefined unless the minion sets `allow_undefined: True`: using
 * an undefined value (printing, testing, iterating, comparing it) is then an error. The engine
 * sets this around each (synchronous) render.
 */
let strictUndefined = true;

export function setStrictUndefined(strict: boolean): boolean {
  const before = strictUndefined;
  strictUndefined = strict;
  return before;
}

/**
 * The last Undefined a lookup produced: Jinja2's message for it (`'dict object' has no attribute
 * 'x'`, `'x' is undefined`) and brine's name of the expression. Undefined is JS `undefined`, which
 * cannot carry its message as Jinja2's Undefined object does; the value is nearly always used
 * right after the lookup that produced it, so the error reports this one.
 */
let lastUndefined: { hint: string; expr: string } | undefined;

/** Records why a lookup gave Undefined; returns undefined for the caller to return. */
export function noteUndefined(hint: string, expr: string): undefined {
  lastUndefined = { hint, expr };
  return undefined;
}

/** Forgets the last Undefined (a new render, or a test that handled it). */
export function forgetUndefined(): void {
  lastUndefined = undefined;
}

/** Jinja2's hint for `obj.key` / `obj[key]` missing (Undefined._undefined_message). */
export function missingHint(obj: unknown, key: unknown): string {
  const type = obj === null ? 'None' : `${typeName(obj)} object`;
  if (typeof key === 'string') return `${strRepr(type)} has no attribute ${strRepr(key)}`;
  return `${type} has no element ${repr(key)}`;
}

/**
 * The error StrictUndefined raises: Jinja2's message, then brine's name of the expression.
 * `what` names the expression when the caller knows it; a recorded Undefined of another
 * expression is then not reported for it.
 */
export function undefinedError(what?: string): PyError {
  const last = lastUndefined;
  if (last !== undefined && (what === undefined || what === last.expr)) {
    const named = `'${last.expr}' is undefined`;
    return new PyError(last.hint === named || last.expr === 'expression' ? last.hint : `${last.hint} (${named})`);
  }
  return new PyError(what ? `'${what}' is undefined` : 'an undefined value was used (Salt renders with StrictUndefined unless allow_undefined is set)');
}

/**
 * The value of `a if x` when x is false: Jinja2 gives a plain Undefined there even under
 * StrictUndefined (codegen's cond_expr_undefined), so it prints as '' and is false.
 */
export const PLAIN_UNDEFINED: object = Object.freeze(Object.create(null));

function strictCheck(v: unknown): void {
  if (v === undefined && strictUndefined) throw undefinedError();
}

import { runtime } from './nunjucks-internals.js';
import { isArrayIndex, recordedKeyOrder } from './digit-key-order.js';

/** Raised for a Python TypeError/ValueError-class failure while rendering; the engine adds file and line. */
export class PyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PyError';
  }
}

/** A float with an integral value (`2.0`), which JS numbers cannot represent distinctly from `2`. */
export class PyFloat {
  constructor(readonly v: number) {}
  valueOf(): number {
    return this.v;
  }
  toString(): string {
    return floatRepr(this.v);
  }
}

/** Arrays that are Python tuples (printed with parentheses). */
const tuples = new WeakSet<unknown[]>();

export function tuple(items: unknown[]): unknown[] {
  tuples.add(items);
  return items;
}

/** dict.keys()/values()/items() results, printed as Python prints the views. */
const views = new WeakMap<unknown[], string>();

export function view(items: unknown[], kind: 'dict_keys' | 'dict_values' | 'dict_items'): unknown[] {
  views.set(items, kind);
  return items;
}

export function isTuple(v: unknown): boolean {
  return Array.isArray(v) && tuples.has(v);
}

/** nunjucks' SafeString (macro and caller() output): a string for every Python purpose. */
interface SafeStringLike {
  val: string;
  length: number;
}

export function isSafeString(v: unknown): v is SafeStringLike {
  return v instanceof runtime.SafeString;
}

export function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && v !== PLAIN_UNDEFINED && !Array.isArray(v) && !(v instanceof PyFloat) && !isSafeString(v) && !(v instanceof RegExp);
}

export function isFloat(v: unknown): boolean {
  return v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v));
}

export function isNumber(v: unknown): v is number | PyFloat {
  return typeof v === 'number' || v instanceof PyFloat;
}

/** A float result: boxed when integral so that it still prints `2.0`. */
export function mkFloat(n: number): number | PyFloat {
  return Number.isInteger(n) ? new PyFloat(n) : n;
}

export function num(v: unknown): number {
  if (v instanceof PyFloat) return v.v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v as number;
}

/** Python's repr() of a float. */
export function floatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Number.POSITIVE_INFINITY) return 'inf';
  if (n === Number.NEGATIVE_INFINITY) return '-inf';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    // Python: shortest repr digits, exponent with a sign and at least two digits
    const [mant, exp] = n.toExponential().split('e') as [string, string];
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const s = String(n);
  return Number.isInteger(n) ? `${s}.0` : s;
}

/** Python's type name, for error messages that match Jinja2's. */
export function typeName(v: unknown): string {
  if (v === undefined || v === PLAIN_UNDEFINED) return 'Undefined';
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string' || isSafeString(v)) return 'str';
  if (isFloat(v)) return 'float';
  if (typeof v === 'number') return 'int';
  if (isTuple(v)) return 'tuple';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'function') return 'function';
  return 'dict';
}

function strRepr(s: string): string {
  // Python prefers single quotes, and switches to double quotes when the text has ' but no "
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return quote + out + quote;
}

/** Python's repr(), as Jinja2 shows a value nested in a list or dict. */
export function repr(v: unknown): string {
  if (v === undefined || v === PLAIN_UNDEFINED) return 'Undefined';
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return strRepr(v);
  if (isSafeString(v)) return `Markup(${strRepr(v.val)})`;
  if (v instanceof PyFloat) return floatRepr(v.v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : floatRepr(v);
  if (Array.isArray(v)) {
    const inner = v.map(repr).join(', ');
    if (isTuple(v)) return v.length === 1 ? `(${inner},)` : `(${inner})`;
    const kind = views.get(v);
    if (kind) return `${kind}([${inner}])`;
    return `[${inner}]`;
  }
  if (typeof v === 'function') return `<function ${v.name || 'macro'}>`;
  if (isDict(v)) {
    return `{${dictEntries(v)
      .map(([k, x]) => `${repr(k)}: ${repr(x)}`)
      .join(', ')}}`;
  }
  return String(v);
}

/** Python's str(), which is what `{{ x }}` prints. */
export function str(v: unknown): string {
  strictCheck(v);
  if (v === undefined || v === PLAIN_UNDEFINED) return '';
  if (typeof v === 'string') return v;
  if (isSafeString(v)) return v.val;
  return repr(v);
}

/** Python truthiness: empty containers, 0, 0.0, '' , None and Undefined are false. */
export function truthy(v: unknown): boolean {
  strictCheck(v);
  if (v === undefined || v === null || v === false || v === PLAIN_UNDEFINED) return false;
  if (v === true) return true;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (v instanceof PyFloat) return v.v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (isSafeString(v)) return v.val.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return true;
}

/** Python ==: by value for containers, 1 == 1.0 == True. */
export function eq(a: unknown, b: unknown): boolean {
  strictCheck(a);
  strictCheck(b);
  if (a === b) return true;
  if (isSafeString(a)) return eq(a.val, b);
  if (isSafeString(b)) return eq(a, b.val);
  const an = isNumber(a) || typeof a === 'boolean';
  const bn = isNumber(b) || typeof b === 'boolean';
  if (an && bn) return num(a) === num(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (isTuple(a) !== isTuple(b) || a.length !== b.length) return false;
    return a.every((x, i) => eq(x, b[i]));
  }
  if (isDict(a) && isDict(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && eq(a[k], b[k]));
  }
  return false;
}

/** Python ordering (<): numbers with numbers, strings with strings, sequences element-wise. */
export function lt(a: unknown, b: unknown): boolean {
  return cmp(a, b) < 0;
}

export function cmp(a: unknown, b: unknown): number {
  strictCheck(a);
  strictCheck(b);
  if (isSafeString(a)) a = a.val;
  if (isSafeString(b)) b = b.val;
  const an = isNumber(a) || typeof a === 'boolean';
  const bn = isNumber(b) || typeof b === 'boolean';
  if (an && bn) return num(a) - num(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b) && isTuple(a) === isTuple(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!eq(a[i], b[i])) return cmp(a[i], b[i]);
    }
    return a.length - b.length;
  }
  throw new PyError(`'<' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python `x in container`. */
export function contains(container: unknown, item: unknown): boolean {
  strictCheck(container);
  strictCheck(item);
  if (container === undefined) return false;
  if (isSafeString(container)) container = container.val;
  if (typeof container === 'string') {
    if (isSafeString(item)) item = item.val;
    if (typeof item !== 'string') throw new PyError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((x) => eq(x, item));
  if (isDict(container)) return rawKey(container, item) !== undefined;
  throw new PyError(`argument of type '${typeName(container)}' is not iterable`);
}

// JS objects list keys that are array indices ('80', '443') first, in ascending order, whatever
// order they were inserted in; Python dicts keep insertion order. brine records the order of the
// dicts it builds with such keys (digit-key-order.ts); where the order is not known and can change
// what a template prints, the template is refused rather than rendered differently.

/**
 * A dict's keys in the order Jinja2 would see them, or an error when that order cannot be known:
 * two or more keys, one of which looks like a non-negative integer.
 */
export function dictKeys(d: Record<string, unknown>): unknown[] {
  return orderedRawKeys(d).map(decodeKey);
}

function orderedRawKeys(d: Record<string, unknown>): string[] {
  const keys = Object.keys(d);
  if (keys.length > 1 && isArrayIndex(keys[0]!)) {
    const known = recordedKeyOrder(d, keys);
    if (known) return known;
    throw new PyError(
      `the order of a dict whose keys include integer-like strings (${strRepr(keys[0]!)}) cannot be kept as Jinja2 keeps it (brine's dicts list such keys first); iterate it sorted with |dictsort, or use keys that are not all digits (e.g. 'port_80')`,
    );
  }
  return keys;
}

/** Dicts made by Salt's `odict()` (OrderedDict): the yaml filter keeps their order instead of sorting. */
const ordered = new WeakSet<object>();

export function markOrdered<T extends object>(d: T): T {
  ordered.add(d);
  return d;
}

export function isOrdered(d: object): boolean {
  return ordered.has(d);
}

/** A dict's (key, value) pairs for a caller that sorts them: JS's order of digit keys does not matter there. */
export function unorderedEntries(d: Record<string, unknown>): [unknown, unknown][] {
  return Object.keys(d).map((k) => [decodeKey(k), d[k]]);
}

/** A dict's (key, value) pairs in Jinja2's order (see dictKeys). */
export function dictEntries(d: Record<string, unknown>): [unknown, unknown][] {
  return orderedRawKeys(d).map((k) => [decodeKey(k), d[k]]);
}

// Python dict keys that are not strings (`{True: 'running', 1: 'a', None: 'n'}`) are stored under
// a property `\0<type>:<value>`; keys equal in Python (True, 1, 1.0) share the value part, and the
// first one inserted keeps its type, as in a Python dict.
const KEY_MARK = '\u0000';

function keyValue(key: unknown): string | undefined {
  if (key === null) return 'None';
  if (typeof key === 'boolean') return key ? '1' : '0';
  if (typeof key === 'number' || key instanceof PyFloat) return String(num(key));
  return undefined;
}

function keyType(key: unknown): string {
  if (key === null) return 'none';
  if (typeof key === 'boolean') return 'bool';
  return isFloat(key) ? 'float' : 'int';
}

/** The property a key is stored under in `d`, or undefined when `d` does not have it. */
export function rawKey(d: Record<string, unknown>, key: unknown): string | undefined {
  if (isSafeString(key)) key = key.val;
  if (typeof key === 'string') return Object.hasOwn(d, key) ? key : undefined;
  const value = keyValue(key);
  if (value === undefined) return undefined;
  for (const k of Object.keys(d)) if (k.startsWith(KEY_MARK) && k.slice(k.indexOf(':') + 1) === value) return k;
  return undefined;
}

/** The property to store `key` under in `d` (an existing equal key, or a new one). */
export function keyFor(d: Record<string, unknown>, key: unknown): string {
  if (isSafeString(key)) key = key.val;
  if (typeof key === 'string') return key;
  const value = keyValue(key);
  if (value === undefined) throw new PyError(`TypeError: unhashable type: '${typeName(key)}'`);
  return rawKey(d, key) ?? `${KEY_MARK}${keyType(key)}:${value}`;
}

/** The Python key a property stands for. */
export function decodeKey(k: string): unknown {
  if (!k.startsWith(KEY_MARK)) return k;
  const type = k.slice(1, k.indexOf(':'));
  const value = k.slice(k.indexOf(':') + 1);
  if (type === 'none') return null;
  if (type === 'bool') return value === '1';
  return type === 'float' ? mkFloat(Number(value)) : Number(value);
}

/** What `for x in v` iterates: a dict's keys, a string's characters, nothing for Undefined. */
export function iter(v: unknown): unknown[] {
  strictCheck(v);
  if (Array.isArray(v)) return v;
  if (v === undefined || v === PLAIN_UNDEFINED) return [];
  if (typeof v === 'string') return [...v];
  if (isSafeString(v)) return [...v.val];
  if (isDict(v)) return dictKeys(v);
  throw new PyError(`'${typeName(v)}' object is not iterable`);
}

/** Python len(). */
export function len(v: unknown): number {
  strictCheck(v);
  if (v === undefined) return 0;
  if (typeof v === 'string') return [...v].length;
  if (isSafeString(v)) return [...v.val].length;
  if (Array.isArray(v)) return v.length;
  if (isDict(v)) return Object.keys(v).length;
  throw new PyError(`object of type '${typeName(v)}' has no len()`);
}

/** Deep copy with PyFloat unboxed: what leaves the template (function arguments, YAML/JSON dumps of plain data). */
export function plain(v: unknown): unknown {
  if (v instanceof PyFloat) return v.v;
  if (isSafeString(v)) return v.val;
  if (Array.isArray(v)) return v.map(plain);
  if (isDict(v)) {
    const out: Record<string, unknown> = {};
    // a non-string key leaves the template as its Python str() (JS objects have string keys only)
    for (const [k, x] of Object.entries(v)) out[k.startsWith(KEY_MARK) ? repr(decodeKey(k)) : k] = plain(x);
    return out;
  }
  return v;
}
