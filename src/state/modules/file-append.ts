// file.append: lines of text are in the file, appended at its end when missing (whitespace
// differences ignored by default, as Salt's ignore_whitespace).

import { defineState } from '../types.js';
import { checkAbsolute, failed } from './file-result.js';
import { editTextFile, textLines } from './file-text-edit.js';

function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Pure: the text with each missing chunk's lines appended (a missing final newline added first). */
export function appendMissing(text: string, chunks: readonly string[], ignoreWhitespace: boolean): string {
  const haystack = ignoreWhitespace ? squash(text) : text;
  const add: string[] = [];
  for (const chunk of chunks) {
    const needle = ignoreWhitespace ? squash(chunk) : chunk;
    if (needle === '' || haystack.includes(needle)) continue;
    add.push(...textLines(chunk));
  }
  if (add.length === 0) return text;
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  return `${text}${sep}${add.map((l) => `${l}\n`).join('')}`;
}

export const fileAppend = defineState({
  name: 'file.append',
  doc: 'Make sure the given lines are in a file, appending those that are missing.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path (created if missing)' },
    { name: 'text', type: 'any', required: true, doc: 'a line (or block) of text, or a list of them' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
    { name: 'ignore_whitespace', type: 'bool', default: true, doc: 'a chunk already present with other whitespace counts as present' },
  ],
  example: '/etc/motd:\n  file.append:\n    - text:\n      - Managed by brine\n      - Authorised use only',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const chunks = (Array.isArray(a.text) ? a.text : [a.text]).map((t) => (typeof t === 'string' ? t : String(t)));
    let added = 0;
    return editTextFile(ctx, {
      name,
      createMissing: true,
      makedirs: a.makedirs,
      edit: (text) => {
        const out = appendMissing(text, chunks, a.ignore_whitespace);
        added = textLines(out).length - textLines(text).length;
        return out;
      },
      comments: () => ({ unchanged: `File ${name} is in correct state`, changed: `Appended ${added} lines`, test: `File ${name} is set to be updated` }),
    });
  },
});
