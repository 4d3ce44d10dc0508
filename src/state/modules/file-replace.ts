// file.replace: a Python regex replaced throughout a file, through the `file.replace` execution
// function (dry_run under test=True), reporting its diff as Salt's state does.

import { stat } from 'node:fs/promises';
import { defineState } from '../types.js';
import { checkAbsolute, failed, pending, succeed } from './file-result.js';

export const fileReplace = defineState({
  name: 'file.replace',
  doc: 'Replace a regular expression in a file (optionally adding the line when it is not found).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the file' },
    { name: 'pattern', type: 'string', required: true, doc: 'Python regular expression' },
    { name: 'repl', type: 'string', required: true, doc: 'replacement; \\1 and \\g<name> refer to groups' },
    { name: 'count', type: 'int', default: 0, doc: 'most replacements; 0 replaces all' },
    { name: 'flags', type: 'any', default: 8, doc: 'Python re flags: an int or names (default MULTILINE)' },
    { name: 'append_if_not_found', type: 'bool', default: false, doc: 'append not_found_content (or repl) when the pattern is not found' },
    { name: 'prepend_if_not_found', type: 'bool', default: false, doc: 'prepend it instead' },
    { name: 'not_found_content', type: 'string', doc: 'the line added when not found (default: repl)' },
    { name: 'backup', type: 'any', default: '.bak', doc: 'suffix of a copy of the old file, or false' },
    { name: 'show_changes', type: 'bool', default: true, doc: 'put a unified diff in changes' },
    { name: 'ignore_if_missing', type: 'bool', default: false, doc: 'succeed without changes when the file is missing' },
    { name: 'backslash_literal', type: 'bool', default: false, doc: 'take every backslash in repl literally' },
  ],
  example: '/etc/default/grub:\n  file.replace:\n    - pattern: ^GRUB_TIMEOUT=.*$\n    - repl: GRUB_TIMEOUT=2\n    - append_if_not_found: True',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    if (!(await stat(name).catch(() => undefined))?.isFile()) {
      if (a.ignore_if_missing) return succeed(name, 'No changes needed to be made since file not found');
      return failed(name, `${name}: file not found; create it first (file.managed) or set ignore_if_missing: True`);
    }
    const r = await ctx.call('file.replace', [name, a.pattern, a.repl], {
      count: a.count,
      flags: a.flags,
      append_if_not_found: a.append_if_not_found,
      prepend_if_not_found: a.prepend_if_not_found,
      not_found_content: a.not_found_content,
      backup: a.backup,
      dry_run: ctx.test,
      show_changes: true,
      backslash_literal: a.backslash_literal,
    });
    if (!r.success) return failed(name, r.error?.message ?? String(r.return));
    const diff = typeof r.return === 'string' ? r.return : '';
    if (diff === '') return succeed(name, 'No changes needed to be made');
    const changes = { diff: a.show_changes ? diff : '<show_changes=False>' };
    if (ctx.test) return pending(name, 'Changes would have been made', changes);
    return succeed(name, 'Changes were made', changes);
  },
});
