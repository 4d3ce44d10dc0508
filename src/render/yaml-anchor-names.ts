// PyYAML's anchor and alias names are letters, digits, '-' and '_' only (scan_anchor), and the
// name ends at the first other character when that is a space or an indicator (`:` `,` `]` ...).
// The yaml package takes YAML 1.2's wider names, so vim-formula's pillar `&colorcolumn: x` is an
// anchor named "colorcolumn:" there, and a null key with the anchor "colorcolumn" in Salt. This
// finds such tokens through the package's own tokenizer (never inside a quoted or block scalar)
// and ends each name where PyYAML does, by inserting a space.

import { yamlPackage } from '../util/yaml-package.js';

/** A quick test, so that only texts with a name followed by an indicator are tokenized. */
export const SUSPECT_ANCHOR = /(^|[\s[{,])[&*][A-Za-z0-9_-]+[?:,\]}%@`]/m;

/** Characters PyYAML accepts right after a name: they end it. */
const ENDS_NAME = new Set(['?', ':', ',', ']', '}', '%', '@', '`']);

/** Anchor and alias tokens of the text, wherever they sit in the concrete syntax tree. */
function anchorTokens(text: string): { offset: number; source: string }[] {
  const found: { offset: number; source: string }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const t = node as { type?: unknown; offset?: unknown; source?: unknown };
    if ((t.type === 'anchor' || t.type === 'alias') && typeof t.offset === 'number' && typeof t.source === 'string') found.push({ offset: t.offset, source: t.source });
    for (const v of Object.values(node)) if (typeof v === 'object') walk(v);
  };
  const { Parser } = yamlPackage();
  for (const token of new Parser().parse(text)) walk(token);
  return found.sort((a, b) => a.offset - b.offset);
}

/** The text with every anchor or alias name cut where PyYAML cuts it (the same text when none needs it). */
export function pyyamlAnchorNames(text: string): string {
  if (!SUSPECT_ANCHOR.test(text)) return text;
  const cuts: number[] = [];
  for (const tok of anchorTokens(text)) {
    const valid = /^[&*][A-Za-z0-9_-]+/.exec(tok.source)?.[0].length;
    // a name PyYAML refuses outright (`&a.b`) is left to the yaml package
    if (valid !== undefined && valid < tok.source.length && ENDS_NAME.has(tok.source[valid]!)) cuts.push(tok.offset + valid);
  }
  let out = text;
  for (const at of cuts.reverse()) out = `${out.slice(0, at)} ${out.slice(at)}`;
  return out;
}
