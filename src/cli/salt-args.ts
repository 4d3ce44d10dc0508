// Turns the words after the function name into args and kwargs the way Salt's CLI does
// (salt.utils.args.parse_input + yamlify_arg): `key=value` is a kwarg, values are YAML-typed.
//
// Scalars are typed with Salt's YAML 1.1 rules (PyYAML's SafeLoader as Salt configures it):
// `yes/no/on/off/true/false` in their three spellings are booleans, `~/null/None` is null,
// `010` is 10 (Salt strips leading zeros), 0x/0b ints, floats need a dot; dates stay strings.
// The `yaml` package only supplies the syntax tree (failsafe schema); tags are never evaluated.
//
// Deliberate differences from Salt, each because Salt's result surprises users or cannot travel
// as JSON: a token with leading/trailing spaces is kept as given; sexagesimal `1:30` stays a
// string (PyYAML makes it 90); `.inf`/`.nan`, ints beyond 2^53 and anything with an explicit
// `!tag`, anchor alias or complex key stay strings; a `{...}`/`[...]` is required for a map/list
// even when the token has a `#`.

import type { Node as YamlNode } from 'yaml';
import { BrineError } from '../util/errors.js';
import { yamlPackage } from '../util/yaml-package.js';

export interface SaltArgs {
  arg: unknown[];
  kwarg: Record<string, unknown>;
}

/** Limits on one token: argv already caps a word near 128 KiB; the API may send more. */
export const MAX_ARG_LENGTH = 1024 * 1024;
export const MAX_ARG_DEPTH = 64;
export const MAX_ARG_NODES = 100_000;

// Salt's KWARG_REGEX: a Python identifier-ish name (letters, digits, _, ., -; not starting with a
// digit), `=`, not `==`. `.` does not cross a newline, so a value with a newline is positional.
const KWARG = /^([\p{L}\p{Nl}\p{No}_][\p{L}\p{N}_.-]*)=(?!=)(.*)$/u;

// PyYAML's YAML 1.1 implicit resolvers for plain scalars.
const BOOL_TRUE = new Set(['yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const BOOL_FALSE = new Set(['no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const NULLS = new Set(['~', 'null', 'Null', 'NULL', '']);
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$/;
const FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)$/;

/** Thrown inside the converter when a token is valid YAML but not data we type; it stays a string. */
class KeepAsString extends Error {}

function resolveInt(text: string): number {
  let s = text.replace(/_/g, '');
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    // Salt strips leading zeros only when there is no sign, so `-010` is still octal (-8).
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  } else if (s.length > 1 && s[0] === '0' && !s.startsWith('0b') && !s.startsWith('0x')) {
    s = s.replace(/^0+/, '') || '0';
  }
  let n: number;
  if (s === '0') n = 0;
  else if (s.startsWith('0b')) n = parseInt(s.slice(2), 2);
  else if (s.startsWith('0x')) n = parseInt(s.slice(2), 16);
  else if (s.startsWith('0')) n = parseInt(s, 8);
  else n = parseInt(s, 10);
  if (!Number.isSafeInteger(n)) throw new KeepAsString(); // would lose digits (jids, ids)
  return n === 0 ? 0 : sign * n;
}

/** The value of a plain (unquoted) scalar under Salt's YAML 1.1 rules. */
export function resolvePlainScalar(text: string): unknown {
  if (BOOL_TRUE.has(text)) return true;
  if (BOOL_FALSE.has(text)) return false;
  if (NULLS.has(text)) return null;
  if (INT.test(text)) return resolveInt(text);
  if (FLOAT.test(text)) return Number(text.replace(/_/g, ''));
  return text;
}

interface Budget {
  nodes: number;
}

function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, so a key like `__proto__` is data and never a prototype.
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function keyString(value: unknown): string {
  if (value === null) return 'null'; // what json.dumps does with a None key
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new KeepAsString(); // lists/maps as keys (Python: unhashable)
}

function convert(node: unknown, depth: number, budget: Budget): unknown {
  const { isAlias, isMap, isScalar, isSeq } = yamlPackage();
  if (node === null || node === undefined) return null; // `{a}` or `[a, ]` style empty values
  if (++budget.nodes > MAX_ARG_NODES) {
    throw new BrineError('USAGE', `an argument has more than ${MAX_ARG_NODES} values; pass large data in a file instead`);
  }
  if (depth > MAX_ARG_DEPTH) throw new BrineError('USAGE', `an argument is nested deeper than ${MAX_ARG_DEPTH} levels`);
  if (isAlias(node)) throw new KeepAsString();
  const n = node as YamlNode;
  if (n.tag !== undefined) throw new KeepAsString(); // explicit !tag / !!tag: never evaluated
  if (isScalar(n)) {
    const text = String(n.value);
    if (n.type === 'PLAIN') return resolvePlainScalar(text);
    if (n.type === 'QUOTE_DOUBLE' || n.type === 'QUOTE_SINGLE') return text;
    throw new KeepAsString(); // block scalars (`|`, `>`) only arise from a bare indicator
  }
  if (isSeq(n)) return n.items.map((item) => convert(item, depth + 1, budget));
  if (isMap(n)) {
    const out: Record<string, unknown> = {};
    for (const pair of n.items) {
      const key = keyString(convert(pair.key, depth + 1, budget));
      setKey(out, key, convert(pair.value, depth + 1, budget));
    }
    return out;
  }
  throw new KeepAsString();
}

/** Cheap bracket-depth scan before parsing, so a hostile `[[[[...` never reaches the parser. */
function flowDepth(s: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return max;
}

/** Salt's yamlify_arg: the typed value of one CLI word, or the word itself. */
export function yamlifyArg(arg: string): unknown {
  const stripped = arg.trim();
  if (stripped === '' || stripped === '---' || stripped === '...') return arg;
  // PyYAML reads 1_2_3 as 123; Salt keeps such words as given.
  if (arg.includes('_') && /^[0-9_]+$/.test(stripped)) return arg;
  if (/[\t\r\n]/.test(arg)) return arg;
  if (stripped !== arg) return arg;
  if (arg === 'None') return null;

  if (arg.length > MAX_ARG_LENGTH) {
    throw new BrineError('USAGE', `an argument is ${arg.length} characters long (at most ${MAX_ARG_LENGTH}); pass large data in a file instead`);
  }
  if (flowDepth(arg) > MAX_ARG_DEPTH) {
    throw new BrineError('USAGE', `an argument is nested deeper than ${MAX_ARG_DEPTH} levels of [ ] / { }`);
  }

  const doc = yamlPackage().parseDocument(arg, { schema: 'failsafe', version: '1.1', uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return arg;
  let value: unknown;
  try {
    value = convert(doc.contents, 0, { nodes: 0 });
  } catch (err) {
    if (err instanceof KeepAsString) return arg;
    throw err;
  }
  // A word that is only a comment, or whose comment would be cut off, keeps its text.
  if (arg.includes('#') && (value === null || typeof value === 'string')) return arg;
  if (Array.isArray(value)) return arg.startsWith('[') ? value : arg;
  if (value !== null && typeof value === 'object') return arg.startsWith('{') ? value : arg;
  return value;
}

/** Salt's parse_input for CLI words: `name=value` words become kwargs, the rest positional args. */
export function parseSaltArgs(tokens: readonly string[]): SaltArgs {
  const arg: unknown[] = [];
  const kwarg: Record<string, unknown> = {};
  for (const token of tokens) {
    const m = KWARG.exec(token);
    if (m) setKey(kwarg, m[1]!, yamlifyArg(m[2]!));
    else arg.push(yamlifyArg(token));
  }
  return { arg, kwarg };
}
