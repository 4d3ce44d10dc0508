// pkg.uptodate: every package (or those in pkgs) at the newest version the repositories offer,
// through pkg.list_upgrades and pkg.upgrade, with Salt's comments and changes
// (salt/states/pkg.py uptodate()).

import { defineState, type StateFunction } from '../types.js';
import { callFn, defined, stateResult } from './state-result.js';

// The keyword arguments Salt passes through to the pkg module that brine's apt/dnf backends read.
const PASSED = ['dist_upgrade', 'fromrepo', 'force_conf_new'] as const;

const uptodate = defineState({
  name: 'pkg.uptodate',
  doc: 'Make sure the system (or the packages in pkgs) has every available upgrade installed.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'only a label for the state' },
    { name: 'refresh', type: 'any', default: false, doc: 'update the package index before looking for upgrades (True or False)' },
    { name: 'pkgs', type: 'list', doc: 'upgrade only these packages' },
    { name: 'dist_upgrade', type: 'bool', doc: 'apt: dist-upgrade (may add and remove packages) instead of upgrade' },
    { name: 'fromrepo', type: 'string', doc: 'apt: the target release; dnf: the only repository' },
    { name: 'force_conf_new', type: 'bool', doc: 'apt: take the new version of changed configuration files' },
  ],
  kwargs: true,
  example: 'system-upgraded:\n  pkg.uptodate:\n    - refresh: True\n\nweb-stack-current:\n  pkg.uptodate:\n    - pkgs:\n      - nginx\n      - openssl',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    if (typeof n.refresh !== 'boolean') return stateResult(name, false, 'refresh must be either True or False');
    const passed = defined(Object.fromEntries(PASSED.map((k) => [k, n[k]])));
    // list_upgrades lists as dist-upgrade would unless told otherwise; the upgrade follows suit.
    const listed = await callFn<Record<string, string>>(ctx, 'pkg.list_upgrades', [], { refresh: n.refresh, ...passed });
    if (!listed.ok) return stateResult(name, false, listed.message);
    const wanted = Object.keys(listed.value).filter((p) => n.pkgs === undefined || n.pkgs.map(String).includes(p));
    if (wanted.length === 0) return stateResult(name, true, 'System is already up-to-date');
    if (ctx.test) {
      const expected: Record<string, { new: string; old: string }> = {};
      for (const p of wanted) {
        const old = await callFn<string>(ctx, 'pkg.version', [p]);
        expected[p] = { new: listed.value[p]!, old: old.ok ? old.value : '' };
      }
      return stateResult(name, null, 'System update will be performed', expected);
    }
    // The index was refreshed above when asked; the upgrade need not do it again.
    const up = await ctx.call('pkg.upgrade', [], { refresh: false, ...(n.pkgs ? { pkgs: n.pkgs } : {}), ...passed });
    if (!up.success) return stateResult(name, false, `An error was encountered while updating packages: ${up.error?.message ?? String(up.return)}`);
    const changes = (up.return as Record<string, unknown>) ?? {};
    const missing = n.pkgs ? wanted.filter((p) => !(p in changes)) : [];
    if (missing.length) return stateResult(name, false, `The following package(s) failed to update: ${missing.join(', ')}`, changes);
    return stateResult(name, true, 'Upgrade ran successfully', changes);
  },
});

export const pkgUptodateStates: readonly StateFunction[] = [uptodate];
