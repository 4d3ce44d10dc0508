// The text Salt's serializing filters produce: Python's json.dumps (`json`, `tojson`) and
// PyYAML's scalars (`yaml_encode`, `yaml_dquote`, `yaml_squote`); the `yaml` filter is yaml-emitter.ts.

import { cmp, dictEntries, unorderedEntries, floatRepr, isDict, isFloat, isSafeString, num, PyError, PyFloat, typeName } from './py-values.js';

function jsonString(s: string, ensureAscii: boolean): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) {
      if (c > 0xffff) {
        const v = c - 0x10000;
        out += `\\u${(0xd800 + (v >> 10)).toString(16)}\\u${(0xdc00 + (v & 0x3ff)).toString(16)}`;
      } else out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** json.dumps turns a non-string key into its JSON text: true, null, 1, 1.5. */
function jsonKey(k: unknown): string {
  if (typeof k === 'string') return k;
  if (k === true) return 'true';
  if (k === false) return 'false';
  if (k === null) return 'null';
  return isFloat(k) ? floatRepr(num(k)) : String(k);
}

export interface JsonOptions {
  sortKeys: boolean;
  indent: number | null;
  ensureAscii: boolean;
}

/** Python's json.dumps. */
export function jsonDumps(v: unknown, opts: JsonOptions, level = 0): string {
  if (v === undefined) throw new PyError('Object of type Undefined is not JSON serializable');
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return jsonString(v, opts.ensureAscii);
  if (isSafeString(v)) return jsonString(v.val, opts.ensureAscii);
  if (v instanceof PyFloat || typeof v === 'number') {
    const n = num(v);
    if (Number.isNaN(n)) return 'NaN';
    if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
    return isFloat(v) ? floatRepr(n) : String(n);
  }
  const nl = opts.indent === null ? '' : `\n${' '.repeat(opts.indent * (level + 1))}`;
  const end = opts.indent === null ? '' : `\n${' '.repeat(opts.indent * level)}`;
  const sep = opts.indent === null ? ', ' : ',';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${nl}${v.map((x) => jsonDumps(x, opts, level + 1)).join(sep + nl)}${end}]`;
  }
  if (isDict(v)) {
    if (Object.keys(v).length === 0) return '{}';
    const entries = opts.sortKeys ? unorderedEntries(v) : dictEntries(v);
    if (opts.sortKeys) {
      // Python sorts the original keys (a str and an int do not compare: TypeError)
      if (entries.every(([k]) => typeof k === 'string')) entries.sort(([a], [b]) => ((a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0));
      else entries.sort(([a], [b]) => cmp(a, b));
    }
    return `{${nl}${entries.map(([k, x]) => `${jsonString(jsonKey(k), opts.ensureAscii)}: ${jsonDumps(x, opts, level + 1)}`).join(sep + nl)}${end}}`;
  }
  throw new PyError(`Object of type ${typeName(v)} is not JSON serializable`);
}

/** PyYAML's write_double_quoted ESCAPE_REPLACEMENTS (yaml_dquote here, the yaml filter's emitter). */
export const YAML_ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\b': 'b',
  '\t': 't',
  '\n': 'n',
  '\x0b': 'v',
  '\f': 'f',
  '\r': 'r',
  '\x1b': 'e',
  '"': '"',
  '\\': '\\',
  '\x85': 'N',
  '\xa0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

/** PyYAML's double-quoted scalar with unlimited width and allow_unicode off (Salt's yaml_dquote). */
export function yamlDquote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const esc = YAML_ESCAPES[ch];
    if (esc !== undefined) out += `\\${esc}`;
    else if (c >= 0x20 && c <= 0x7e) out += ch;
    else if (c <= 0xff) out += `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += `\\U${c.toString(16).toUpperCase().padStart(8, '0')}`;
  }
  return `${out}"`;
}

export function yamlSquote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export function yamlFloat(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Number.POSITIVE_INFINITY) return '.inf';
  if (n === Number.NEGATIVE_INFINITY) return '-.inf';
  let r = floatRepr(n).toLowerCase();
  // PyYAML: a repr without '.' before the exponent gets '.0' (1e+16 -> 1.0e+16)
  if (!r.includes('.') && r.includes('e')) r = r.replace('e', '.0e');
  return r;
}

/** A str that PyYAML's resolver would read back as something else (bool, int, null...) must be quoted. */
const IMPLICIT =
  /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL|[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|<<|=|\d\d\d\d-\d\d?-\d\d?(?:(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?)?)$/;

/** Whether PyYAML would emit `s` as a plain scalar in flow context (else single-quoted). */
const WS = '\0 \t\r\n\x85\u2028\u2029';

/**
 * Whether PyYAML writes `s` as a plain scalar (emitter.py analyze_scalar and choose_scalar_style,
 * for printable single-line text): in flow context any `,?[]{}` or `:` forbids it.
 */
export function plainAllowed(s: string, flow: boolean): boolean {
  if (s === '' || IMPLICIT.test(s)) return false;
  if (s.startsWith(' ') || s.endsWith(' ')) return false;
  const chars = [...s];
  let flowIndicators = s.startsWith('---') || s.startsWith('...');
  let blockIndicators = flowIndicators;
  let preceded = true;
  let followed = chars.length === 1 || WS.includes(chars[1]!);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) flowIndicators = blockIndicators = true;
      if (ch === '?' || ch === ':') {
        flowIndicators = true;
        if (followed) blockIndicators = true;
      }
      if (ch === '-' && followed) flowIndicators = blockIndicators = true;
    } else {
      if (',?[]{}'.includes(ch)) flowIndicators = true;
      if (ch === ':') {
        flowIndicators = true;
        if (followed) blockIndicators = true;
      }
      if (ch === '#' && preceded) flowIndicators = blockIndicators = true;
    }
    preceded = WS.includes(ch);
    followed = i + 2 >= chars.length || WS.includes(chars[i + 2]!);
  }
  return flow ? !flowIndicators : !blockIndicators;
}

function yamlScalarFlow(v: unknown): string {
  if (v === undefined) throw new PyError('cannot represent an Undefined value in YAML');
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (v instanceof PyFloat || typeof v === 'number') return isFloat(v) ? yamlFloat(num(v)) : String(v);
  const s = isSafeString(v) ? v.val : (v as string);
  if (/[^\x20-\x7e]/.test(s)) {
    // PyYAML (allow_unicode=True in Salt's safe_dump) quotes non-printable text with double quotes
    if (/[\x00-\x1f\x7f]/.test(s)) return yamlDquote(s);
    return plainAllowed(s.replace(/[^\x20-\x7e]/g, 'a'), true) ? s : yamlSquote(s);
  }
  return plainAllowed(s, true) ? s : yamlSquote(s);
}

/** Salt's yaml_encode: a scalar as PyYAML represents it; strings double-quoted. */
export function yamlEncode(v: unknown): string {
  if (typeof v === 'string' || isSafeString(v)) return yamlDquote(isSafeString(v) ? v.val : (v as string));
  if (Array.isArray(v) || isDict(v)) throw new PyError(`yaml_encode() only works with YAML scalar data; failed for ${typeName(v)}`);
  return yamlScalarFlow(v);
}
