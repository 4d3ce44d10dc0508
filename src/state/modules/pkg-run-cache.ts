// What the pkg states remember for the rest of one state run: that the package index was
// refreshed, and (test=True) the installed-package list. Salt refreshes at most once per run for
// pkg states that leave `refresh` unset (salt/states/pkg.py mod_init writes the refresh tag, the
// first refresh clears it) and keeps pkg.list_pkgs in `__context__`; a run of 300 pkg.installed
// states must not run 300 `apt-get update`s.

import type { StateContext } from '../types.js';
import { callFn } from './state-result.js';

const REFRESHED = 'pkg.index-refreshed';
const LISTED = 'pkg.list_pkgs';

/** Whether to refresh the package index now: as asked, or (unset) only the first time in this run. */
export function refreshNow(ctx: StateContext, refresh: boolean | undefined): boolean {
  if (refresh !== undefined) return refresh;
  return !ctx.runContext.has(REFRESHED);
}

/** Notes a refresh done (or asked of pkg.install) so later states of the run skip theirs. */
export function noteRefreshed(ctx: StateContext, refreshed: boolean): void {
  if (refreshed) ctx.runContext.set(REFRESHED, true);
}

/** After packages changed, the remembered list is stale. */
export function forgetPkgList(ctx: StateContext): void {
  ctx.runContext.delete(LISTED);
  ctx.runContext.delete(`${LISTED}.removed`);
}

/**
 * Installed packages (or, with removed, those removed but not purged); a string is the failure.
 * With test=True nothing changes packages, so the list is read once per run and reused.
 */
export async function listPkgs(ctx: StateContext, removed = false): Promise<Map<string, string[]> | string> {
  const key = removed ? `${LISTED}.removed` : LISTED;
  const kept = ctx.test ? ctx.runContext.get(key) : undefined;
  if (kept instanceof Map) return kept as Map<string, string[]>;
  const r = await callFn<Record<string, string[]>>(ctx, 'pkg.list_pkgs', [], { versions_as_list: true, ...(removed ? { removed } : {}) });
  if (!r.ok) return r.message;
  const pkgs = new Map(Object.entries(r.value));
  if (ctx.test) ctx.runContext.set(key, pkgs);
  return pkgs;
}
