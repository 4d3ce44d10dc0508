// Generates the state function reference in docs/states.md from the declarations (name, doc,
// params, example), between two markers so the hand-written rest of the page stays editable;
// a unit test fails when the committed page differs from this output.

import { readFileSync, writeFileSync } from 'node:fs';
import type { ParamSpec } from '../modules/index.js';
import { builtinStateFunctions } from './modules/index.js';
import type { StateFunction } from './types.js';

export const STATES_DOC_BEGIN = '<!-- BEGIN generated state functions -->';
export const STATES_DOC_END = '<!-- END generated state functions -->';
export const REGENERATE_STATES_DOC_COMMAND = 'npm run docs:states';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function code(text: string): string {
  // A backtick inside the value needs a longer fence (CommonMark code spans).
  const fence = text.includes('`') ? '``' : '`';
  return fence === '`' ? `\`${text}\`` : `\`\` ${text} \`\``;
}

function defaultCell(p: ParamSpec): string {
  if (p.default === undefined) return '';
  return code(typeof p.default === 'string' ? (p.default === '' ? '""' : p.default) : JSON.stringify(p.default));
}

function paramRow(p: ParamSpec): string {
  return `| ${code(p.name)} | ${p.type} | ${cell(defaultCell(p))} | ${p.required ? 'yes' : 'no'} | ${cell(p.doc ?? '')} |`;
}

/** Markdown's heading anchor for `### file.managed`: `filemanaged`. */
function anchor(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_ -]/g, '');
}

function section(fn: StateFunction): string {
  const lines = [`### ${fn.name}`, '', fn.doc, ''];
  if (fn.params.length > 0) {
    lines.push('| argument | type | default | required | meaning |', '|---|---|---|---|---|', ...fn.params.map(paramRow), '');
  } else lines.push('No arguments of its own.', '');
  if (fn.kwargs) lines.push('Further `key: value` arguments are accepted and passed on.', '');
  if (fn.modWatch) lines.push('Has a `mod_watch`: a `watch` requisite that reports changes runs it instead (see [requisites](requisites.md)).', '');
  lines.push('```yaml', fn.example.trimEnd(), '```', '');
  return lines.join('\n');
}

/** The generated part, markers included: an index line per module, then one section per function. */
export function renderStateFunctions(fns: readonly StateFunction[]): string {
  const sorted = [...fns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out = [STATES_DOC_BEGIN, `<!-- Generated from the state functions' declarations (src/state/docs.ts); do not edit by hand. Regenerate with: ${REGENERATE_STATES_DOC_COMMAND} -->`, ''];
  if (sorted.length === 0) out.push('*(No state functions are registered yet.)*', '');
  const modules = new Map<string, StateFunction[]>();
  for (const fn of sorted) {
    const mod = fn.name.split('.')[0] ?? fn.name;
    modules.set(mod, [...(modules.get(mod) ?? []), fn]);
  }
  for (const [mod, list] of modules) out.push(`- **${mod}**: ${list.map((fn) => `[${fn.name}](#${anchor(fn.name)})`).join(', ')}`);
  if (modules.size > 0) out.push('');
  for (const fn of sorted) out.push(section(fn));
  out.push(STATES_DOC_END);
  return out.join('\n');
}

/** `doc` with its generated part replaced; an Error when the markers are missing or out of order. */
export function spliceStatesDoc(doc: string, fns: readonly StateFunction[]): string {
  const begin = doc.indexOf(STATES_DOC_BEGIN);
  const end = doc.indexOf(STATES_DOC_END);
  if (begin < 0 || end < begin) throw new Error(`docs/states.md must contain '${STATES_DOC_BEGIN}' followed by '${STATES_DOC_END}'; put them back where the reference goes`);
  return doc.slice(0, begin) + renderStateFunctions(fns) + doc.slice(end + STATES_DOC_END.length);
}

/** The generated part of a page (markers included), for the sync test. */
export function generatedPart(doc: string): string | undefined {
  const begin = doc.indexOf(STATES_DOC_BEGIN);
  const end = doc.indexOf(STATES_DOC_END);
  return begin < 0 || end < begin ? undefined : doc.slice(begin, end + STATES_DOC_END.length);
}

/** Rewrites the reference in the given page with the built-in state functions (npm run docs:states). */
export function updateStatesDoc(file = 'docs/states.md'): void {
  writeFileSync(file, spliceStatesDoc(readFileSync(file, 'utf8'), builtinStateFunctions));
}
