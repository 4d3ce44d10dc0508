// pkg.installed, pkg.latest, pkg.removed, pkg.purged: compare the wanted packages with
// pkg.list_pkgs, change only what differs through pkg.install/remove/purge, and report Salt's
// {name: {old, new}} changes and comments.

import { BrineError } from '../../util/errors.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { holdAfterInstall, holdOnInstalled, runHold } from './pkg-hold-result.js';
import { forgetPkgList, listPkgs, noteRefreshed, refreshNow } from './pkg-run-cache.js';
import { installedFromSources } from './pkg-sources.js';
import { callFn, defined, stateResult } from './state-result.js';

interface Target {
  name: string;
  /** Wanted version: exact, or a glob with `*` (Salt's wildcard versions). */
  version?: string;
}

/**
 * name (+version) or pkgs as Salt's _repack_pkgs reads them: names (numbers too, as str()) or
 * one-key {name: version} mappings. Anything else, or a name twice, is Salt's SaltInvocationError
 * (an exception there, a failed state here).
 */
export function pkgTargets(fun: string, name: string, version: string | undefined, pkgs: unknown[] | undefined): Target[] {
  // an empty list is no list (Salt's parse_targets tests `if pkgs:`), so the state's name is the package
  if (pkgs === undefined || pkgs.length === 0) return [version === undefined || version === '' ? { name } : { name, version: String(version) }];
  const out = pkgs.map((p) => {
    if (typeof p === 'string' || typeof p === 'number') return { name: String(p) };
    if (typeof p === 'object' && p !== null && !Array.isArray(p) && Object.keys(p).length === 1) {
      const [k, v] = Object.entries(p)[0]!;
      return v === null || v === undefined || v === '' ? { name: k } : { name: k, version: String(v) };
    }
    // Salt 3007 fails here too (repack_dictlist refuses the whole list, then _repack_pkgs raises)
    throw new BrineError(
      'BAD_ARGUMENTS',
      `${fun}: Invalidly formatted pkgs parameter: entry ${JSON.stringify(p)} is not a package name or {name: version} (Salt 3007 fails this state too); drop it from the list`,
    );
  });
  if (new Set(out.map((t) => t.name)).size !== out.length) {
    throw new BrineError(
      'BAD_ARGUMENTS',
      `${fun}: You are passing a list of packages that contains duplicated packages names: ${JSON.stringify(pkgs)}. This cannot be processed. In case you are targeting different versions of the same package, please target them individually`,
    );
  }
  return out;
}

