// Checks one configured value against its option's declared type and returns the value brine
// will use (numeric strings for master_port become numbers, a numeric id becomes a string).
// Unlike Salt, which only logs a warning, a mismatch is an error the loader turns into a throw.

import { describeType, type OptionSpec } from './option-spec.js';

export type CheckResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly code: 'CONFIG_TYPE' | 'CONFIG_VALUE'; readonly expected: string };

const DIGITS = /^\s*-?\d+\s*$/;

export function checkValue(spec: OptionSpec, value: unknown): CheckResult {
  const typeError: CheckResult = { ok: false, code: 'CONFIG_TYPE', expected: describeType(spec) };
  if (value === null) return spec.nullable ? { ok: true, value } : typeError;
  switch (spec.type) {
    case 'string':
      if (typeof value === 'string') {
        if (value === '' && (spec.path || spec.nonEmpty)) return { ok: false, code: 'CONFIG_VALUE', expected: 'a non-empty path' };
        return { ok: true, value };
      }
      if (spec.numberAsString && typeof value === 'number' && Number.isFinite(value)) return { ok: true, value: String(value) };
      return typeError;
    case 'int':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return inRange(spec, value);
      if (spec.numericString && typeof value === 'string' && DIGITS.test(value)) {
        const n = Number(value.trim());
        if (Number.isSafeInteger(n)) return inRange(spec, n);
      }
      return typeError;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? inRange(spec, value) : typeError;
    case 'bool':
      return typeof value === 'boolean' ? { ok: true, value } : typeError;
    case 'list':
      return Array.isArray(value) ? { ok: true, value } : typeError;
    case 'string_or_list':
      if (typeof value === 'string') return { ok: true, value };
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return typeError;
      return value.length > 0 ? { ok: true, value } : { ok: false, code: 'CONFIG_VALUE', expected: 'a string or a non-empty list of strings' };
    case 'string_or_bool':
      return typeof value === 'string' || typeof value === 'boolean' ? { ok: true, value } : typeError;
    case 'map':
      return isPlainMapping(value) ? { ok: true, value } : typeError;
    case 'enum': {
      // Case-insensitive, as operators write `log_level: INFO`; the canonical spelling is kept.
      const wanted = typeof value === 'string' ? value.toLowerCase() : undefined;
      const match = spec.values?.find((v) => v.toLowerCase() === wanted);
      return match === undefined ? { ok: false, code: 'CONFIG_VALUE', expected: describeType(spec) } : { ok: true, value: match };
    }
  }
}

function inRange(spec: OptionSpec, value: number): CheckResult {
  if (spec.min === undefined) return { ok: true, value };
  const below = spec.minExclusive ? value <= spec.min : value < spec.min;
  if (!below) return { ok: true, value };
  return { ok: false, code: 'CONFIG_VALUE', expected: `${describeType(spec)} ${spec.minExclusive ? 'greater than' : 'of at least'} ${spec.min}` };
}

export function isPlainMapping(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `string "abc"`, `integer 5`, `list`, ... for "got ..." in error messages. Long values are cut. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null (an empty value)';
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)}`;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
  if (typeof value === 'boolean') return `boolean ${value}`;
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (isPlainMapping(value)) return 'a mapping';
  return `a value of type ${Object.prototype.toString.call(value).slice(8, -1).toLowerCase()}`;
}
