// pkg.installed's hold: True/False, as salt/states/pkg.py folds pkg.hold's per-package returns
// into the state's result: each package's comment appended, a changed hold added to the
// package's changes ({old: 'install', new: '<version>\nhold'} after an install), a failed one
// failing the state.

import type { StateContext, StateResult } from '../types.js';

interface HoldEntry {
  name: string;
  changes: { old?: string; new?: string };
  result: boolean | null;
  comment: string;
}

/** Runs pkg.hold or pkg.unhold; the entries, or the failure's message. */
export async function runHold(ctx: StateContext, names: readonly string[], hold: boolean): Promise<HoldEntry[] | string> {
  const r = await ctx.call(hold ? 'pkg.hold' : 'pkg.unhold', [], { pkgs: [...names], test: ctx.test });
  if (!r.success) return r.error?.message ?? String(r.return);
  return Object.values(r.return as Record<string, HoldEntry>);
}

/** Packages already installed: the state's comment gets ".\n<hold comment>" per package (Salt's ValueError path). */
export function holdOnInstalled(ret: StateResult, entries: readonly HoldEntry[]): StateResult {
  const out = { ...ret, changes: { ...ret.changes } };
  for (const e of [...entries.filter((x) => Object.keys(x.changes).length), ...entries.filter((x) => !Object.keys(x.changes).length)]) {
    out.comment += `.\n${e.comment}`;
    out.result = e.result;
    if (Object.keys(e.changes).length) out.changes[e.name] = e.changes;
  }
  return out;
}

/** After an install: hold comments after the install line, changes joined with a line break. */
export function holdAfterInstall(comments: string[], changes: Record<string, { old?: string; new?: string }>, entries: readonly HoldEntry[]): boolean {
  let ok = true;
  const modified = entries.filter((e) => Object.keys(e.changes).length);
  for (const e of modified) {
    comments.splice(1, 0, e.comment);
    const c = changes[e.name];
    if (c) {
      c.new = `${c.new ? `${c.new}\n` : ''}${e.changes.new ?? ''}`;
      c.old = `${c.old ? `${c.old}\n` : ''}${e.changes.old ?? ''}`;
    } else {
      changes[e.name] = { new: String(e.changes.new ?? '') };
    }
  }
  for (const e of entries.filter((x) => !Object.keys(x.changes).length)) {
    comments.push(e.comment);
    if (e.result === false) ok = false;
  }
  return ok;
}
