// file.comment and file.uncomment: prefix the lines a regex matches with a comment character, or
// take it off again. The checks, the edit and the return shapes follow Salt 3007's
// salt/states/file.py (comment, uncomment) and salt/modules/file.py (comment_line, search).

import { readFileSync, statSync } from 'node:fs';
import { compilePythonRegex } from '../../modules/python-regex.js';
import { splitLinesKeepEnds, unifiedDiff } from '../../modules/unified-diff.js';
import type { StateContext, StateResult } from '../types.js';
import { defineState } from '../types.js';
import { checkAbsolute, errorText, failed, pending } from './file-result.js';
import { writeAtomic, writeTarget } from './file-write.js';

const MULTILINE = 8;

/** Salt's file.search(path, pattern, multiline=True): a Python re.search over the whole text. */
function search(fun: string, text: string, pattern: string): boolean {
  return compilePythonRegex(fun, pattern, MULTILINE).test(text);
}

/** Python's str.lstrip(chars): every leading character that is any of `chars`. */
function lstripChars(line: string, chars: string): string {
  let i = 0;
  while (i < line.length && chars.includes(line[i]!)) i++;
  return line.slice(i);
}

/**
 * Pure: Salt's file.comment_line over a text. The regex is matched with Python's re.match on each
 * line (anchored at its start; `$` before the line's newline); commenting prefixes `char`,
 * uncommenting strips every leading character found in `char` (Python's lstrip, as Salt does).
 */
export function commentLines(fun: string, text: string, regex: string, char: string, cmnt: boolean): string {
  const body = regex.replace(/^\^+/, '').replace(/\$+$/, '');
  const end = regex.endsWith('$') ? '$' : '';
  const full = cmnt ? `${regex.startsWith('^') ? '^' : ''}(${body})${end}` : `^${char}\\s*(${body})${end}`;
  const re = compilePythonRegex(fun, `^(?:${full})`, 0);
  return splitLinesKeepEnds(text)
    .map((line) => {
      re.lastIndex = 0;
      if (!re.test(line.replace(/\n$/, ''))) return line;
      return cmnt ? `${char}${line}` : lstripChars(line, char);
    })
    .join('');
}

function readText(name: string): string | { error: string } {
  const st = statSync(name, { throwIfNoEntry: false });
  if (!st) return { error: `${name}: file not found` };
  if (!st.isFile()) return { error: `${name} is not a regular file` };
  return readFileSync(name, 'utf8');
}

/** Writes the edited text (and Salt's backup copy, `<name><backup>`), reporting its diff. */
async function writeEdit(name: string, before: string, after: string, backup: unknown): Promise<Record<string, unknown>> {
  if (after === before) return {};
  const target = await writeTarget(name);
  if (typeof backup === 'string' && backup !== '') await writeAtomic(`${target}${backup}`, before);
  await writeAtomic(target, after);
  return { diff: unifiedDiff(splitLinesKeepEnds(before), splitLinesKeepEnds(after)) };
}

interface EditCase {
  fun: string;
  ctx: StateContext;
  rawName: string;
  regex: string;
  char: string;
  backup: unknown;
}

async function commentState(c: EditCase, ignoreMissing: boolean): Promise<StateResult> {
  if (c.rawName === '') return failed('', 'Must provide name to file.comment');
  const abs = checkAbsolute(c.rawName);
  if ('error' in abs) return failed(c.rawName, `Specified file ${c.rawName} is not an absolute path`);
  const name = abs.path;
  try {
    const text = readText(name);
    if (typeof text === 'object') return failed(name, text.error);
    // Salt strips a leading inline flag group, ^ and $ to look for the line anywhere.
    const unanchor = c.regex.replace(/^(\(\?[iLmsux]\))?\^?(.*?)\$?$/, '$2');
    if (!search(c.fun, text, `^(?!\\s*${c.char}).*${unanchor}`)) {
      if (search(c.fun, text, `${c.char}${unanchor}`)) return { name, result: true, changes: {}, comment: 'Pattern already commented' };
      if (ignoreMissing) return { name, result: true, changes: {}, comment: 'Pattern not found and ignore_missing set to True' };
      return failed(name, `${unanchor}: Pattern not found`);
    }
    if (c.ctx.test) return pending(name, `File ${name} is set to be updated`, { [name]: 'updated' });
    const after = commentLines(c.fun, text, c.regex, c.char, true);
    const changes = await writeEdit(name, text, after, c.backup);
    // Salt checks for the commented form (char + pattern) afterwards.
    const ok = search(c.fun, after, `${c.char}${unanchor}`);
    return { name, result: ok, changes, comment: ok ? 'Commented lines successfully' : 'Expected commented lines not found' };
  } catch (err) {
    return failed(name, errorText(err));
  }
}

async function uncommentState(c: EditCase): Promise<StateResult> {
  if (c.rawName === '') return failed('', 'Must provide name to file.uncomment');
  const abs = checkAbsolute(c.rawName);
  if ('error' in abs) return failed(c.rawName, `Specified file ${c.rawName} is not an absolute path`);
  const name = abs.path;
  try {
    const text = readText(name);
    if (typeof text === 'object') return failed(name, text.error);
    const bare = c.regex.replace(/^\^+/, '');
    if (!search(c.fun, text, `${c.char}[ \t]*${bare}`)) {
      if (search(c.fun, text, `^[ \t]*${bare}`)) return { name, result: true, changes: {}, comment: 'Pattern already uncommented' };
      return failed(name, `${c.regex}: Pattern not found`);
    }
    if (c.ctx.test) return pending(name, `File ${name} is set to be updated`, { [name]: 'updated' });
    const after = commentLines(c.fun, text, c.regex, c.char, false);
    const changes = await writeEdit(name, text, after, c.backup);
    const ok = search(c.fun, after, `^[ \t]*${bare}`);
    return { name, result: ok, changes, comment: ok ? 'Uncommented lines successfully' : 'Expected uncommented lines not found' };
  } catch (err) {
    return failed(name, errorText(err));
  }
}

const COMMON = [
  { name: 'name', type: 'string', required: true, doc: 'absolute path of the file' },
  { name: 'regex', type: 'string', required: true, doc: 'Python regular expression of the lines; ^ and $ anchor it to the line' },
  { name: 'char', type: 'string', default: '#', doc: 'the comment character (or string)' },
  { name: 'backup', type: 'any', default: '.bak', doc: 'suffix of a copy of the old file beside it, or false/empty for none' },
] as const;

export const fileComment = defineState({
  name: 'file.comment',
  doc: 'Comment out the lines of a file that match a regular expression.',
  params: [...COMMON, { name: 'ignore_missing', type: 'bool', default: false, doc: 'succeed when the pattern is not in the file at all' }],
  example: '/etc/fstab:\n  file.comment:\n    - regex: ^bind 127.0.0.1',
  run: (ctx, { named: a }) => commentState({ fun: 'file.comment', ctx, rawName: a.name, regex: a.regex, char: a.char, backup: a.backup }, a.ignore_missing),
});

export const fileUncomment = defineState({
  name: 'file.uncomment',
  doc: 'Uncomment the lines of a file that match a regular expression.',
  params: [...COMMON],
  example: '/etc/adduser.conf:\n  file.uncomment:\n    - regex: EXTRA_GROUPS',
  run: (ctx, { named: a }) => uncommentState({ fun: 'file.uncomment', ctx, rawName: a.name, regex: a.regex, char: a.char, backup: a.backup }),
});
