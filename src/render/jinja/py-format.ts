// Python's two string formatting languages as templates use them: `'%s-%s' % (a, b)` and
// `'{}-{:>5}'.format(a, b)`. A conversion or format spec outside the supported subset is an
// error, never a guess.

import { isDict, isFloat, isTuple, num, PyError, repr, str, typeName } from './py-values.js';

function pad(s: string, width: number, align: string, fill = ' '): string {
  if (s.length >= width) return s;
  const n = width - s.length;
  if (align === '<') return s + fill.repeat(n);
  if (align === '^') return fill.repeat(Math.floor(n / 2)) + s + fill.repeat(n - Math.floor(n / 2));
  return fill.repeat(n) + s;
}

function toInt(v: unknown, conv: string): number {
  if (typeof v === 'boolean' || typeof v === 'number' || isFloat(v)) return Math.trunc(num(v));
  throw new PyError(`%${conv} format: a real number is required, not ${typeName(v)}`);
}

/**
 * Python's fixed-point formatting: correctly rounded, ties (exact binary halves such as 1.25)
 * to even. JS toFixed rounds those ties up.
 */
export function pyFixed(n: number, prec: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'nan' : n > 0 ? 'inf' : '-inf';
  const s = n.toFixed(prec);
  if (prec + 30 > 100) return s;
  const exact = Math.abs(n).toFixed(prec + 30);
  const tail = exact.slice(exact.length - 30);
  if (!/^50*$/.test(tail)) return s;
  // an exact tie: round the digits kept to even
  const kept = exact.slice(0, exact.length - 30);
  const digits = kept.replace('.', '');
  const last = Number(digits[digits.length - 1]);
  if (last % 2 === 0) return (n < 0 && Number(digits) !== 0 ? '-' : '') + kept.replace(/\.$/, '');
  return s;
}

function fixed(v: unknown, prec: number): string {
  if (typeof v !== 'number' && typeof v !== 'boolean' && !isFloat(v)) throw new PyError(`must be real number, not ${typeName(v)}`);
  return pyFixed(num(v), prec);
}

function signed(body: string, n: number, flags: string): string {
  if (n < 0 || body.startsWith('-')) return body;
  if (flags.includes('+')) return `+${body}`;
  if (flags.includes(' ')) return ` ${body}`;
  return body;
}

function convertPercent(conv: string, v: unknown, flags: string, width: number, prec: number | undefined): string {
  let body: string;
  switch (conv) {
    case 's':
      body = str(v);
      if (prec !== undefined) body = body.slice(0, prec);
      break;
    case 'r':
      body = repr(v);
      break;
    case 'd':
    case 'i': {
      const n = toInt(v, conv);
      body = signed(String(n), n, flags);
      break;
    }
    case 'f':
    case 'F':
      body = signed(fixed(v, prec ?? 6), num(v), flags);
      break;
    case 'x':
    case 'X': {
      const n = toInt(v, conv);
      body = n.toString(16);
      if (conv === 'X') body = body.toUpperCase();
      break;
    }
    case 'o':
      body = toInt(v, conv).toString(8);
      break;
    default:
      throw new PyError(`unsupported format character '${conv}' (brine supports %s %r %d %i %f %x %o)`);
  }
  if (flags.includes('-')) return pad(body, width, '<');
  if (flags.includes('0') && 'dixXfFo'.includes(conv)) {
    const neg = body.startsWith('-') || body.startsWith('+');
    return neg ? body[0] + pad(body.slice(1), width - 1, '>', '0') : pad(body, width, '>', '0');
  }
  return pad(body, width, '>');
}

/** `fmt % args` for a string left operand. */
export function percentFormat(fmt: string, args: unknown): string {
  const named = isDict(args);
  const list = isTuple(args) ? (args as unknown[]) : [args];
  let i = 0;
  const out = fmt.replace(/%(\([^)]*\))?([-+ 0#]*)(\d+|\*)?(?:\.(\d+))?([a-zA-Z%])/g, (_m, key: string | undefined, flags: string, w: string | undefined, p: string | undefined, conv: string) => {
    if (conv === '%' && !key) return '%';
    let v: unknown;
    if (key) {
      if (!named) throw new PyError('format requires a mapping');
      v = (args as Record<string, unknown>)[key.slice(1, -1)];
      if (v === undefined) throw new PyError(`KeyError: '${key.slice(1, -1)}'`);
    } else {
      if (i >= list.length) throw new PyError('not enough arguments for format string');
      v = list[i++];
    }
    if (w === '*') throw new PyError("'*' width is not supported");
    return convertPercent(conv, v, flags, w ? Number(w) : 0, p === undefined ? undefined : Number(p));
  });
  if (!named && i < list.length) throw new PyError('not all arguments converted during string formatting');
  return out;
}

