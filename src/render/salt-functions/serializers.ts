// The serializers slsutil.serialize/deserialize reach (salt/serializers/json.py and yaml.py):
// json.dumps with Salt's ensure_ascii=False default, and PyYAML's SafeDumper with Salt's
// default_flow_style=None (collections of scalars in flow style, the rest in block style).

import { jsonDumps } from '../jinja/serialize.js';
import { yamlDump } from '../jinja/yaml-emitter.js';
import { isDict, mkFloat, PyError, str, truthy } from '../jinja/py-values.js';
import { loadYaml } from '../yaml-load.js';
import { errorMessage } from '../../util/errors.js';

function isCollection(v: unknown): v is unknown[] | Record<string, unknown> {
  return Array.isArray(v) || isDict(v);
}

function children(v: unknown[] | Record<string, unknown>): unknown[] {
  return Array.isArray(v) ? v : Object.values(v);
}

/** PyYAML's rule for default_flow_style=None: a collection holding no collection is written in flow style. */
function flowLeaf(v: unknown): boolean {
  return !isCollection(v) || children(v).length === 0 || !children(v).some(isCollection);
}

function mixed(v: unknown[] | Record<string, unknown>, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  if (isDict(v)) {
    for (const k of Object.keys(v).sort()) {
      const x = v[k];
      if (flowLeaf(x)) out.push(`${pad}${yamlDump(k, true)}: ${yamlDump(x, true)}`);
      else {
        out.push(`${pad}${yamlDump(k, true)}:`);
        // PyYAML does not indent a sequence under a mapping key
        mixed(x as unknown[] | Record<string, unknown>, Array.isArray(x) ? indent : indent + 2, out);
      }
    }
    return;
  }
  for (const x of v) {
    if (flowLeaf(x)) {
      out.push(`${pad}- ${yamlDump(x, true)}`);
      continue;
    }
    const inner: string[] = [];
    mixed(x as unknown[] | Record<string, unknown>, indent + 2, inner);
    out.push(`${pad}- ${inner[0]!.slice(indent + 2)}`, ...inner.slice(1));
  }
}

function hasNonAscii(v: unknown): boolean {
  if (typeof v === 'string') return /[^\x00-\x7f]/.test(v);
  if (Array.isArray(v)) return v.some(hasNonAscii);
  if (isDict(v)) return Object.entries(v).some(([k, x]) => hasNonAscii(k) || hasNonAscii(x));
  return false;
}

const YAML_OPTIONS = new Set(['default_flow_style', 'allow_unicode', 'Dumper']);
const JSON_OPTIONS = new Set(['indent', 'sort_keys', 'ensure_ascii']);

function refuseOptions(serializer: string, kwargs: Record<string, unknown>, known: Set<string>): void {
  const unknown = Object.keys(kwargs).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new PyError(`slsutil.serialize: the ${serializer} serializer option(s) ${unknown.join(', ')} are not supported by brine (it takes ${[...known].join(', ')})`);
}

function yamlSerialize(obj: unknown, kwargs: Record<string, unknown>): string {
  refuseOptions('yaml', kwargs, YAML_OPTIONS);
  // without allow_unicode PyYAML escapes non-ASCII text in double quotes, which brine does not reproduce
  if (!truthy(kwargs.allow_unicode ?? false) && hasNonAscii(obj)) throw new PyError('slsutil.serialize: yaml output of non-ASCII text needs allow_unicode=True in brine');
  const style = kwargs.default_flow_style ?? null;
  if (style === true) return yamlDump(obj, true);
  if (style === false) return yamlDump(obj, false);
  if (flowLeaf(obj)) return yamlDump(obj, true);
  const out: string[] = [];
  mixed(obj as unknown[] | Record<string, unknown>, 0, out);
  if (out.some((l) => l.length > 80)) throw new PyError('a line of the yaml output would be folded by PyYAML at 80 columns, which brine does not reproduce: use default_flow_style=False or json');
  return out.join('\n');
}

function jsonSerialize(obj: unknown, kwargs: Record<string, unknown>): string {
  refuseOptions('json', kwargs, JSON_OPTIONS);
  const indent = kwargs.indent ?? null;
  if (indent !== null && typeof indent !== 'number') throw new PyError('slsutil.serialize: json indent must be an integer');
  return jsonDumps(obj, { sortKeys: truthy(kwargs.sort_keys ?? false), indent, ensureAscii: truthy(kwargs.ensure_ascii ?? false) });
}

const SERIALIZERS: Record<string, { serialize(obj: unknown, kw: Record<string, unknown>): string; deserialize(text: string): unknown }> = {
  json: { serialize: jsonSerialize, deserialize: (t) => JSON.parse(t) },
  yaml: { serialize: yamlSerialize, deserialize: (t) => loadYaml(t, mkFloat, { octal: 'pyyaml' }) },
};

/** salt.utils.args.clean_kwargs: the loader's own `__pub_*` keys are not serializer options. */
function clean(kwargs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(kwargs).filter(([k]) => !k.startsWith('__')));
}

function serializerOf(name: unknown): (typeof SERIALIZERS)[string] {
  const s = SERIALIZERS[str(name)];
  // Salt's own message (slsutil._get_serialize_fn); brine has json and yaml
  if (!s || !Object.hasOwn(SERIALIZERS, str(name))) throw new PyError(`CommandExecutionError: Serializer '${str(name)}' not found.`);
  return s;
}

export function serialize(serializer: unknown, obj: unknown, kwargs: Record<string, unknown>): string {
  return serializerOf(serializer).serialize(obj, clean(kwargs));
}

export function deserialize(serializer: unknown, text: unknown, kwargs: Record<string, unknown>): unknown {
  const s = serializerOf(serializer);
  if (Object.keys(clean(kwargs)).length > 0) throw new PyError(`slsutil.deserialize: options are not supported by brine (${Object.keys(clean(kwargs)).join(', ')})`);
  try {
    return s.deserialize(str(text));
  } catch (err) {
    throw new PyError(`DeserializationError: ${errorMessage(err)}`);
  }
}
