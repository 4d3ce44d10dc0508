// The `archive` module: list and extract tar (plain, gz, bz2, xz) and zip archives, the format
// detected from the file itself. Members that would leave the destination are refused.

import { mkdir, stat } from 'node:fs/promises';
import { BrineError } from '../util/errors.js';
import { archiveKind, checkMembers, extractArchive, listMembers } from './archive-formats.js';
import { defineFunction } from './define-function.js';
import { absPath } from './file-common.js';
import type { ModuleFunction } from './types.js';

export const archiveFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'archive.list',
    doc: 'List the members of a tar or zip archive (directories end in /).',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'absolute path of the archive' },
      { name: 'archive_format', type: 'string', doc: 'tar or zip; detected from the file when left out' },
    ],
    run: async (ctx, a) => {
      const fun = 'archive.list';
      const file = absPath(fun, a.named.name);
      if (!(await stat(file).catch(() => undefined))?.isFile()) throw new BrineError('EXEC_FAILED', `${fun}: '${file}' does not exist; check the path`);
      const kind = await archiveKind(fun, file, a.named.archive_format);
      return (await listMembers(fun, file, kind, ctx.signal)).map((m) => (m.isDir ? `${m.path}/` : m.path));
    },
  }),
  defineFunction({
    name: 'archive.extract',
    doc: 'Extract a tar or zip archive into a directory (created if missing); returns the extracted members.',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'absolute path of the archive' },
      { name: 'dest', type: 'string', required: true, doc: 'absolute path of the destination directory' },
      { name: 'archive_format', type: 'string', doc: 'tar or zip; detected from the file when left out' },
      { name: 'options', type: 'string', default: '', doc: 'extra tar/unzip arguments' },
    ],
    run: async (ctx, a) => {
      const fun = 'archive.extract';
      const file = absPath(fun, a.named.name);
      const dest = absPath(fun, a.named.dest);
      if (!(await stat(file).catch(() => undefined))?.isFile()) throw new BrineError('EXEC_FAILED', `${fun}: '${file}' does not exist; check the path`);
      const kind = await archiveKind(fun, file, a.named.archive_format);
      const members = await listMembers(fun, file, kind, ctx.signal);
      checkMembers(fun, members);
      await mkdir(dest, { recursive: true });
      await extractArchive(fun, file, kind, dest, a.named.options, ctx.signal);
      return members.map((m) => (m.isDir ? `${m.path}/` : m.path));
    },
  }),
];
