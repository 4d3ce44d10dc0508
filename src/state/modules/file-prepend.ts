// file.prepend: lines of text are in the file, inserted at its top when missing (Salt's
// salt/states/file.py prepend: a chunk found anywhere in the file, whitespace aside, is not added
// again; with header: True the file's first lines must equal the text exactly).

import { defineState } from '../types.js';
import { checkAbsolute, failed } from './file-result.js';
import { editTextFile, joinLines, textLines } from './file-text-edit.js';

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Pure: the text with the missing chunks' lines put first, and how many lines that added. */
export function prependMissing(text: string, chunks: readonly string[], header: boolean): { text: string; added: number } {
  const haystack = squash(text);
  const preface: string[] = [];
  for (const chunk of chunks) {
    if (!header && haystack.includes(squash(chunk))) continue;
    preface.push(...textLines(chunk));
  }
  if (preface.length === 0) return { text, added: 0 };
  // header: True compares the file's first lines verbatim, and leaves a file that starts with them alone
  if (header && textLines(text).slice(0, preface.length).join('\n') === preface.join('\n')) return { text, added: 0 };
  return { text: joinLines(preface) + text, added: preface.length };
}

export const filePrepend = defineState({
  name: 'file.prepend',
  doc: 'Make sure the given lines are in a file, inserting those that are missing at its top.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path (created if missing)' },
    { name: 'text', type: 'any', required: true, doc: 'a line (or block) of text, or a list of them' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
    { name: 'header', type: 'bool', default: false, doc: "the file's first lines must be exactly the text (else a chunk anywhere in the file counts)" },
    { name: 'ignore_whitespace', type: 'bool', default: true, doc: 'accepted as Salt does; chunks are always compared with whitespace squashed unless header' },
  ],
  example: '/opt/tool/bin/run.py:\n  file.prepend:\n    - text: "#!/opt/tool/bin/python3"\n    - header: True',
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
        const r = prependMissing(text, chunks, a.header);
        added = r.added;
        return r.text;
      },
      // Salt's comments (file.prepend): "Prepended N lines", "File X is in correct state"
      comments: () => ({ unchanged: `File ${name} is in correct state`, changed: `Prepended ${added} lines`, test: `File ${name} is set to be updated` }),
    });
  },
});
