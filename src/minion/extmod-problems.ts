// The synced custom modules, states and grains (saltutil.sync_*) that failed at their last load,
// per kind, as `brine doctor` shows them from the minion's status. module_dirs problems are not
// kept: they were there before any sync and are reported at start.

import * as path from 'node:path';
import type { MinionStatus } from '../protocol/index.js';
import { extmodsDir } from '../modules/extmods-sync.js';

export type ExtmodKind = 'grains' | 'modules' | 'states';
export interface ExtmodProblem {
  file: string;
  reason: string;
}

export class ExtmodProblems {
  private readonly byKind = new Map<ExtmodKind, ExtmodProblem[]>();

  constructor(private readonly cachedir: string) {}

  /** Replaces the problems of `kinds` with those of `problems` in their synced directories; returns them. */
  note(kinds: readonly ExtmodKind[], problems: readonly { kind?: string; file: string; reason: string }[]): ExtmodProblem[] {
    const all: ExtmodProblem[] = [];
    for (const kind of kinds) {
      const dir = extmodsDir(this.cachedir, kind) + path.sep;
      const mine = problems.filter((p) => (p.kind === undefined || p.kind === kind) && p.file.startsWith(dir)).map(({ file, reason }) => ({ file, reason }));
      this.byKind.set(kind, mine);
      all.push(...mine);
    }
    return all;
  }

  /** The status field, bounded as the status message allows. */
  status(): Pick<MinionStatus, 'customModuleProblems'> {
    const all = [...this.byKind.values()].flat();
    if (all.length === 0) return {};
    return { customModuleProblems: all.slice(0, 1024).map((p) => ({ file: p.file.slice(0, 4096), reason: p.reason.slice(0, 4000) })) };
  }
}