function versionMatches(installed: readonly string[], wanted: string | undefined): boolean {
  if (installed.length === 0) return false;
  if (wanted === undefined || wanted === 'latest') return true;
  if (!wanted.includes('*')) return installed.includes(wanted);
  const re = new RegExp(
    `^${wanted
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return installed.some((v) => re.test(v));
}

const label = (t: Target) => (t.version ? `${t.name}=${t.version}` : t.name);

function installArgs(targets: readonly Target[], extra: Record<string, unknown>): Record<string, unknown> {
  const pkgs = targets.map((t) => (t.version && t.version !== 'latest' && !t.version.includes('*') ? { [t.name]: t.version } : t.name));
  return defined({ pkgs, ...extra });
}

/** Runs pkg.install/remove/purge; the changes it reports, or the failure (with partial changes). */
async function change(ctx: StateContext, fun: string, kwarg: Record<string, unknown>): Promise<{ changes: Record<string, unknown>; error?: string }> {
  const r = await ctx.call(fun, [], kwarg);
  forgetPkgList(ctx);
  noteRefreshed(ctx, kwarg.refresh === true);
  if (r.success) return { changes: (r.return as Record<string, unknown>) ?? {} };
  return { changes: {}, error: r.error?.message ?? String(r.return) };
}

const PKG_PARAMS = [
  { name: 'name', type: 'string', required: true, doc: 'package name (ignored when pkgs is given)' },
  { name: 'version', type: 'string', doc: "wanted version of name (exact, or with '*' wildcards)" },
  { name: 'pkgs', type: 'list', doc: 'several packages: names or {name: version} mappings' },
  { name: 'refresh', type: 'bool', doc: 'update the package index first; unset: only if no pkg state of this run did yet (as Salt)' },
  { name: 'fromrepo', type: 'string', doc: 'install from this release (apt -t) or repository (dnf)' },
] as const;

/**
 * Salt 3007's test=True changes of pkg.installed (_get_installable_versions): {name: {new, old: ''}}
 * where new is the newest available version of a package asked for without one, and
 * 'installed' otherwise (apt's list_repo_pkgs matches names, so a 'name=version' finds nothing).
 * Salt's pkg.latest_version refreshes the index on every such state; brine refreshes it once per run.
 */
async function installableVersions(ctx: StateContext, todo: readonly { name: string; version?: string }[]): Promise<Record<string, { new: string; old: string }>> {
  const latest = todo.filter((t) => !t.version).map((t) => t.name);
  const refresh = refreshNow(ctx, undefined);
  const found = latest.length > 0 ? await callFn<string | Record<string, string>>(ctx, 'pkg.latest_version', latest, { refresh }) : undefined;
  if (latest.length > 0) noteRefreshed(ctx, refresh);
  const newest = (p: string): string => (!found?.ok ? '' : typeof found.value === 'string' ? (latest.length === 1 ? found.value : '') : (found.value[p] ?? ''));
  return Object.fromEntries(todo.map((t) => [t.name, { new: (!t.version && newest(t.name)) || 'installed', old: '' }]));
}

const installed = defineState({
  name: 'pkg.installed',
  doc: 'Make sure packages are installed (at a version when one is given).',
  params: [
    ...PKG_PARAMS,
    { name: 'reinstall', type: 'bool', default: false, doc: 'reinstall packages already at the wanted version' },
    { name: 'skip_suggestions', type: 'bool', default: false, doc: 'accepted for compatibility (brine never suggests names)' },
    { name: 'install_recommends', type: 'bool', doc: 'false leaves out recommended (apt) or weak (dnf) dependencies' },
    { name: 'hold', type: 'bool', doc: 'True holds the packages at their version (apt-mark hold), False releases them; unset leaves holds alone' },
    { name: 'enablerepo', type: 'string', doc: 'dnf: also use this repository (apt ignores it, as Salt does)' },
    { name: 'disablerepo', type: 'string', doc: 'dnf: do not use this repository (apt ignores it, as Salt does)' },
    { name: 'sources', type: 'list', doc: 'packages from files: [{name: salt://, http(s):// URL or path of the .deb/.rpm}], installed with dpkg -i / dnf (dependencies are not fetched)' },
  ],
  // Salt's pkg.installed takes **kwargs and passes them to the package module.
  kwargs: true,
  example: 'nginx:\n  pkg.installed:\n    - version: 1.22.1-9\n    - install_recommends: False\n\nweb-tools:\n  pkg.installed:\n    - pkgs:\n      - curl\n      - jq: 1.6-2.1',
  run: async (ctx, a) => {
    const n = a.named;
    if (n.sources !== undefined && n.sources !== null) return installedFromSources(ctx, n.name, n.sources, n.reinstall);
    // salt/states/pkg.py installed: an empty pkgs list is nothing to do, not an error
    if (n.pkgs?.length === 0) return stateResult(n.name, true, 'No packages to install provided');
    const targets = pkgTargets('pkg.installed', n.name, n.version, n.pkgs);
    const before = await listPkgs(ctx);
    if (typeof before === 'string') return stateResult(n.name, false, before);
    const todo = n.reinstall ? targets : targets.filter((t) => !versionMatches(before.get(t.name) ?? [], t.version));
    const hold = async () =>
      n.hold === undefined
        ? []
        : runHold(
            ctx,
            targets.map((t) => t.name),
            n.hold,
          );
    if (todo.length === 0) {
      // salt/states/pkg.py _find_install_targets: the single-name answers need the exact version
      // installed; anything else (pkgs, a wildcard) is the general one
      const t = targets[0]!;
      let ret: StateResult;
      if (!n.pkgs && !t.version) ret = stateResult(n.name, true, `Package ${t.name} is already installed`);
      else if (!n.pkgs && (before.get(t.name) ?? []).includes(t.version!)) ret = stateResult(n.name, true, `Version ${t.version} of package '${t.name}' is already installed`);
      else {
        const spec = targets.some((x) => x.version) ? ' and are at the desired version' : '';
        ret = stateResult(n.name, true, `All specified packages are already installed${spec}`);
      }
      const held = await hold();
      if (typeof held === 'string') return stateResult(n.name, false, held);
      return holdOnInstalled(ret, held);
    }
    if (ctx.test) return stateResult(n.name, null, `The following packages would be installed/updated: ${todo.map((t) => t.name).join(', ')}`, await installableVersions(ctx, todo));
    const { changes, error } = await change(
      ctx,
      'pkg.install',
      installArgs(todo, {
        refresh: refreshNow(ctx, n.refresh),
        fromrepo: n.fromrepo,
        reinstall: n.reinstall,
        install_recommends: n.install_recommends,
        enablerepo: n.enablerepo,
        disablerepo: n.disablerepo,
      }),
    );
    if (error) return stateResult(n.name, false, error, changes);
    const held = await hold();
    if (typeof held === 'string') return stateResult(n.name, false, held, changes);
    const after = await listPkgs(ctx);
    const failed = typeof after === 'string' ? todo : todo.filter((t) => !versionMatches(after.get(t.name) ?? [], t.version));
    if (failed.length) return stateResult(n.name, false, `The following packages failed to install/update: ${failed.map(label).join(', ')}`, changes);
    const already = targets.filter((t) => !todo.includes(t));
    const comment = [`The following packages were installed/updated: ${todo.map((t) => t.name).join(', ')}`];
    if (already.length) comment.push(`The following packages were already installed: ${already.map((t) => t.name).join(', ')}`);
    const holdOk = holdAfterInstall(comment, changes as Record<string, { old?: string; new?: string }>, held);
    return stateResult(n.name, holdOk, comment.join('\n'), changes);
  },
});

const latest = defineState({
  name: 'pkg.latest',
  // Salt's pkg.latest takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure packages are installed at the newest available version.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'package name (ignored when pkgs is given)' },
    { name: 'pkgs', type: 'list', doc: 'several package names' },
    { name: 'refresh', type: 'bool', doc: 'update the package index before looking for new versions; unset: only if no pkg state of this run did yet (as Salt)' },
    { name: 'fromrepo', type: 'string', doc: 'install from this release (apt -t) or repository (dnf)' },
  ],
  example: 'openssl:\n  pkg.latest:\n    - refresh: True',
  run: async (ctx, a) => {
    const n = a.named;
    if (n.pkgs?.length === 0) return stateResult(n.name, true, 'No packages to install provided');
    const names = pkgTargets('pkg.latest', n.name, undefined, n.pkgs).map((t) => t.name);
    const before = await listPkgs(ctx);
    if (typeof before === 'string') return stateResult(n.name, false, before);
    const refresh = refreshNow(ctx, n.refresh);
    const avail = await callFn<string | Record<string, string>>(ctx, 'pkg.latest_version', names, { refresh });
    noteRefreshed(ctx, refresh);
    if (!avail.ok) return stateResult(n.name, false, avail.message);
    const newest = (p: string): string => (typeof avail.value === 'string' ? avail.value : (avail.value[p] ?? ''));
    const unknown = names.filter((p) => newest(p) === '' && !before.has(p));
    if (unknown.length) return stateResult(n.name, false, `No information found for ${unknown.map((p) => `'${p}'`).join(', ')}; check the name and the configured repositories`);
    const todo = names.filter((p) => newest(p) !== '').map((p) => ({ name: p, version: newest(p) }));
    if (todo.length === 0) return stateResult(n.name, true, names.length === 1 ? `Package ${names[0]} is already up-to-date` : `All packages are up-to-date (${names.join(', ')}).`);
    if (ctx.test) return stateResult(n.name, null, `The following packages would be installed/upgraded: ${todo.map(label).join(', ')}`);
    const { changes, error } = await change(ctx, 'pkg.install', installArgs(todo, { fromrepo: n.fromrepo }));
    if (error) return stateResult(n.name, false, error, changes);
    const after = await listPkgs(ctx);
    const failed = typeof after === 'string' ? todo : todo.filter((t) => !versionMatches(after.get(t.name) ?? [], t.version));
    if (failed.length) return stateResult(n.name, false, `The following packages failed to update: ${failed.map(label).join(', ')}`, changes);
    return stateResult(n.name, true, `The following packages were successfully installed/upgraded: ${todo.map((t) => t.name).join(', ')}`, changes);
  },
});

function removal(fun: 'pkg.removed' | 'pkg.purged', exec: 'pkg.remove' | 'pkg.purge', verb: 'removed' | 'purged'): StateFunction {
  return defineState({
    name: fun,
    // Salt's pkg.removed and pkg.purged take **kwargs: an argument they do not name is ignored without a warning
    kwargs: true,
    doc: verb === 'removed' ? 'Make sure packages are not installed.' : 'Make sure packages are not installed, with their configuration files removed.',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'package name (ignored when pkgs is given)' },
      { name: 'version', type: 'string', doc: 'only remove name when this version is installed' },
      { name: 'pkgs', type: 'list', doc: 'several package names' },
    ],
    example: verb === 'removed' ? 'telnet:\n  pkg.removed: []' : 'old-tools:\n  pkg.purged:\n    - pkgs:\n      - telnet\n      - rsh-client',
    run: async (ctx, a): Promise<StateResult> => {
      const n = a.named;
      const targets = pkgTargets(fun, n.name, n.version, n.pkgs);
      const before = await listPkgs(ctx);
      if (typeof before === 'string') return stateResult(n.name, false, before);
      // purged also acts on packages removed earlier whose configuration files remain (apt).
      const residual = verb === 'purged' ? await listPkgs(ctx, true) : new Map<string, string[]>();
      if (typeof residual === 'string') return stateResult(n.name, false, residual);
      const present = (m: Map<string, string[]>, t: Target) => m.has(t.name) && versionMatches(m.get(t.name)!, t.version);
      const todo = targets.filter((t) => present(before, t) || present(residual, t));
      // Salt's _uninstall words (salt/states/pkg.py): sorted names, a final period
      const action = verb === 'removed' ? 'remove' : 'purge';
      const names = todo.map((t) => t.name).sort();
      if (todo.length === 0) return stateResult(n.name, true, `None of the targeted packages are installed${verb === 'purged' ? ' or partially installed' : ''}`);
      if (ctx.test) return stateResult(n.name, null, `The following packages will be ${verb}: ${names.join(', ')}.`, Object.fromEntries(names.map((x) => [x, { new: verb, old: '' }])));
      const { changes, error } = await change(ctx, exec, { pkgs: todo.map((t) => t.name) });
      if (error) return stateResult(n.name, false, error, changes);
      const after = await listPkgs(ctx);
      const afterResidual = verb === 'purged' ? await listPkgs(ctx, true) : new Map<string, string[]>();
      const left = typeof after === 'string' || typeof afterResidual === 'string' ? todo : todo.filter((t) => after.has(t.name) || afterResidual.has(t.name));
      if (left.length)
        return stateResult(
          n.name,
          false,
          `The following packages failed to ${action}: ${left
            .map((t) => t.name)
            .sort()
            .join(', ')}.`,
          changes,
        );
      const notInstalled = targets
        .filter((t) => !todo.includes(t))
        .map((t) => t.name)
        .sort();
      if (notInstalled.length === 0) return stateResult(n.name, true, `All targeted packages were ${verb}.`, changes);
      return stateResult(n.name, true, `The following packages were not installed: ${notInstalled.join(', ')} The following packages were ${verb}: ${names.join(', ')}.`, changes);
    },
  });
}

export const pkgStates: readonly StateFunction[] = [installed, latest, removal('pkg.removed', 'pkg.remove', 'removed'), removal('pkg.purged', 'pkg.purge', 'purged')];
