// Jinja2's tests (`x is defined`, `n is divisibleby(3)`) plus Salt's (`match`, `equalto`, `list`).

import { regexSearch } from './regex.js';
import { cmp, contains, eq, isDict, isFloat, isSafeString, PLAIN_UNDEFINED, PyError } from './py-values.js';

export type Test = (value: unknown, ...args: unknown[]) => boolean;

function isStr(v: unknown): boolean {
  return typeof v === 'string' || isSafeString(v);
}

export const TESTS: Record<string, Test> = {
  defined: (v) => v !== undefined && v !== PLAIN_UNDEFINED,
  undefined: (v) => v === undefined || v === PLAIN_UNDEFINED,
  none: (v) => v === null,
  boolean: (v) => typeof v === 'boolean',
  true: (v) => v === true,
  false: (v) => v === false,
  integer: (v) => typeof v === 'number' && !isFloat(v),
  float: (v) => isFloat(v),
  // bool is an int in Python, so a number too
  number: (v) => typeof v === 'number' || typeof v === 'boolean' || isFloat(v),
  string: isStr,
  mapping: (v) => isDict(v),
  iterable: (v) => Array.isArray(v) || isStr(v) || isDict(v) || v === undefined,
  sequence: (v) => Array.isArray(v) || isStr(v) || isDict(v) || v === undefined,
  callable: (v) => typeof v === 'function',
  sameas: (v, o) => v === o,
  lower: (v) => isStr(v) && String(v) === String(v).toLowerCase(),
  upper: (v) => isStr(v) && String(v) === String(v).toUpperCase(),
  even: (v) => Number(v) % 2 === 0,
  odd: (v) => Math.abs(Number(v) % 2) === 1,
  divisibleby: (v, n) => Number(v) % Number(n) === 0,
  eq: (v, o) => eq(v, o),
  equalto: (v, o) => eq(v, o),
  '==': (v, o) => eq(v, o),
  ne: (v, o) => !eq(v, o),
  '!=': (v, o) => !eq(v, o),
  lt: (v, o) => cmp(v, o) < 0,
  lessthan: (v, o) => cmp(v, o) < 0,
  le: (v, o) => cmp(v, o) <= 0,
  gt: (v, o) => cmp(v, o) > 0,
  greaterthan: (v, o) => cmp(v, o) > 0,
  ge: (v, o) => cmp(v, o) >= 0,
  '<': (v, o) => cmp(v, o) < 0,
  '<=': (v, o) => cmp(v, o) <= 0,
  '>': (v, o) => cmp(v, o) > 0,
  '>=': (v, o) => cmp(v, o) >= 0,
  in: (v, seq) => contains(seq, v),
  // Salt's tests
  list: (v) => Array.isArray(v),
  match: (v, pattern, ignorecase, multiline) => {
    if (!isStr(v)) throw new PyError('match test needs a string');
    return regexSearch(String(v), String(pattern), ignorecase === true, multiline === true, true) !== null;
  },
};
