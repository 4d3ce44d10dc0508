// The pure line edit behind file.line (Salt's file.line modes ensure, replace, insert, delete,
// with match, before/after anchors, location and indent). Lines in, lines out; nothing here
// touches the filesystem, so test=True and a real run compute the same result.

import { compilePythonRegex } from '../../modules/python-regex.js';

export const LINE_MODES = ['ensure', 'replace', 'insert', 'delete'] as const;
export type LineMode = (typeof LINE_MODES)[number];

export function isLineMode(s: string): s is LineMode {
  return (LINE_MODES as readonly string[]).includes(s);
}

export interface LineEdit {
  content?: string;
  match?: string;
  mode: LineMode;
  location?: string;
  before?: string;
  after?: string;
  indent: boolean;
}

/** Salt's _regex_to_static test: a regex search on the line, or the pattern as a literal fragment. */
function matcher(pattern: string): (line: string) => boolean {
  const re = compilePythonRegex('file.line', pattern, 16);
  const once = new RegExp(re.source, re.flags.replace('g', ''));
  return (line) => once.test(line) || line.includes(pattern);
}

function indentOf(line: string | undefined): string {
  return line === undefined ? '' : (/^\s*/.exec(line)?.[0] ?? '');
}

/** Returns the edited lines, or an error saying which condition is missing. */
export function editLines(lines: readonly string[], e: LineEdit): string[] | { error: string } {
  const content = e.content ?? '';
  const out = [...lines];
  const placed = (near: string | undefined) => (e.indent ? indentOf(near) + content.trimStart() : content);
  const firstIndex = (pattern: string, from = 0) => {
    const m = matcher(pattern);
    for (let i = from; i < out.length; i++) if (m(out[i]!)) return i;
    return -1;
  };
  const same = (line: string | undefined) => line !== undefined && line.trim() === content.trim();

  if (e.mode === 'delete' || e.mode === 'replace') {
    const pattern = e.match ?? e.content;
    if (pattern === undefined || pattern === '') return { error: `mode ${e.mode} needs 'match' (or 'content') to find the lines` };
    const m = matcher(pattern);
    if (e.mode === 'delete') return out.filter((l) => !m(l));
    return out.map((l) => (m(l) && !same(l) ? placed(l) : l));
  }
  if (e.content === undefined) return { error: `mode ${e.mode} needs 'content'` };

  if (e.mode === 'insert' && e.location) {
    if (e.location === 'start') return same(out[0]) ? out : [placed(out[0]), ...out];
    if (e.location === 'end') return same(out[out.length - 1]) ? out : [...out, placed(out[out.length - 1])];
    return { error: `Unknown location '${e.location}'; use start or end` };
  }
  if (!e.before && !e.after) {
    return { error: `Wrong conditions? Unable to ${e.mode} line without knowing where to put it: give before and/or after${e.mode === 'insert' ? ', or location' : ''}` };
  }
  const a = e.after ? firstIndex(e.after) : -1;
  if (e.after && a < 0) return { error: `'after' (${e.after}) was not found in the file; check the pattern` };
  const b = e.before ? firstIndex(e.before, a + 1) : -1;
  if (e.before && b < 0) return { error: `'before' (${e.before}) was not found${e.after ? " after the 'after' line" : ''} in the file; check the pattern` };

  if (e.after && e.before) {
    const between = out.slice(a + 1, b);
    if (between.some(same)) return out;
    if (between.length === 0) return [...out.slice(0, a + 1), placed(out[a]), ...out.slice(b)];
    if (e.mode === 'ensure' && between.length === 1) return [...out.slice(0, a + 1), placed(out[a]), ...out.slice(b)];
    if (e.mode === 'ensure') return { error: 'Found more than one line between boundaries "before" and "after"; narrow them down' };
    return [...out.slice(0, a + 1), placed(out[a]), ...out.slice(a + 1)];
  }
  if (e.after) return same(out[a + 1]) ? out : [...out.slice(0, a + 1), placed(out[a]), ...out.slice(a + 1)];
  return same(out[b - 1]) ? out : [...out.slice(0, b), placed(out[b]), ...out.slice(b)];
}
