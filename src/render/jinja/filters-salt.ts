// The filters Salt adds to Jinja (salt/utils/jinja.py and salt/utils/*): serializers, regex,
// traverse, unique, sequence, hashes and friends.

import { createHash } from 'node:crypto';
import { loadYaml } from '../yaml-load.js';
import { type Filter, MORE_FILTERS } from './filters-jinja.js';
import { regexEscape, regexReplace, regexSearch } from './regex.js';
import { traverse } from './salt-layer.js';
import { jsonDumps, yamlBlockDump, yamlDquote, yamlEncode, yamlFlowDump, yamlSquote } from './serialize.js';
import { eq, iter, mkFloat, PyError, str, truthy } from './py-values.js';

function arg(args: unknown[], kw: Record<string, unknown>, i: number, name: string, dflt: unknown): unknown {
  if (args.length > i) return args[i];
  return Object.hasOwn(kw, name) ? kw[name] : dflt;
}

function indentOf(v: unknown): number | null {
  return v === undefined || v === null ? null : Number(v);
}

export const SALT_FILTERS: Record<string, Filter> = {
  json: (args, kw) => jsonDumps(args[0], { sortKeys: truthy(arg(args, kw, 1, 'sort_keys', true)), indent: indentOf(arg(args, kw, 2, 'indent', null)), ensureAscii: true }).trim(),
  tojson: (args, kw) =>
    jsonDumps(args[0], { sortKeys: false, indent: indentOf(arg(args, kw, 1, 'indent', null)), ensureAscii: true })
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/'/g, '\\u0027'),
  yaml: (args, kw) => (truthy(arg(args, kw, 1, 'flow_style', true)) ? yamlFlowDump(args[0]) : yamlBlockDump(args[0])),
  yaml_encode: ([v]) => yamlEncode(v),
  yaml_dquote: ([v]) => yamlDquote(str(v)),
  yaml_squote: ([v]) => yamlSquote(str(v)),
  regex_replace: (args, kw) => regexReplace(str(args[0]), str(args[1]), str(args[2]), truthy(arg(args, kw, 3, 'ignorecase', false)), truthy(arg(args, kw, 4, 'multiline', false))),
  regex_search: (args, kw) => regexSearch(str(args[0]), str(args[1]), truthy(arg(args, kw, 2, 'ignorecase', false)), truthy(arg(args, kw, 3, 'multiline', false)), false),
  regex_match: (args, kw) => regexSearch(str(args[0]), str(args[1]), truthy(arg(args, kw, 2, 'ignorecase', false)), truthy(arg(args, kw, 3, 'multiline', false)), true),
  regex_escape: ([v]) => regexEscape(str(v)),
  traverse: (args, kw) => traverse(args[0], args[1], arg(args, kw, 2, 'default', null), String(arg(args, kw, 3, 'delimiter', ':'))),
  unique: ([v]) => {
    if (typeof v === 'string') throw new PyError('unique of a string gives an unordered set in Salt; brine refuses it');
    const out: unknown[] = [];
    for (const x of iter(v)) if (!out.some((y) => eq(x, y))) out.push(x);
    return out;
  },
  sequence: ([v]) => (typeof v === 'string' ? [v] : v),
  to_bool: ([v]) => {
    if (v === null || v === undefined) return false;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v > 0;
    if (typeof v === 'string') return ['true', '1', 'yes', 'on'].includes(v.toLowerCase());
    return truthy(v);
  },
  load_yaml: ([v]) => loadYaml(str(v), mkFloat),
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
