// The runtime's requisite decision for one state (pure): from the results of the states it
// names, may it run, must it fail, or is it skipped (onchanges/onfail not met, a prereq target
// that would not change)? Follows Salt's check_requisite precedence.

import { ANY_KINDS } from '../compiler/requisite-kinds.js';
import type { Requisite } from '../compiler/requisites.js';
import type { StateResult } from '../types.js';

export type RequisiteStatus =
  | { kind: 'met' }
  /** A watched state changed: run, then mod_watch if the run itself changed nothing. */
  | { kind: 'change' }
  /** A required/watched/prereq'd state failed: this one fails without running. */
  | { kind: 'fail'; failed: number[] }
  | { kind: 'onchanges' }
  | { kind: 'onfail' }
  /** The prereq target would not change: this one does not run. */
  | { kind: 'pre' };

const changed = (r: Pick<StateResult, 'changes'>): boolean => Object.keys(r.changes ?? {}).length > 0;

/**
 * Salt's check_requisite for one `_any`/`_all` requisite type: its states decide together.
 * require_any/watch_any fail only when every named state failed (watch_any fires mod_watch when
 * any succeeded with changes); onchanges_any runs when any changed; onfail_any runs when any
 * failed, onfail_all only when all did. A named state that did not run counts as failed.
 */
function anyGroup(kind: string, group: readonly number[], results: (j: number) => StateResult | undefined, stats: Set<string>, failed: number[]): void {
  const res = group.map((j) => ({ j, r: results(j) }));
  const bad = res.filter(({ r }) => !r || r.result === false).map(({ j }) => j);
  if (kind === 'require_any' || kind === 'watch_any') {
    if (bad.length === group.length) failed.push(...bad);
    else if (kind === 'watch_any' && res.some(({ r }) => r && r.result !== false && changed(r))) stats.add('change');
  } else if (kind === 'onchanges_any') {
    if (res.some(({ r }) => r && r.result !== false && changed(r))) stats.add('onchangesmet');
    else if (bad.length > 0) failed.push(...bad);
    else stats.add('onchanges');
  } else if (kind === 'onfail_any') stats.add(res.some(({ r }) => r?.result !== true) ? 'onfailmet' : 'onfail');
  else if (kind === 'onfail_all') stats.add(res.every(({ r }) => r?.result !== true) ? 'onfailmet' : 'onfail');
}

/**
 * `results(j)` is the result of state j (it ran before this one); `preResults(j)` is its
 * test-mode result for a prereq; `prereqBy` are the states that declared `prereq` on this one.
 */
export function requisiteStatus(
  reqs: readonly Requisite[],
  prereqBy: readonly number[],
  results: (j: number) => StateResult | undefined,
  preResults: (j: number) => StateResult | undefined,
): RequisiteStatus {
  const stats = new Set<string>();
  const failed: number[] = [];
  for (const r of reqs) {
    if (r.kind === 'use' || r.kind === 'listen' || ANY_KINDS.has(r.kind)) continue;
    if (r.kind === 'prereq') {
      const pre = preResults(r.target);
      if (!pre) continue;
      if (pre.result === false) failed.push(r.target);
      else stats.add(pre.result === null || changed(pre) ? 'premet' : 'pre');
      continue;
    }
    const res = results(r.target);
    // a state that did not run (failhard stopped the run) cannot satisfy anything
    if (!res) {
      failed.push(r.target);
      continue;
    }
    if (r.kind === 'onfail') {
      stats.add(res.result === true ? 'onfail' : 'onfailmet');
      continue;
    }
    if (res.result === false) {
      failed.push(r.target);
      continue;
    }
    if (r.kind === 'onchanges') stats.add(changed(res) ? 'onchangesmet' : 'onchanges');
    else if (r.kind === 'watch' && changed(res)) stats.add('change');
  }
  for (const kind of ANY_KINDS) {
    const group = reqs.filter((r) => r.kind === kind).map((r) => r.target);
    if (group.length > 0) anyGroup(kind, group, results, stats, failed);
  }
  for (const j of prereqBy) {
    const res = results(j);
    if (res && res.result === false) failed.push(j);
  }
  if (failed.length > 0) return { kind: 'fail', failed: [...new Set(failed)] };
  if (stats.has('pre') && !stats.has('premet')) return { kind: 'pre' };
  if (stats.has('onfail') && !stats.has('onfailmet')) return { kind: 'onfail' };
  if (stats.has('onchanges') && !stats.has('onchangesmet')) return { kind: 'onchanges' };
  if (stats.has('change')) return { kind: 'change' };
  return { kind: 'met' };
}
