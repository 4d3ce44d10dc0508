// file.blockreplace: the text between two marker lines is exactly `content`.

import { defineState } from '../types.js';
import { withAccumulatedContent } from './file-accumulated.js';
import { replaceBlock } from './file-block-edit.js';
import { checkAbsolute, failed } from './file-result.js';
import { editTextFile, joinLines, textLines } from './file-text-edit.js';

export const fileBlockreplace = defineState({
  name: 'file.blockreplace',
  doc: 'Maintain a block of text between a start and an end marker line in a file.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the file' },
    { name: 'marker_start', type: 'string', default: '#-- start managed zone --', doc: 'text of the line that opens the block' },
    { name: 'marker_end', type: 'string', default: '#-- end managed zone --', doc: 'text of the line that closes the block' },
    { name: 'content', type: 'string', default: '', doc: 'what goes between the markers' },
    { name: 'append_if_not_found', type: 'bool', default: false, doc: 'append the block (with markers) when the markers are missing' },
    { name: 'prepend_if_not_found', type: 'bool', default: false, doc: 'prepend it instead' },
    { name: 'show_changes', type: 'bool', default: true, doc: 'put a unified diff in changes' },
    { name: 'backup', type: 'any', default: '.bak', doc: "suffix of a copy of the old file, 'minion', or false" },
    { name: 'append_newline', type: 'bool', default: true, doc: 'end the content with a newline' },
  ],
  example:
    '/etc/hosts:\n  file.blockreplace:\n    - marker_start: "# BEGIN brine managed"\n    - marker_end: "# END brine managed"\n    - content: |\n        10.0.0.10 db1\n        10.0.0.11 db2\n    - append_if_not_found: True',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    if (a.append_if_not_found && a.prepend_if_not_found) return failed(name, 'Only one of append_if_not_found and prepend_if_not_found is permitted');
    return editTextFile(ctx, {
      name,
      createMissing: false,
      backup: a.backup === false ? undefined : String(a.backup),
      showChanges: a.show_changes,
      edit: (text) => {
        const lines = textLines(text);
        const out = replaceBlock(lines, {
          markerStart: a.marker_start,
          markerEnd: a.marker_end,
          content: withAccumulatedContent(ctx, name, a.content),
          appendIfNotFound: a.append_if_not_found,
          prependIfNotFound: a.prepend_if_not_found,
          appendNewline: a.append_newline,
        });
        if (!Array.isArray(out)) return out;
        return out.length === lines.length && out.every((l, i) => l === lines[i]) ? text : joinLines(out);
      },
      comments: () => ({ unchanged: 'No changes needed to be made', changed: 'Changes were made', test: 'Changes would be made' }),
    });
  },
});
