// Python's arithmetic operators with its int/float distinction (`/` always gives a float,
// `7 // 2` an int) and its type errors (`'a' + 1` fails instead of giving 'a1').

import { recordKeyOrder } from './digit-key-order.js';
import { percentFormat } from './py-format.js';
import { dictKeys, isDict, keyFor, isFloat, isNumber, isSafeString, isTuple, mkFloat, num, PyError, str, tuple, typeName, undefinedError } from './py-values.js';

function numeric(v: unknown): boolean {
  return isNumber(v) || typeof v === 'boolean';
}

function arith(op: string, a: unknown, b: unknown, f: (x: number, y: number) => number, alwaysFloat = false): unknown {
  if (!numeric(a) || !numeric(b)) throw new PyError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
  const r = f(num(a), num(b));
  return alwaysFloat || isFloat(a) || isFloat(b) ? mkFloat(r) : r;
}

function unwrap(v: unknown): unknown {
  return isSafeString(v) ? v.val : v;
}

function seqRepeat(seq: unknown, n: unknown): unknown {
  const k = Math.max(0, num(n));
  if (typeof seq === 'string') return seq.repeat(k);
  const arr = seq as unknown[];
  const out: unknown[] = [];
  for (let i = 0; i < k; i++) out.push(...arr);
  return isTuple(arr) ? tuple(out) : out;
}

function zeroCheck(b: unknown, what: string): void {
  if (num(b) === 0) throw new PyError(`ZeroDivisionError: ${what}`);
}

export function binop(op: string, left: unknown, right: unknown): unknown {
  const a = unwrap(left);
  const b = unwrap(right);
  // Jinja2's Undefined (strict or not) fails every arithmetic operator with its own message
  if ((a === undefined || b === undefined) && !(op === '%' && typeof a === 'string')) throw undefinedError();
  switch (op) {
    case '+':
      if (typeof a === 'string' && typeof b === 'string') return a + b;
      if (Array.isArray(a) && Array.isArray(b) && isTuple(a) === isTuple(b)) return isTuple(a) ? tuple([...a, ...b]) : [...a, ...b];
      // Python's sequence concatenation names the types its own way
      if ((typeof a === 'string' || Array.isArray(a)) && b !== undefined) throw new PyError(`can only concatenate ${typeName(a)} (not "${typeName(b)}") to ${typeName(a)}`);
      return arith(op, a, b, (x, y) => x + y);
    case '-':
      return arith(op, a, b, (x, y) => x - y);
    case '*':
      if ((typeof a === 'string' || Array.isArray(a)) && (typeof b === 'number' || typeof b === 'boolean')) return seqRepeat(a, b);
      if ((typeof b === 'string' || Array.isArray(b)) && (typeof a === 'number' || typeof a === 'boolean')) return seqRepeat(b, a);
      return arith(op, a, b, (x, y) => x * y);
    case '/':
      if (numeric(b)) zeroCheck(b, 'division by zero');
      return arith(op, a, b, (x, y) => x / y, true);
    case '//':
      if (numeric(b)) zeroCheck(b, 'integer division or modulo by zero');
      return arith(op, a, b, (x, y) => Math.floor(x / y));
    case '%':
      if (typeof a === 'string') return percentFormat(a, b);
      if (numeric(b)) zeroCheck(b, 'integer division or modulo by zero');
      // Python's modulo takes the sign of the divisor
      return arith(op, a, b, (x, y) => ((x % y) + y) % y);
    case '**':
      if (numeric(a) && numeric(b) && num(b) < 0) return mkFloat(num(a) ** num(b));
      return arith(op, a, b, (x, y) => x ** y);
    default:
      throw new PyError(`unknown operator ${op}`);
  }
}

export function unop(op: string, v: unknown): unknown {
  if (!numeric(v)) throw new PyError(`bad operand type for unary ${op}: '${typeName(v)}'`);
  const n = num(v);
  if (op === '-') return isFloat(v) ? mkFloat(-n) : -n;
  return isFloat(v) ? mkFloat(n) : n;
}

/** `a ~ b`: both sides as str(). */
export function concat(a: unknown, b: unknown): string {
  return str(a) + str(b);
}

/** A dict display `{k: v}`, in Python's insertion order even for integer-like keys. */
export function dict(pairs: [unknown, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys: string[] = [];
  for (const [k, v] of pairs) {
    const key = keyFor(out, unwrap(k));
    if (!Object.hasOwn(out, key)) keys.push(key);
    out[key] = v;
  }
  recordKeyOrder(out, keys);
  return out;
}

/** Unpacks a value into `n` targets (`for k, v in d.items()`, `{% set a, b = x %}`). */
export function unpack(v: unknown, n: number): unknown[] {
  const items = isDict(v) ? dictKeys(v) : typeof unwrap(v) === 'string' ? [...(unwrap(v) as string)] : (v as unknown[]);
  if (!Array.isArray(items)) throw new PyError(`cannot unpack non-iterable ${typeName(v)} object`);
  if (items.length > n) throw new PyError(`too many values to unpack (expected ${n})`);
  if (items.length < n) throw new PyError(`not enough values to unpack (expected ${n}, got ${items.length})`);
  return items;
}
