// file.line: edit one line of a file in place (ensure, replace, insert, delete), reporting a diff.

import { defineState } from '../types.js';
import { editLines, isLineMode } from './file-line-edit.js';
import { checkAbsolute, errorText, failed } from './file-result.js';
import { editTextFile, joinLines, textLines } from './file-text-edit.js';

export const fileLine = defineState({
  name: 'file.line',
  doc: 'Edit a line in a file: ensure it, replace or delete matching lines, or insert it before/after a line.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the file' },
    { name: 'content', type: 'string', doc: 'the line to place (not needed for delete)' },
    { name: 'match', type: 'string', doc: 'regex (or fragment) selecting the lines to replace or delete (default: content)' },
    { name: 'mode', type: 'string', required: true, doc: 'ensure, replace, insert or delete' },
    { name: 'location', type: 'string', doc: 'insert: start or end (wins over before/after)' },
    { name: 'before', type: 'string', doc: 'regex (or fragment) of the line the content goes before' },
    { name: 'after', type: 'string', doc: 'regex (or fragment) of the line the content goes after' },
    { name: 'show_changes', type: 'bool', default: true, doc: 'put a unified diff in changes' },
    { name: 'backup', type: 'any', default: false, doc: "suffix of a copy of the old file (e.g. '.bak'), 'minion', or false" },
    { name: 'indent', type: 'bool', default: true, doc: 'give the new line the indentation of its neighbour' },
    { name: 'create', type: 'bool', default: false, doc: 'create the file when missing' },
  ],
  example: '/etc/ssh/sshd_config:\n  file.line:\n    - mode: replace\n    - match: ^#?PermitRootLogin\n    - content: PermitRootLogin no',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const mode = a.mode.toLowerCase();
    if (!isLineMode(mode)) return failed(name, `Mode '${a.mode}' is not supported; use ensure, replace, insert or delete`);
    return editTextFile(ctx, {
      name,
      createMissing: a.create,
      backup: a.backup === false ? undefined : String(a.backup),
      showChanges: a.show_changes,
      edit: (text) => {
        try {
          const lines = textLines(text);
          const out = editLines(lines, { content: a.content, match: a.match, mode, location: a.location, before: a.before, after: a.after, indent: a.indent });
          if (!Array.isArray(out)) return out;
          return out.length === lines.length && out.every((l, i) => l === lines[i]) ? text : joinLines(out);
        } catch (err) {
          return { error: errorText(err) };
        }
      },
      comments: () => ({ unchanged: 'No changes needed to be made', changed: 'Changes were made', test: 'Changes would be made' }),
    });
  },
});
