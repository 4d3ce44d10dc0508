// The filters Salt adds to Jinja (salt/utils/jinja.py and salt/utils/*): serializers, regex,
// traverse, unique, sequence, hashes and friends.

import { createHash } from 'node:crypto';
import { loadYaml } from '../yaml-load.js';
import { type Filter, gen, MORE_FILTERS } from './filters-jinja.js';
import { regexEscape, regexReplace, regexSearch } from './regex.js';
import { traverse } from './salt-layer.js';
import { jsonDumps, yamlDquote, yamlEncode, yamlSquote } from './serialize.js';
import { yamlDump } from './yaml-emitter.js';
import { binop } from './py-ops.js';
import { IP_FILTERS } from './filters-ip.js';
import { recordKeyOrder } from './digit-key-order.js';
import { cmp, contains, eq, isDict, isSafeString, isTuple, iter, len, mkFloat, num, PyError, PyFloat, str, truthy, tuple, typeName } from './py-values.js';

function arg(args: unknown[], kw: Record<string, unknown>, i: number, name: string, dflt: unknown): unknown {
  if (args.length > i) return args[i];
  return Object.hasOwn(kw, name) ? kw[name] : dflt;
}

function indentOf(v: unknown): number | null {
  return v === undefined || v === null ? null : Number(v);
}

/** Salt's list filters take lists; a hashable input (string, tuple) becomes an unordered set in Salt, which brine refuses. */
function listOnly(v: unknown, name: string): unknown[] {
  if (Array.isArray(v) && !isTuple(v)) return v;
  throw new PyError(`${name} of a ${typeName(v)} gives an unordered set in Salt; brine refuses it: pass a list (|list)`);
}

function unique(v: unknown): unknown[] {
  const out: unknown[] = [];
  for (const x of listOnly(v, 'unique')) if (!out.some((y) => eq(x, y))) out.push(x);
  return out;
}

function extreme(v: unknown, sign: number): unknown {
  const items = iter(v);
  if (items.length === 0) throw new PyError('ValueError: arg is an empty sequence');
  return items.reduce((a, b) => (cmp(b, a) * sign > 0 ? b : a));
}

/** uuid.uuid5(GLOBAL_UUID, value) as Salt's `uuid` filter computes it. */
function uuid5(name: string): string {
  const ns = Buffer.from('91633EBF1C865E33935A28061F4B480E', 'hex');
  const h = createHash('sha1')
    .update(Buffer.concat([ns, Buffer.from(name, 'utf8')]))
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Python's posixpath.normpath. */
function normpath(p: string): string {
  if (p === '') return '.';
  // POSIX keeps exactly two leading slashes, folds three or more into one
  const lead = p.startsWith('//') && !p.startsWith('///') ? 2 : p.startsWith('/') ? 1 : 0;
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..' || (lead === 0 && out.length === 0) || (out.length > 0 && out[out.length - 1] === '..')) out.push(part);
    else if (out.length > 0) out.pop();
  }
  const joined = '/'.repeat(lead) + out.join('/');
  return joined || '.';
}

/** salt.utils.path.join (the `path_join` filter): each part normalised, later parts' leading '/' dropped. */
function pathJoin(args: unknown[], kw: Record<string, unknown>): string {
  const unknown = Object.keys(kw).filter((k) => k !== 'use_posixpath' && !k.startsWith('__'));
  if (unknown.length > 0) throw new PyError(`The following keyword arguments are not valid: ${unknown.join(', ')}`);
  const parts = args.map((a) => normpath(str(a)));
  if (parts.length === 0) return '';
  let ret = parts[0]!;
  for (const part of parts.slice(1).map((p) => p.replace(/^\/+/, ''))) ret = part.startsWith('/') || ret === '' ? part : ret.endsWith('/') ? ret + part : `${ret}/${part}`;
  return normpath(ret);
}

/** salt.utils.data's to_num: int(text), else float(text), else the text unchanged. */
function toNum(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || v instanceof PyFloat) return Math.trunc(num(v));
  if (typeof v !== 'string' && !isSafeString(v)) return v;
  const t = str(v).trim();
  if (/^[+-]?\d+(_\d+)*$/.test(t)) return Number(t.replace(/_/g, ''));
  if (/^[+-]?(\d+(_\d+)*(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)([eE][+-]?\d+)?$/.test(t)) return mkFloat(Number(t.replace(/_/g, '')));
  return v;
}

/** Python's zip()/itertools.zip_longest(): tuples of the i-th items, as a generator. */
function zipItems(args: unknown[], longest: boolean, fill: unknown): unknown[] {
  const seqs = args.map((a) => iter(a));
  const lengths = seqs.map((s) => s.length);
  const n = seqs.length === 0 ? 0 : longest ? Math.max(...lengths) : Math.min(...lengths);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(tuple(seqs.map((s) => (i < s.length ? s[i] : fill))));
  return gen(out);
}

