// file.dirname, file.basename, file.join and file.normpath: Salt returns os.path's answer, so
// these are Python's posixpath rules (not node:path's: `dirname('a')` is '' and `join('/a', '/b')`
// is '/b').

import { isSafeString, PyError, typeName } from '../jinja/py-values.js';
import type { TemplateFunction } from './template-function.js';

function text(fun: string, v: unknown): string {
  // a string marked safe (|safe, a macro's output) is still a str to Python
  if (isSafeString(v)) return v.val;
  if (typeof v !== 'string') throw new PyError(`TypeError: ${fun}: expected str, bytes or os.PathLike object, not ${typeName(v)}`);
  return v;
}

export function posixDirname(p: string): string {
  const head = p.slice(0, p.lastIndexOf('/') + 1);
  return head !== '' && !/^\/+$/.test(head) ? head.replace(/\/+$/, '') : head;
}

export function posixBasename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

export function posixJoin(first: string, rest: readonly string[]): string {
  let out = first;
  for (const b of rest) {
    if (b.startsWith('/')) out = b;
    else if (out === '' || out.endsWith('/')) out += b;
    else out += `/${b}`;
  }
  return out;
}

export function posixNormpath(p: string): string {
  if (p === '') return '.';
  // POSIX lets exactly two leading slashes mean something else, so Python keeps them
  const initial = p.startsWith('//') && !p.startsWith('///') ? 2 : p.startsWith('/') ? 1 : 0;
  const out: string[] = [];
  for (const comp of p.split('/')) {
    if (comp === '' || comp === '.') continue;
    if (comp !== '..' || (initial === 0 && out.length === 0) || out.at(-1) === '..') out.push(comp);
    else out.pop();
  }
  const joined = '/'.repeat(initial) + out.join('/');
  return joined === '' ? '.' : joined;
}

export const PATH_FUNCTIONS: Record<string, TemplateFunction> = {
  'file.dirname': {
    doc: "The directory part of a path (Python's os.path.dirname).",
    params: [{ name: 'path' }],
    run: (_h, a) => posixDirname(text('dirname', a.path)),
  },
  'file.basename': {
    doc: "The last component of a path (Python's os.path.basename).",
    params: [{ name: 'path' }],
    run: (_h, a) => posixBasename(text('basename', a.path)),
  },
  'file.join': {
    doc: "Joins path components; an absolute component restarts the path (Python's os.path.join).",
    params: [],
    varargs: true,
    run: (_h, _a, rest) => {
      if (rest.length === 0) throw new PyError("TypeError: join() missing 1 required positional argument: 'a'");
      const parts = rest.map((r) => text('join', r));
      return posixJoin(parts[0]!, parts.slice(1));
    },
  },
  'file.normpath': {
    doc: "Collapses '.', '..' and repeated slashes in a path without reading the disk (Python's os.path.normpath).",
    params: [{ name: 'path' }],
    run: (_h, a) => posixNormpath(text('normpath', a.path)),
  },
};
