// YAML as Salt loads it (salt.utils.yamlloader.SaltYamlSafeLoader, built on PyYAML's SafeLoader):
// YAML 1.1 scalars (yes/no/on/off are booleans, 1e3 without a dot is a string), timestamps stay
// strings, a mapping with a duplicate key is an error, and `0755` is the int 755 (Salt strips the
// leading zeros; file states read it as the octal digits). Salt's yaml serializer
// (salt.serializers.yaml) is plain PyYAML, where `0755` is 493: `octal: 'pyyaml'`.

import type { DocumentOptions, ParseOptions, ScalarTag, SchemaOptions, Tags } from 'yaml';
import { BAIL, fastLoadYaml } from '../util/yaml-fast.js';
import { indentFlowContinuations } from './yaml-flow-indent.js';
import { pyyamlAnchorNames } from './yaml-anchor-names.js';
import { yamlPackage } from '../util/yaml-package.js';
import { type OctalRule, PY_FALSE, PY_FLOAT, PY_INT_DEC, PY_INT_TIME, PY_TRUE, pyFloat, resolvePyYamlScalar, saltOctalInt } from '../util/yaml-scalars.js';

// the package is loaded on first use (util/yaml-package.ts): most SLS texts take the fast path

export interface YamlProblem {
  message: string;
  line: number;
  col: number;
}

/** A YAML syntax or construction error with its 1-based position. */
export class YamlLoadError extends Error {
  constructor(readonly problem: YamlProblem) {
    super(problem.message);
    this.name = 'YamlLoadError';
  }
}

