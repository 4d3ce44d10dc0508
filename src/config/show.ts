// Renders the effective configuration for `brine config show`: sorted keys, YAML or JSON, and
// optionally where each value came from (a file, 'default', 'derived' or 'command line').

import type { Node, YAMLMap, YAMLSeq } from 'yaml';
import { yamlPackage } from '../util/yaml-package.js';
import { isPlainMapping } from './check-value.js';
import type { LoadedConfig } from './load.js';

/** A copy with the keys of every mapping sorted, so that output is stable and diffable. */
function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (!isPlainMapping(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortDeep(value[k])]),
  );
}

function isEmptyCollection(node: Node): node is YAMLMap | YAMLSeq {
  const { isMap, isSeq } = yamlPackage();
  return (isMap(node) || isSeq(node)) && node.items.length === 0;
}

export function renderConfig(cfg: LoadedConfig, format: 'yaml' | 'json', withSources = false): string {
  const sorted = sortDeep(cfg.opts) as Record<string, unknown>;
  if (format === 'json') {
    if (!withSources) return `${JSON.stringify(sorted, null, 2)}\n`;
    const annotated = Object.fromEntries(Object.entries(sorted).map(([k, v]) => [k, { value: v, source: cfg.sources[k] ?? 'unknown' }]));
    return `${JSON.stringify(annotated, null, 2)}\n`;
  }
  const { Document, isMap, isScalar } = yamlPackage();
  const doc = new Document(sorted);
  if (withSources && isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const note = ` ${cfg.sources[key] ?? 'unknown'}`;
      const value = pair.value as Node | null;
      // Scalars and `{}`/`[]` take the source at the end of the line; block collections above the key.
      if (value !== null && isScalar(value)) value.comment = note;
      else if (value !== null && isEmptyCollection(value)) {
        value.flow = true;
        value.comment = note;
      } else if (isScalar(pair.key)) pair.key.commentBefore = note;
    }
  }
  return doc.toString();
}
