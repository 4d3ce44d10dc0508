// The shared frame of the line-editing file states (append, line, blockreplace): read the text
// file, let a pure edit compute the new text, and report a unified diff; test=True stops after
// the report. A missing file is created only when the state allows it.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { splitLinesKeepEnds, unifiedDiff } from '../../modules/unified-diff.js';
import type { StateContext, StateResult } from '../types.js';
import { backupFile } from './file-backup.js';
import { errorText, failed, pending, succeed } from './file-result.js';
import { makeParents, writeAtomic, writeTarget } from './file-write.js';

export interface EditOptions {
  name: string;
  /** Computes the new text from the old; throws (a BrineError) or returns { error } to fail. */
  edit(text: string): string | { error: string };
  /** A missing file is treated as empty and created (file.append, file.line create: True). */
  createMissing: boolean;
  makedirs?: boolean;
  /** The comments of the three outcomes (asked after the edit ran, so they may count its work). */
  comments(): { unchanged: string; changed: string; test: string };
  /** A suffix such as '.bak' for a copy beside the file, or 'minion' for the backup tree. */
  backup?: string;
  showChanges?: boolean;
}

export async function editTextFile(ctx: StateContext, opts: EditOptions): Promise<StateResult> {
  const { name } = opts;
  try {
    const st = await stat(name).catch(() => undefined);
    if (st && !st.isFile()) return failed(name, `${name} is not a regular file`);
    if (!st && !opts.createMissing) return failed(name, `${name}: file not found; create it first (file.managed) or check the path`);
    if (!st && !opts.makedirs && !(await stat(path.dirname(name)).catch(() => undefined))) {
      return failed(name, `Directory ${path.dirname(name)} is not present; set makedirs: True or create it first`);
    }
    const raw = st ? await readFile(name) : Buffer.alloc(0);
    if (raw.subarray(0, 8192).includes(0)) return failed(name, `Cannot edit ${name}: it is a binary file`);
    const before = raw.toString('utf8');
    const after = opts.edit(before);
    if (typeof after === 'object') return failed(name, after.error);
    if (after === before && st) return succeed(name, opts.comments().unchanged);
    const diff = opts.showChanges === false ? '<show_changes=False>' : unifiedDiff(splitLinesKeepEnds(before), splitLinesKeepEnds(after));
    const changes: Record<string, unknown> = after === before ? { new: name } : { diff };
    if (ctx.test) return pending(name, opts.comments().test, changes);
    if (!st) await makeParents(path.dirname(name));
    const target = await writeTarget(name);
    if (st && opts.backup === 'minion') await backupFile(ctx, target);
    else if (st && opts.backup) await writeAtomic(target + opts.backup, raw);
    await writeAtomic(target, after);
    return succeed(name, opts.comments().changed, changes);
  } catch (err) {
    return failed(name, `Unable to edit ${name}: ${errorText(err)}`);
  }
}

/** Lines without their endings (a trailing newline does not make an empty last line). */
export function textLines(text: string): string[] {
  return splitLinesKeepEnds(text).map((l) => l.replace(/\r?\n$/, ''));
}

/** Joins lines back, each ending in a newline (the edit states always end files with one). */
export function joinLines(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}
