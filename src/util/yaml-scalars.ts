// How a plain YAML scalar resolves as Salt loads it: PyYAML's bool and float resolvers (which
// yaml-load.ts installs into the `yaml` package's 1.1 schema) and that schema's null and int
// resolvers, in the schema's order. Without the package, so that the fast path (yaml-fast.ts)
// does not load it; test/unit/render/yaml-fast.test.ts checks this against the schema itself.

// PyYAML's implicit resolvers (yaml/resolver.py), which differ from the yaml package's 1.1 schema
export const PY_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
export const PY_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
export const PY_FLOAT = /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function sexagesimal(s: string): number {
  let v = 0;
  for (const part of s.split(':')) v = v * 60 + Number(part);
  return v;
}

export function pyFloat(src: string): number {
  const s = src.replace(/_/g, '').toLowerCase();
  const sign = s.startsWith('-') ? -1 : 1;
  const body = s.replace(/^[-+]/, '');
  if (body === '.inf') return sign * Number.POSITIVE_INFINITY;
  if (body === '.nan') return Number.NaN;
  if (body.includes(':')) return sign * sexagesimal(body);
  return sign * Number(body);
}

// the `yaml` package's yaml-1.1 null and int tags (schema/common/null.js, schema/yaml-1.1/int.js
// and intTime in timestamp.js), with intAsBigInt off as loadYaml parses
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const INT_BIN = /^[-+]?0b[0-1_]+$/;
const INT_OCT = /^[-+]?0[0-7_]+$/;
// PyYAML's decimal and sexagesimal ints do not start with 0 (the package's do): `0789` is a string
export const PY_INT_DEC = /^[-+]?(?:0|[1-9][0-9_]*)$/;
const INT_HEX = /^[-+]?0x[0-9a-fA-F_]+$/;
export const PY_INT_TIME = /^[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+$/;
const MERGE = /^<<$/;

function intResolve(str: string, offset: number, radix: number): number {
  const sign = str[0];
  const from = sign === '-' || sign === '+' ? offset + 1 : offset;
  const n = Number.parseInt(str.substring(from).replace(/_/g, ''), radix);
  return sign === '-' ? -1 * n : n;
}

function intTime(str: string): number {
  const sign = str[0];
  const parts = sign === '-' || sign === '+' ? str.substring(1) : str;
  const res = parts
    .replace(/_/g, '')
    .split(':')
    .reduce((acc, p) => acc * 60 + Number(p), 0);
  return sign === '-' ? -1 * res : res;
}

/**
 * An unsigned `0`-led octal int as Salt's SaltYamlSafeLoader.construct_scalar reads it: the leading
 * zeros are stripped before PyYAML's int constructor sees the text, so `0755` is the decimal 755
 * (which file states then read as the octal digits "755") where PyYAML gives 493. A signed
 * `-0755` is not stripped (the text does not start with 0) and stays octal, as in Salt.
 */
export function saltOctalInt(text: string): number {
  const v = (text.replace(/^0+/, '') || '0').replace(/_/g, '');
  if (v === '' || /^0+$/.test(v)) return 0;
  return v.startsWith('0') ? Number.parseInt(v, 8) : Number.parseInt(v, 10);
}

/** Which int rule applies to `0755`: Salt's SLS/pillar/import_yaml loader, or plain PyYAML (the yaml serializer). */
export type OctalRule = 'salt' | 'pyyaml';

/** Not decided here (a merge key): the caller leaves the text to the full parser. */
export const UNSURE: unique symbol = Symbol('unsure scalar');

/** The value of a plain (unquoted) scalar as Salt's loader gives it; `atKey` when it is a mapping key. */
export function resolvePlainScalar(text: string, atKey: boolean): string | number | boolean | null | typeof UNSURE {
  return resolveScalar(text, atKey, 'salt');
}

/** The value of a plain scalar as PyYAML's SafeLoader gives it (salt.serializers.yaml): `0755` is 493. */
export function resolvePyYamlScalar(text: string, atKey: boolean): string | number | boolean | null | typeof UNSURE {
  return resolveScalar(text, atKey, 'pyyaml');
}

function resolveScalar(text: string, atKey: boolean, octal: OctalRule): string | number | boolean | null | typeof UNSURE {
  if (PY_TRUE.test(text)) return true;
  if (PY_FALSE.test(text)) return false;
  if (PY_FLOAT.test(text)) return pyFloat(text);
  if (NULL.test(text)) return null;
  if (INT_BIN.test(text)) return intResolve(text, 2, 2);
  if (INT_OCT.test(text)) return octal === 'salt' && text.startsWith('0') ? saltOctalInt(text) : intResolve(text, 1, 8);
  if (PY_INT_DEC.test(text)) return intResolve(text, 0, 10);
  if (INT_HEX.test(text)) return intResolve(text, 2, 16);
  if (atKey && MERGE.test(text)) return UNSURE;
  if (PY_INT_TIME.test(text)) return intTime(text);
  return text;
}