export const SALT_FILTERS: Record<string, Filter> = {
  ...IP_FILTERS,
  // Salt 3005's itertools filters (salt/utils/jinja.py): Python's iterators, printed only through |list
  zip: (args) => zipItems(args, false, null),
  zip_longest: (args, kw) => zipItems(args, true, Object.hasOwn(kw, 'fillvalue') ? kw.fillvalue : null),
  // salt.utils.data: is_list, is_iter (strings are not iterables there), to_num; sorted_ignorecase
  is_list: ([v]) => Array.isArray(v) && !isTuple(v),
  is_iter: ([v]) => Array.isArray(v) || isDict(v),
  to_num: ([v]) => toNum(v),
  sorted_ignorecase: ([v]) => [...iter(v)].sort((a, b) => cmp(str(a).toLowerCase(), str(b).toLowerCase())),
  path_join: (args, kw) => pathJoin(args, kw),
  json: (args, kw) => jsonDumps(args[0], { sortKeys: truthy(arg(args, kw, 1, 'sort_keys', true)), indent: indentOf(arg(args, kw, 2, 'indent', null)), ensureAscii: true }).trim(),
  tojson: (args, kw) =>
    jsonDumps(args[0], { sortKeys: false, indent: indentOf(arg(args, kw, 1, 'indent', null)), ensureAscii: true })
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/'/g, '\\u0027'),
  yaml: (args, kw) => yamlDump(args[0], truthy(arg(args, kw, 1, 'flow_style', true))),
  yaml_encode: ([v]) => yamlEncode(v),
  yaml_dquote: ([v]) => yamlDquote(str(v)),
  yaml_squote: ([v]) => yamlSquote(str(v)),
  regex_replace: (args, kw) => regexReplace(str(args[0]), str(args[1]), str(args[2]), truthy(arg(args, kw, 3, 'ignorecase', false)), truthy(arg(args, kw, 4, 'multiline', false))),
  regex_search: (args, kw) => regexSearch(str(args[0]), str(args[1]), truthy(arg(args, kw, 2, 'ignorecase', false)), truthy(arg(args, kw, 3, 'multiline', false)), false),
  regex_match: (args, kw) => regexSearch(str(args[0]), str(args[1]), truthy(arg(args, kw, 2, 'ignorecase', false)), truthy(arg(args, kw, 3, 'multiline', false)), true),
  regex_escape: ([v]) => regexEscape(str(v)),
  traverse: (args, kw) => traverse(args[0], args[1], arg(args, kw, 2, 'default', null), String(arg(args, kw, 3, 'delimiter', ':'))),
  unique: ([v]) => unique(v),
  // Salt overrides Jinja2's min/max with Python's min()/max(): case-sensitive, no attribute=
  min: ([v]) => extreme(v, -1),
  max: ([v]) => extreme(v, 1),
  avg: ([v]) => {
    const items = listOnly(v, 'avg');
    if (items.length === 0) throw new PyError('ZeroDivisionError: division by zero');
    return mkFloat(num(items.reduce((a: unknown, b) => binop('+', a, b), 0)) / items.length);
  },
  union: ([a, b]) => unique([...listOnly(a, 'union'), ...listOnly(b, 'union')]),
  intersect: ([a, b]) => unique(listOnly(a, 'intersect').filter((x) => contains(listOnly(b, 'intersect'), x))),
  difference: ([a, b]) => unique(listOnly(a, 'difference').filter((x) => !contains(listOnly(b, 'difference'), x))),
  symmetric_difference: ([a, b]) => {
    const l1 = listOnly(a, 'symmetric_difference');
    const l2 = listOnly(b, 'symmetric_difference');
    const both = l1.filter((x) => contains(l2, x));
    return unique([...l1, ...l2].filter((x) => !contains(both, x)));
  },
  skip: () => '',
  uuid: ([v]) => uuid5(str(v)),
  // salt.utils.jinja.ensure_sequence_filter: anything but a list, tuple or dict is wrapped
  sequence: ([v]) => (Array.isArray(v) || isDict(v) ? v : [v]),
  // salt.utils.jinja.to_bool
  to_bool: ([v]) => {
    if (v === null || v === undefined) return false;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' || isSafeString(v)) return ['yes', '1', 'true'].includes(str(v).toLowerCase());
    if (typeof v === 'number' && Number.isInteger(v)) return v > 0;
    if ((Array.isArray(v) && !isTuple(v)) || isDict(v)) return len(v) > 0;
    return false;
  },
  load_yaml: ([v]) => loadYaml(str(v), mkFloat, { keyOrder: recordKeyOrder }),
  load_json: ([v]) => JSON.parse(str(v)),
  load_text: ([v]) => str(v),
  md5: ([v]) => createHash('md5').update(str(v)).digest('hex'),
  sha1: ([v]) => createHash('sha1').update(str(v)).digest('hex'),
  sha256: ([v]) => createHash('sha256').update(str(v)).digest('hex'),
  sha512: ([v]) => createHash('sha512').update(str(v)).digest('hex'),
  base64_encode: ([v]) => Buffer.from(str(v), 'utf8').toString('base64'),
  base64_decode: ([v]) => Buffer.from(str(v), 'base64').toString('utf8'),
  quote: ([v]) => {
    const s = str(v);
    if (s === '') return "''";
    return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\"'\"'")}'`;
  },
};

Object.assign(MORE_FILTERS, SALT_FILTERS);
