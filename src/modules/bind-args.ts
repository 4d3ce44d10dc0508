// Binds a call's positional args and key=value kwargs to a function's declared parameters, the
// way Python binds Salt's `module.function(*arg, **kwarg)`, and checks each value's type.

import { BrineError } from '../util/errors.js';
import type { BoundArgs, ModuleFunction, ParamSpec, ParamType } from './types.js';

const TYPE_WORDS: Record<ParamType, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bool: 'a boolean (true/false)',
  any: 'any value',
  list: 'a list',
  map: 'a mapping (key: value)',
};

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INT_TEXT = /^[+-]?\d+$/;

/** `test.sleep(length: number)`: the form shown in BAD_ARGUMENTS messages and by sys.doc. */
export function formatSignature(fn: ModuleFunction): string {
  const parts: string[] = [];
  const show = (p: ParamSpec): string => {
    if (p.default !== undefined) return `${p.name}: ${p.type} = ${JSON.stringify(p.default)}`;
    return p.required ? `${p.name}: ${p.type}` : `${p.name}?: ${p.type}`;
  };
  for (const p of fn.params) if (!p.keywordOnly) parts.push(show(p));
  const keywordOnly = fn.params.filter((p) => p.keywordOnly);
  if (fn.varargs) parts.push('*args');
  else if (keywordOnly.length > 0) parts.push('*');
  for (const p of keywordOnly) parts.push(show(p));
  if (fn.kwargs) parts.push('**kwargs');
  return `${fn.name}(${parts.join(', ')})`;
}

function badArguments(fn: ModuleFunction, what: string): BrineError {
  return new BrineError('BAD_ARGUMENTS', `${fn.name}: ${what}. Signature: ${formatSignature(fn)}`, {
    details: { function: fn.name },
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  const kind = value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'mapping' : typeof value;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return `${kind} ${text.length > 40 ? `${text.slice(0, 40)}...` : text}`;
}

const NOT_OK = Symbol('not ok');

/** Converts a value to the declared type; the CLI may deliver numbers and booleans as text. */
function coerce(type: ParamType, v: unknown): unknown {
  switch (type) {
    case 'any':
      return v;
    case 'string':
      if (typeof v === 'string') return v;
      return typeof v === 'number' && Number.isFinite(v) ? String(v) : NOT_OK;
    case 'number':
      if (typeof v === 'number') return Number.isFinite(v) ? v : NOT_OK;
      return typeof v === 'string' && NUMBER_TEXT.test(v.trim()) ? Number(v.trim()) : NOT_OK;
    case 'int': {
      const n = typeof v === 'string' && INT_TEXT.test(v.trim()) ? Number(v.trim()) : v;
      return typeof n === 'number' && Number.isSafeInteger(n) ? n : NOT_OK;
    }
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
      return NOT_OK;
    case 'list':
      return Array.isArray(v) ? v : NOT_OK;
    case 'map':
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : NOT_OK;
  }
}

/**
 * Defines an own property even for `__proto__` (which `=` would not create). Every other name
 * gets the same own, enumerable, writable property from `=` (Object.prototype has no other
 * setter), and `=` keeps the object fast: defineProperty for each argument of every call made
 * V8 switch it to a slow dictionary object (a 500-state run binds ~25k arguments).
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Binds arguments or throws BAD_ARGUMENTS naming the function, the parameter, the expected type
 * and the signature. `kwarg` keys are caller-controlled, so only own keys are read and every
 * lookup goes through a Map.
 */
export function bindArguments(fn: ModuleFunction, arg: readonly unknown[], kwarg: Readonly<Record<string, unknown>>): BoundArgs {
  const byName = new Map(fn.params.map((p) => [p.name, p] as const));
  const positional = fn.params.filter((p) => !p.keywordOnly);
  const given = new Map<string, unknown>();
  const rest: unknown[] = [];
  const extra: Record<string, unknown> = {};

  arg.forEach((value, i) => {
    const p = positional[i];
    if (p) given.set(p.name, value);
    else if (fn.varargs) rest.push(value);
  });
  if (arg.length > positional.length && !fn.varargs) {
    throw badArguments(fn, `takes at most ${positional.length} positional argument(s) but ${arg.length} were given`);
  }

  for (const key of Object.keys(kwarg)) {
    const value = kwarg[key];
    const p = byName.get(key);
    if (p) {
      if (given.has(key)) throw badArguments(fn, `got multiple values for argument '${key}' (by position and as ${key}=)`);
      given.set(key, value);
    } else if (fn.kwargs) {
      setOwn(extra, key, value);
    } else {
      throw badArguments(fn, `unexpected keyword argument '${key}'`);
    }
  }

  const named: Record<string, unknown> = {};
  for (const p of fn.params) {
    let value = given.get(p.name);
    // null is Salt's None: "not given" for an optional parameter, so its default applies.
    if (value === undefined || (value === null && !p.required)) {
      if (p.default !== undefined) value = p.default;
      else if (p.required) throw badArguments(fn, `missing required argument '${p.name}' (${TYPE_WORDS[p.type]})`);
      else continue;
    }
    const converted = coerce(p.type, value);
    if (converted === NOT_OK) {
      throw badArguments(fn, `argument '${p.name}' must be ${TYPE_WORDS[p.type]}, got ${describe(value)}`);
    }
    setOwn(named, p.name, converted);
  }
  return { named, rest, extra };
}