function formatSpec(v: unknown, spec: string): string {
  if (spec === '') return str(v);
  const m = /^(?:(.)?([<>^=]))?([+\- ])?(0)?(\d+)?(,)?(?:\.(\d+))?([sdfFxXobe%])?$/.exec(spec);
  if (!m) throw new PyError(`format spec '${spec}' is not supported by brine`);
  const [, fillCh, alignCh, sign, zero, w, comma, p, type] = m;
  const width = w ? Number(w) : 0;
  const isNum = typeof v === 'number' || isFloat(v) || typeof v === 'boolean';
  let body: string;
  switch (type) {
    case undefined:
      body = isNum && p !== undefined ? num(v).toPrecision(Number(p)) : str(v);
      if (!isNum && p !== undefined) body = body.slice(0, Number(p));
      break;
    case 's':
      if (isNum) throw new PyError(`Unknown format code 's' for object of type '${typeName(v)}'`);
      body = str(v);
      if (p !== undefined) body = body.slice(0, Number(p));
      break;
    case 'd':
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new PyError(`Unknown format code 'd' for object of type '${typeName(v)}'`);
      body = String(v);
      break;
    case 'f':
    case 'F':
      body = fixed(v, p === undefined ? 6 : Number(p));
      break;
    case 'x':
    case 'X':
    case 'o':
    case 'b': {
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new PyError(`Unknown format code '${type}' for object of type '${typeName(v)}'`);
      body = v.toString(type === 'o' ? 8 : type === 'b' ? 2 : 16);
      if (type === 'X') body = body.toUpperCase();
      break;
    }
    default:
      throw new PyError(`format code '${type}' is not supported by brine`);
  }
  if (comma) body = body.replace(/^(-?\d+)/, (d) => d.replace(/\B(?=(\d{3})+(?!\d))/g, ','));
  if (sign && isNum && num(v) >= 0) body = (sign === '-' ? '' : sign) + body;
  const align = alignCh ?? (zero ? '=' : isNum ? '>' : '<');
  const fill = fillCh ?? (zero ? '0' : ' ');
  if (align === '=') {
    const s = /^[-+ ]/.test(body) ? body[0]! : '';
    return s + pad(body.slice(s.length), width - s.length, '>', fill);
  }
  return pad(body, width, align, fill);
}

/** `fmt.format(*args, **kwargs)`. */
export function strFormat(fmt: string, args: unknown[], kwargs: Record<string, unknown>): string {
  let auto = 0;
  return fmt.replace(/\{\{|\}\}|\{([^{}!:]*)(?:!([rs]))?(?::([^{}]*))?\}/g, (m, field: string | undefined, conv: string | undefined, spec: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const name = field ?? '';
    const [head, ...rest] = name.split(/(?=[.[])/);
    let v: unknown;
    if (head === '' || head === undefined) v = args[auto++];
    else if (/^\d+$/.test(head)) v = args[Number(head)];
    else {
      if (!Object.hasOwn(kwargs, head)) throw new PyError(`KeyError: '${head}'`);
      v = kwargs[head];
    }
    if (v === undefined && (head === '' || /^\d+$/.test(head ?? ''))) throw new PyError('IndexError: Replacement index out of range for positional args tuple');
    for (const part of rest) {
      const key = part.startsWith('.') ? part.slice(1) : part.slice(1, -1);
      v = Array.isArray(v) && /^\d+$/.test(key) ? v[Number(key)] : isDict(v) ? v[key] : undefined;
      if (v === undefined) throw new PyError(`format field '${name}' not found`);
    }
    const text = conv === 'r' ? repr(v) : v;
    return formatSpec(text, spec ?? '');
  });
}
