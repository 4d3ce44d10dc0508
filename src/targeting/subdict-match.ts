// Salt's subdict_match (salt/utils/data.py): does `key:...:value` select something in a nested
// mapping? Used for grain and grain_pcre targets on the master (cached grains) and the minion.

import { compileLinearGlob, compileLinearRegex, type LinearCompile, type LinearRegex } from './linear-regex.js';
import { DEFAULT_DELIMITER } from './types.js';

const INDEX = /^[+-]?\d+$/;
const NOT_FOUND = Symbol('not found');

export interface SubdictOptions {
  delimiter?: string;
  /** grain_pcre: the value part is a regular expression (Python re.match: anchored at the start). */
  regex?: boolean;
  /** pillar_exact: str() of the value must equal the pattern exactly (case kept). */
  exact?: boolean;
}

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function own(obj: Record<string, unknown>, key: string): unknown {
  // own properties only: `__proto__` or `constructor` must never reach Object.prototype
  return Object.hasOwn(obj, key) ? obj[key] : NOT_FOUND;
}

/** Python's repr of a JSON value, for str() of containers. */
function pyRepr(v: unknown): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return pyStr(v);
}

/** Python's str() of a JSON value: what Salt compares a pattern against. */
export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (isMapping(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  return String(v);
}

/** Salt's traverse_dict_and_list: mappings by key, lists by index or the first mapping holding the key. */
function traverse(data: unknown, key: string, delimiter: string): unknown {
  let ptr = data;
  for (const part of key.split(delimiter)) {
    if (Array.isArray(ptr)) {
      if (INDEX.test(part.trim())) {
        let idx = Number(part.trim());
        if (idx < 0) idx += ptr.length;
        if (idx < 0 || idx >= ptr.length) return NOT_FOUND;
        ptr = ptr[idx];
        continue;
      }
      let hit: unknown = NOT_FOUND;
      for (const m of ptr) {
        if (!isMapping(m)) continue;
        hit = own(m, part);
        if (hit !== NOT_FOUND) break;
      }
      if (hit === NOT_FOUND) return NOT_FOUND;
      ptr = hit;
    } else if (isMapping(ptr)) {
      ptr = own(ptr, part);
      if (ptr === NOT_FOUND) return NOT_FOUND;
    } else {
      return NOT_FOUND;
    }
  }
  return ptr;
}

/**
 * Compiles a grain_pcre value pattern (linear-time, see linear-regex.ts). Salt lower-cases both
 * the pattern and the value; brine lower-cases the value and matches case-insensitively, so
 * escapes like `\D` keep their meaning.
 */
export function compileValueRegex(pattern: string): LinearCompile {
  return compileLinearRegex(pattern, true);
}

/** A grain or pillar glob value pattern: Salt lower-cases the pattern and the value. */
export function compileValueGlob(pattern: string): LinearCompile {
  return compileLinearGlob(pattern.toLowerCase());
}

class Matcher {
  // one compile per pattern for a whole target evaluation, however many minions it visits
  private readonly compiled = new Map<string, LinearRegex | undefined>();

  constructor(
    private readonly regex: boolean,
    private readonly exact = false,
  ) {}

  private compile(pattern: string): LinearRegex | undefined {
    if (this.compiled.has(pattern)) return this.compiled.get(pattern);
    const c = this.regex ? compileValueRegex(pattern) : compileValueGlob(pattern);
    const re = c.ok ? c.re : undefined;
    this.compiled.set(pattern, re);
    return re;
  }

  /** Salt's _match: str() of the value, lower-cased, against a glob or a regex. */
  value(target: unknown, pattern: string): boolean {
    if (this.exact) return pyStr(target) === pattern;
    // Salt logs "Invalid regex" and treats it as no match; targets check the whole pattern first
    const re = this.compile(pattern);
    return re?.matches(pyStr(target).toLowerCase()) ?? false;
  }

  /** Salt's _dict_match: a key that exists, a nested expression, or `*:` to search one level down. */
  dict(target: Record<string, unknown>, pattern: string): boolean {
    const wildcard = pattern.startsWith('*:');
    if (wildcard) pattern = pattern.slice(2);
    if (pattern === '*') return true;
    if (own(target, pattern) !== NOT_FOUND) return true;
    // Salt recurses with the default delimiter here, whatever the caller's was
    if (this.subdict(target, pattern, DEFAULT_DELIMITER)) return true;
    if (!wildcard) return false;
    for (const v of Object.values(target)) {
      if (isMapping(v)) {
        if (this.dict(v, pattern)) return true;
      } else if (Array.isArray(v)) {
        if (v.some((item) => this.value(item, pattern))) return true;
      } else if (this.value(v, pattern)) {
        return true;
      }
    }
    return false;
  }

  subdict(data: unknown, expr: string, delimiter: string): boolean {
    const splits = expr.split(delimiter);
    if (splits.length === 1) return false; // no delimiter: cannot be a match
    // the longest key first: `a:b:c` tries key `a:b` with `c`, then key `a` with `b:c`
    for (let idx = splits.length - 1; idx > 0; idx--) {
      const key = splits.slice(0, idx).join(delimiter);
      let matchstr: string;
      let found: unknown;
      if (key === '*') {
        matchstr = expr;
        found = data;
      } else {
        matchstr = splits.slice(idx).join(delimiter);
        found = traverse(data, key, delimiter);
      }
      // Salt's sentinel is {}, so an empty mapping counts as absent too
      if (found === NOT_FOUND || (isMapping(found) && Object.keys(found).length === 0)) continue;
      if (isMapping(found)) {
        if (this.dict(found, matchstr)) return true;
        continue;
      }
      if (Array.isArray(found)) {
        for (const member of found) {
          if (isMapping(member) && this.dict(member, matchstr)) return true;
          if (this.value(member, matchstr)) return true;
        }
        continue;
      }
      if (this.value(found, matchstr)) return true;
    }
    return false;
  }
}

/**
 * Salt's subdict_match for many mappings (one per minion) with the same options: patterns are
 * compiled once for all of them.
 */
export function subdictMatcher(opts: SubdictOptions = {}): (data: unknown, expr: string) => boolean {
  const delimiter = opts.delimiter === undefined || opts.delimiter === '' ? DEFAULT_DELIMITER : opts.delimiter;
  const m = new Matcher(opts.regex === true, opts.exact === true);
  return (data, expr) => m.subdict(data, expr, delimiter);
}

/** Salt's subdict_match(data, expr, delimiter, regex_match). */
export function subdictMatch(data: unknown, expr: string, opts: SubdictOptions = {}): boolean {
  return subdictMatcher(opts)(data, expr);
}
