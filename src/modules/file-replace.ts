// file.replace: Salt's regex search-and-replace on a file, with Python patterns, flags and
// templates, append/prepend when not found, a backup, dry runs and a unified diff as return.

import { copyFile, readFile, stat, writeFile } from 'node:fs/promises';
import { BrineError } from '../util/errors.js';
import { absPath, fsError } from './file-common.js';
import { compilePythonRegex, pythonFlags, pythonSubn } from './python-regex.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';
import { splitLinesKeepEnds, unifiedDiff } from './unified-diff.js';

const FUN = 'file.replace';

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export const fileReplaceFunction: ModuleFunction = defineFunction({
  name: FUN,
  doc: 'Replace occurrences of a Python regex in a file; returns a unified diff (show_changes) or whether it changed.',
  // Salt's order, so that positional calls mean the same.
  params: [
    { name: 'path', type: 'string', required: true, doc: 'absolute path of a text file' },
    { name: 'pattern', type: 'string', required: true, doc: 'Python regular expression, matched against the whole file' },
    { name: 'repl', type: 'string', required: true, doc: 'replacement; \\1 and \\g<name> refer to groups' },
    { name: 'count', type: 'int', default: 0, doc: 'most replacements; 0 replaces all' },
    { name: 'flags', type: 'any', default: 8, doc: "Python re flags: an int or names such as ['IGNORECASE', 'MULTILINE'] (default MULTILINE)" },
    { name: 'bufsize', type: 'any', default: 1, doc: 'accepted for compatibility; the whole file is read' },
    { name: 'append_if_not_found', type: 'bool', default: false, doc: 'append not_found_content (or repl) as a line if the pattern is not found' },
    { name: 'prepend_if_not_found', type: 'bool', default: false, doc: 'prepend it instead' },
    { name: 'not_found_content', type: 'string', doc: 'the line to add when not found (default: repl)' },
    { name: 'backup', type: 'any', default: '.bak', doc: 'suffix of a backup copy made before changing the file; false for none' },
    { name: 'dry_run', type: 'bool', default: false, doc: 'report the changes without writing' },
    { name: 'search_only', type: 'bool', default: false, doc: 'only return whether the pattern matches' },
    { name: 'show_changes', type: 'bool', default: true, doc: 'return a diff instead of a boolean' },
    { name: 'ignore_if_missing', type: 'bool', default: false, doc: 'return false instead of failing when the file is missing' },
    { name: 'preserve_inode', type: 'bool', default: true, doc: 'accepted for compatibility; the file is always rewritten in place' },
    { name: 'backslash_literal', type: 'bool', default: false, doc: 'take every backslash in repl literally' },
  ],
  run: async (_ctx, a) => {
    const n = a.named;
    const p = absPath(FUN, n.path);
    const append = n.append_if_not_found;
    const prepend = n.prepend_if_not_found;
    const searchOnly = n.search_only;
    if (searchOnly && (append || prepend)) throw new BrineError('BAD_ARGUMENTS', `${FUN}: search_only cannot be used with append_if_not_found or prepend_if_not_found`);
    if (append && prepend) throw new BrineError('BAD_ARGUMENTS', `${FUN}: only one of append_if_not_found and prepend_if_not_found is permitted`);
    const count = n.count;
    if (count < 0) throw new BrineError('BAD_ARGUMENTS', `${FUN}: count must be 0 (all) or a positive number`);

    const st = await stat(p).catch(() => undefined);
    if (!st) {
      if (n.ignore_if_missing) return false;
      throw new BrineError('EXEC_FAILED', `${FUN}: file not found: ${p}; check the path or pass ignore_if_missing=true`, { details: { path: p } });
    }
    if (!st.isFile()) throw new BrineError('EXEC_FAILED', `${FUN}: path is not a file: ${p}`, { details: { path: p } });

    const flagBits = pythonFlags(FUN, n.flags);
    const re = compilePythonRegex(FUN, n.pattern, flagBits);
    const raw = await readFile(p).catch((e: unknown) => Promise.reject(fsError(FUN, p, e)));
    if (raw.subarray(0, 8192).includes(0)) throw new BrineError('EXEC_FAILED', `${FUN}: cannot perform string replacements on a binary file: ${p}`);
    const original = raw.toString('utf8');

    const repl = n.repl;
    const sub = pythonSubn(FUN, re, repl, original, count, n.backslash_literal);
    let found = sub.n > 0;
    if (searchOnly) return found;

    const content = n.not_found_content ?? repl;
    if (append || prepend) {
      // Already present as a whole line counts as found, so repeated runs add it only once.
      if (new RegExp(`^${escapeRegex(content)}(?:$|(?=\\r\\n))`, flagBits & 2 ? 'mi' : 'm').test(sub.text)) found = true;
    }
    const newLines = splitLinesKeepEnds(sub.text);
    if (!found && (append || prepend)) {
      if (prepend) newLines.unshift(`${content}\n`);
      else {
        const last = newLines.length - 1;
        if (last >= 0 && !newLines[last]!.endsWith('\n')) newLines[last] += '\n';
        newLines.push(`${content}\n`);
      }
    }
    const updated = newLines.join('');
    const hasChanges = updated !== original;

    if (hasChanges && !n.dry_run) {
      const backup = n.backup;
      try {
        if (typeof backup === 'string' && backup !== '') await copyFile(p, p + backup);
        // writeFile truncates and rewrites the same inode, so hard links and owners stay.
        await writeFile(p, updated);
      } catch (e) {
        throw fsError(FUN, p, e);
      }
    }
    if (n.show_changes) return unifiedDiff(splitLinesKeepEnds(original), newLines);
    return hasChanges;
  },
});
