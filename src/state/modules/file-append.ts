// file.append: lines of text are in the file, appended at its end when missing. Follows Salt
// 3007's salt/states/file.py append step by step, because scripts parse its return: a missing
// file is touched first (test=True answers with file.touch's report), presence is a line-anchored
// search (whitespace-tolerant by default), and the diff is difflib over the file's lines.

import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unifiedDiffLines } from '../../modules/unified-diff.js';
import { defineState, type StateResult } from '../types.js';
import { checkAbsolute, errorText, failed } from './file-result.js';
import { makeParents, writeAtomic, writeTarget } from './file-write.js';

/** Python's str.splitlines(): every line break Python knows, no empty last line. */
export function pySplitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * Salt's build_whitespace_split_regex: each line of the chunk as its whitespace-separated words
 * with any whitespace (or none) between and around them, the whole anchored to line starts/ends.
 */
export function whitespaceSplitRegex(chunk: string): RegExp {
  let body = '';
  for (const line of pySplitLines(chunk)) {
    const parts = line
      .split(/\s+/)
      .filter((w) => w !== '')
      .map(escapeRe);
    body += `(?:\\s+)?${parts.join('(?:\\s+)?')}(?:\\s+)?`;
  }
  return new RegExp(`^${body}$`, 'm');
}

/** Whether Salt's file.search would find the chunk (without ignore_whitespace the chunk is a regex). */
export function chunkPresent(text: string, chunk: string, ignoreWhitespace: boolean): boolean {
  if (ignoreWhitespace) return whitespaceSplitRegex(chunk).test(text);
  try {
    return new RegExp(chunk, 'm').test(text);
  } catch {
    // a chunk that is not a valid (JavaScript) regex is looked for literally
    return text.includes(chunk);
  }
}

/** The lines to append: those of every chunk not already present (Salt's append_lines). */
export function linesToAppend(text: string, chunks: readonly string[], ignoreWhitespace: boolean): string[] {
  const out: string[] = [];
  for (const chunk of chunks) {
    if (chunkPresent(text, chunk, ignoreWhitespace)) continue;
    out.push(...pySplitLines(chunk));
  }
  return out;
}

/** Salt's file.append module: a final newline first if the file lacks one, then each line and a newline. */
export function appendLines(text: string, lines: readonly string[]): string {
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  return `${text}${sep}${lines.map((l) => `${l}\n`).join('')}`;
}

/** changes.diff as Salt builds it: "\n".join(difflib.unified_diff(old_lines, new_lines)). */
export function appendDiff(before: readonly string[], after: readonly string[]): string {
  return unifiedDiffLines(before, after).join('\n');
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
  run: async (ctx, { named: a }): Promise<StateResult> => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const chunks = (Array.isArray(a.text) ? a.text : [a.text]).map((t) => (typeof t === 'string' ? t : String(t)));
    try {
      let st = await stat(name).catch(() => undefined);
      if (!st) {
        // Salt touches the file; under test=True it returns file.touch's own report.
        if (ctx.test) return { name, result: null, changes: { new: name }, comment: `File ${name} is set to be created` };
        const dir = path.dirname(name);
        if (a.makedirs) await makeParents(dir);
        // Salt's touch fails without the directory and append then reports the file missing.
        if (!(await stat(dir).catch(() => undefined))?.isDirectory()) return failed(name, `${name}: file not found`);
        await writeFile(name, '', { flag: 'a' });
        st = await stat(name);
      }
      if (!st.isFile()) return failed(name, `${name} is not a regular file`);
      const raw = await readFile(name);
      const binary = raw.subarray(0, 8192).includes(0);
      const before = raw.toString('utf8');
      const add = linesToAppend(before, chunks, a.ignore_whitespace);
      const oldLines = pySplitLines(before);
      const newLines = [...oldLines, ...add];
      const changes: Record<string, unknown> = {};
      if (add.length > 0) changes.diff = binary ? 'Replace binary file' : appendDiff(oldLines, newLines);
      if (ctx.test) {
        if (add.length === 0) return { name, result: true, changes, comment: `File ${name} is in correct state` };
        return { name, result: null, changes, comment: `File ${name} is set to be updated` };
      }
      if (add.length === 0) return { name, result: true, changes, comment: `File ${name} is in correct state` };
      await writeAtomic(await writeTarget(name), appendLines(before, add));
      return { name, result: true, changes, comment: `Appended ${add.length} lines` };
    } catch (err) {
      return failed(name, `Unable to append to ${name}: ${errorText(err)}`);
    }
  },
});
