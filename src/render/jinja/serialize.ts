// The text Salt's serializing filters produce: Python's json.dumps (`json`, `tojson`) and
// PyYAML's emitter (`yaml` in flow style, `yaml_encode`, `yaml_dquote`, `yaml_squote`).

import { dictKeys, floatRepr, isDict, isFloat, isSafeString, num, PyError, PyFloat, typeName } from './py-values.js';

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
    const keys = opts.sortKeys ? Object.keys(v).sort() : dictKeys(v);
    return `{${nl}${keys.map((k) => `${jsonString(k, opts.ensureAscii)}: ${jsonDumps(v[k], opts, level + 1)}`).join(sep + nl)}${end}}`;
  }
  throw new PyError(`Object of type ${typeName(v)} is not JSON serializable`);
}

const YAML_ESCAPES: Record<string, string> = {
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

function yamlFloat(n: number): string {
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
function plainAllowed(s: string, flow: boolean): boolean {
  if (s === '' || IMPLICIT.test(s)) return false;
  if (/^[\s]|[\s]$/.test(s)) return false;
  if (/[^\x20-\x7e]/.test(s)) return false;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(s)) {
    // '-', '?', ':' may start a plain scalar when followed by a non-space (block context only for flow indicators)
    if (!/^[-?:][^\s]/.test(s)) return false;
    if (flow && /^[?:]/.test(s)) return false;
  }
  if (/: |:$| #/.test(s)) return false;
  if (flow && /[,[\]{}]/.test(s)) return false;
  if (flow && /[?:]/.test(s) && /:/.test(s)) {
    // PyYAML refuses ':' anywhere in flow context when followed by a flow indicator or space
    if (/:[\s,[\]{}]/.test(s)) return false;
  }
  return true;
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

function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (isDict(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${yamlScalarFlow(k)}: ${flow(v[k])}`).join(', ')}}`;
  }
  if (typeof v === 'string' || isSafeString(v) || typeof v === 'number' || typeof v === 'boolean' || v === null || v instanceof PyFloat) return yamlScalarFlow(v);
  throw new PyError(`cannot represent an object of type ${typeName(v)} in YAML`);
}

/**
 * Salt's `yaml` filter: safe_dump(value, default_flow_style=True) stripped. PyYAML folds flow
 * output at 80 columns; brine does not emulate the folding and refuses output that would be folded.
 */
export function yamlFlowDump(v: unknown): string {
  const out = flow(v);
  if (out.length > 80) throw new PyError('the yaml filter output would be folded by PyYAML at 80 columns, which brine does not reproduce: use |json (valid YAML) or |yaml(False)');
  if (!Array.isArray(v) && !isDict(v) && /^[^'"[{]/.test(out) === false && out.includes('\n')) throw new PyError('multi-line yaml scalar');
  return out;
}

function blockScalar(v: unknown): string {
  if (typeof v === 'string' || isSafeString(v)) {
    const s = isSafeString(v) ? v.val : (v as string);
    if (/[\n\r\x85\u2028\u2029]/.test(s)) throw new PyError('a multi-line string in yaml(False) output is folded by PyYAML in ways brine does not reproduce: use |json');
    if (/[^\x20-\x7e]/.test(s)) {
      if (/[\x00-\x1f\x7f]/.test(s)) return yamlDquote(s);
      return plainAllowed(s.replace(/[^\x20-\x7e]/g, 'a'), false) ? s : yamlSquote(s);
    }
    return plainAllowed(s, false) ? s : yamlSquote(s);
  }
  return yamlScalarFlow(v);
}

function isEmptyCollection(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isDict(v) && Object.keys(v).length === 0);
}

/** PyYAML's block style: mappings indented by 2, sequences in a mapping not indented. */
function block(v: unknown, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  if (isDict(v)) {
    for (const k of Object.keys(v).sort()) {
      const x = v[k];
      const key = `${pad}${blockScalar(k)}:`;
      if (isEmptyCollection(x) || !(Array.isArray(x) || isDict(x))) out.push(`${key} ${isEmptyCollection(x) ? flow(x) : blockScalar(x)}`);
      else {
        out.push(key);
        block(x, Array.isArray(x) ? indent : indent + 2, out);
      }
    }
    return;
  }
  if (Array.isArray(v)) {
    for (const x of v) {
      if (isEmptyCollection(x) || !(Array.isArray(x) || isDict(x))) {
        out.push(`${pad}- ${isEmptyCollection(x) ? flow(x) : blockScalar(x)}`);
        continue;
      }
      // the first line of a nested collection shares the dash's line
      const inner: string[] = [];
      block(x, indent + 2, inner);
      out.push(`${pad}- ${inner[0]!.slice(indent + 2)}`, ...inner.slice(1));
    }
    return;
  }
  out.push(pad + blockScalar(v));
}

/** Salt's `yaml(False)`: safe_dump(value, default_flow_style=False) stripped. */
export function yamlBlockDump(v: unknown): string {
  if (!(Array.isArray(v) || isDict(v)) || isEmptyCollection(v)) return yamlFlowDump(v);
  const out: string[] = [];
  block(v, 0, out);
  if (out.some((l) => l.length > 80)) throw new PyError('a line of the yaml(False) output would be folded by PyYAML at 80 columns, which brine does not reproduce: use |json');
  return out.join('\n');
}

/** Salt's yaml_encode: a scalar as PyYAML represents it; strings double-quoted. */
export function yamlEncode(v: unknown): string {
  if (typeof v === 'string' || isSafeString(v)) return yamlDquote(isSafeString(v) ? v.val : (v as string));
  if (Array.isArray(v) || isDict(v)) throw new PyError(`yaml_encode() only works with YAML scalar data; failed for ${typeName(v)}`);
  return yamlScalarFlow(v);
}