function tagsFor(makeFloat: (n: number) => unknown, octal: OctalRule): (tags: Tags) => Tags {
  return (tags) => {
    const kept = tags
      .filter((t) => {
        const name = typeof t === 'string' ? t : t.tag;
        return name !== 'tag:yaml.org,2002:timestamp' && name !== 'tag:yaml.org,2002:bool' && name !== 'tag:yaml.org,2002:float';
      })
      .map((t) => (typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:int' ? t : pyIntTag(t as ScalarTag, octal)));
    const bools: ScalarTag[] = [
      { identify: (v) => v === true, default: true, tag: 'tag:yaml.org,2002:bool', test: PY_TRUE, resolve: () => true },
      { identify: (v) => v === false, default: true, tag: 'tag:yaml.org,2002:bool', test: PY_FALSE, resolve: () => false },
    ];
    const float: ScalarTag = {
      identify: (v) => typeof v === 'number' && !Number.isInteger(v),
      default: true,
      tag: 'tag:yaml.org,2002:float',
      test: PY_FLOAT,
      resolve: (s: string) => makeFloat(pyFloat(s)) as number,
    };
    return [...bools, float, ...kept];
  };
}

/**
 * The 1.1 schema's int tags as PyYAML resolves ints: a decimal or sexagesimal int does not start
 * with 0 (`0789` and `01:30` are strings), and under Salt's rule an octal int has its leading zeros
 * stripped first (SaltYamlSafeLoader.construct_scalar).
 */
function pyIntTag(t: ScalarTag, octal: OctalRule): ScalarTag {
  if (t.format === 'OCT' && octal === 'salt') {
    const resolve = t.resolve;
    return { ...t, resolve: (s, onError, opt) => (s.startsWith('0') ? saltOctalInt(s) : resolve(s, onError, opt)) };
  }
  if (t.format === undefined) return { ...t, test: PY_INT_DEC };
  if (t.format === 'TIME') return { ...t, test: PY_INT_TIME };
  return t;
}

const identity = (n: number): number => n;
const plainTags = { salt: tagsFor(identity, 'salt'), pyyaml: tagsFor(identity, 'pyyaml') };
const cache = new Map<string, Map<(n: number) => unknown, (tags: Tags) => Tags>>([
  ['salt', new Map()],
  ['pyyaml', new Map()],
]);

function parseOptions(customTags: (tags: Tags) => Tags): ParseOptions & DocumentOptions & SchemaOptions {
  return { version: '1.1', schema: 'yaml-1.1', customTags, uniqueKeys: true, merge: true, prettyErrors: false, intAsBigInt: false };
}

/** The options of the full parse of plain loading (tests compare the fast path with it). */
export function plainParseOptions(octal: OctalRule = 'salt'): ParseOptions & DocumentOptions & SchemaOptions {
  return parseOptions(plainTags[octal]);
}

/**
 * Loads one YAML document as Salt does. `makeFloat` lets the template engine keep `2.0` a float;
 * an empty document is null. Throws YamlLoadError with the line and column.
 */
export function loadYaml(text: string, makeFloat?: (n: number) => unknown, opts: { stringIds?: boolean; keyOrder?: KeyOrderHook; octal?: OctalRule } = {}): unknown {
  text = pyyamlAnchorNames(text);
  const octal = opts.octal ?? 'salt';
  let customTags = plainTags[octal];
  if (makeFloat) {
    const byFloat = cache.get(octal)!;
    customTags = byFloat.get(makeFloat) ?? tagsFor(makeFloat, octal);
    byFloat.set(makeFloat, customTags);
  } else {
    // plain block YAML (nearly every rendered SLS) without the full parser; it bails on anything
    // else, and on any error, so that the full parser below decides and reports those
    const fast = octal === 'salt' ? fastLoadYaml(text) : fastLoadYaml(text, resolvePyYamlScalar);
    if (fast !== BAIL) return fast;
  }
  const { isMap, isScalar, parseDocument } = yamlPackage();
  let doc = parseDocument(text, parseOptions(customTags));
  if (doc.errors.length > 0) {
    // a flow collection or quoted scalar continued on lines PyYAML accepts and the yaml package
    // does not: the re-indented text is used only if it loads cleanly, else the first error stands
    const fixed = indentFlowContinuations(text);
    if (fixed !== undefined) {
      const again = parseDocument(fixed, parseOptions(customTags));
      if (again.errors.length === 0) {
        doc = again;
        text = fixed;
      }
    }
  }
  const err = doc.errors[0];
  if (err) {
    const offset = err.pos[0];
    const before = text.slice(0, offset);
    const pos = { line: before.split('\n').length, col: offset - before.lastIndexOf('\n') };
    const message = err.code === 'DUPLICATE_KEY' ? `duplicate key in a mapping (Salt's loader refuses it): ${err.message.split('\n')[0]}` : err.message.split('\n')[0]!;
    throw new YamlLoadError({ message, line: pos.line, col: pos.col });
  }
  if (opts.stringIds && isMap(doc.contents)) {
    // Salt's state compiler refuses an ID that YAML read as a bool, number or null (`yes:`, `80:`)
    for (const pair of doc.contents.items) {
      const key = pair.key;
      if (isScalar(key) && typeof key.value !== 'string') {
        const offset = key.range?.[0] ?? 0;
        const before = text.slice(0, offset);
        const shown = key.value === true ? 'True' : key.value === false ? 'False' : key.value === null ? 'None' : String(key.value);
        const type = typeof key.value === 'boolean' ? 'bool' : key.value === null ? 'NoneType' : Number.isInteger(key.value) ? 'int' : 'float';
        throw new YamlLoadError({
          message: `ID '${shown}' is not formed as a string, but is a ${type}: quote it (YAML 1.1 reads ${JSON.stringify(key.source ?? shown)} as a ${type})`,
          line: before.split('\n').length,
          col: offset - before.lastIndexOf('\n'),
        });
      }
    }
  }
  if (!text.endsWith('\n')) unclipFinalBlockScalar(doc, text.length);
  const data = doc.toJS({ maxAliasCount: 1000 }) ?? null;
  if (opts.keyOrder && DIGIT_KEY.test(text)) reportKeyOrder(doc.contents, data, opts.keyOrder);
  return data;
}

/** Told each mapping's keys in the document's order (JS objects list integer-like keys first). */
export type KeyOrderHook = (obj: object, keys: string[]) => void;

/** A mapping key that is all digits, quoted or not: only then can JS's key order differ. */
const DIGIT_KEY = /(^|[{,])[ \t-]*["']?\d+["']?[ \t]*:/m;

function reportKeyOrder(node: unknown, value: unknown, hook: KeyOrderHook): void {
  const { isMap, isScalar, isSeq } = yamlPackage();
  if (isMap(node) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = node.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : String(pair.key)));
    hook(value, keys);
    for (const [i, pair] of node.items.entries()) reportKeyOrder(pair.value, (value as Record<string, unknown>)[keys[i]!], hook);
  } else if (isSeq(node) && Array.isArray(value)) {
    for (const [i, item] of node.items.entries()) reportKeyOrder(item, value[i], hook);
  }
}

/**
 * A `|` or `>` scalar that ends the text without a final line break has no trailing newline in
 * PyYAML (clip keeps a break only if there is one); the yaml package adds one. Jinja2 drops the
 * last newline of an imported file, so `import_yaml` of a file ending in a key block meets this.
 */
function unclipFinalBlockScalar(doc: ReturnType<ReturnType<typeof yamlPackage>['parseDocument']>, end: number): void {
  const { isScalar, visit } = yamlPackage();
  visit(doc, {
    Scalar(_key, node) {
      if (!isScalar(node) || (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED')) return;
      const range = node.range;
      if (!range || range[1] < end || typeof node.value !== 'string') return;
      const header = node.srcToken && 'props' in node.srcToken ? node.srcToken.props.map((p) => ('source' in p ? p.source : '')).join('') : '';
      if (header.includes('+') || header.includes('-')) return;
      node.value = node.value.replace(/\n$/, '');
    },
  });
}
