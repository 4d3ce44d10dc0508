// The `pkg` module: install, remove, version, list_pkgs and latest_version on apt or dnf hosts,
// returning Salt's shapes ({name: {old, new}} for changes, '' for "not installed").

import path from 'node:path';
import { BrineError, isBrineError } from '../util/errors.js';
import { checkName } from './host-tools.js';
import { createAptBackend } from './pkg-apt.js';
import { detectBackend, PKG_NAME, PKG_VERSION, type BackendFactories, type PkgBackend } from './pkg-backend.js';
import { createDnfBackend } from './pkg-dnf.js';
import type { ExecContext, ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

type Changes = Record<string, { old: string; new: string }>;

const flat = (versions: readonly string[] | undefined): string => (versions ?? []).join(',');

/** Salt's data.compare_dicts over two package lists: {name: {old, new}} for each difference. */
export function comparePkgs(before: ReadonlyMap<string, string[]>, after: ReadonlyMap<string, string[]>): Changes {
  const out = new Map<string, { old: string; new: string }>();
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const o = flat(before.get(name));
    const n = flat(after.get(name));
    if (o !== n) out.set(name, { old: o, new: n });
  }
  return Object.fromEntries(out);
}

interface Target {
  name: string;
  version?: string;
}

/** name (+ version=) or pkgs: ['a', {b: '1.2'}], validated so nothing reads as an option. */
function targetsOf(fun: string, a: { named: { pkgs?: unknown[]; name?: string; version?: string } }): Target[] {
  const pkgs = a.named.pkgs;
  const name = a.named.name;
  const version = a.named.version;
  const out: Target[] = [];
  if (pkgs !== undefined) {
    if (pkgs.length === 0) throw new BrineError('BAD_ARGUMENTS', `${fun}: pkgs is an empty list`);
    for (const p of pkgs) {
      if (typeof p === 'string') out.push({ name: p });
      else if (typeof p === 'object' && p !== null && !Array.isArray(p) && Object.keys(p).length === 1) {
        const [k, v] = Object.entries(p)[0]!;
        out.push(v === null || v === undefined || v === '' ? { name: k } : { name: k, version: String(v) });
      } else throw new BrineError('BAD_ARGUMENTS', `${fun}: each pkgs entry must be a name or {name: version}, got ${JSON.stringify(p)}`);
    }
  } else if (name !== undefined) {
    out.push(version === undefined ? { name } : { name, version });
  } else {
    throw new BrineError('BAD_ARGUMENTS', `${fun}: give a package name or pkgs=[...]`);
  }
  for (const t of out) {
    checkName(fun, 'package name', t.name, PKG_NAME);
    if (t.version !== undefined) checkName(fun, 'version', t.version, PKG_VERSION);
  }
  return out;
}

async function withErrorsNamingChanges<T>(fun: string, backend: PkgBackend, ctx: ExecContext, before: Map<string, string[]>, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (!isBrineError(err, 'EXEC_FAILED')) throw err;
    // Part of a batch may have gone through before the failure: report what changed too.
    const changes = comparePkgs(before, await backend.listPkgs(fun, ctx.signal).catch(() => before));
    throw new BrineError('EXEC_FAILED', `${err.message}${Object.keys(changes).length ? `; changes made before the failure: ${JSON.stringify(changes)}` : ''}`, {
      cause: err,
      details: { changes },
    });
  }
}

/** pkg.install sources=[{name: path}]: local package files installed by the package manager itself. */
async function installFiles(fun: string, b: PkgBackend, ctx: ExecContext, sources: unknown[]): Promise<Record<string, unknown>> {
  const files = sources.map((s) => {
    const entry = typeof s === 'object' && s !== null && !Array.isArray(s) ? Object.entries(s) : [];
    const file = entry.length === 1 ? entry[0]![1] : undefined;
    if (typeof file !== 'string' || !path.isAbsolute(file) || file.startsWith('-')) {
      throw new BrineError('BAD_ARGUMENTS', `${fun}: each sources entry must be {name: /absolute/path/to/package-file}, got ${JSON.stringify(s)}`);
    }
    return file;
  });
  if (files.length === 0) return {};
  if (!b.installFiles) throw new BrineError('EXEC_FAILED', `${fun}: the ${b.name} backend cannot install package files`);
  const before = await b.listPkgs(fun, ctx.signal);
  await withErrorsNamingChanges(fun, b, ctx, before, () => b.installFiles!(fun, files, ctx.signal));
  return comparePkgs(before, await b.listPkgs(fun, ctx.signal));
}

/** One name → a string; several → {name: value}; as Salt's version and latest_version return. */
function oneOrMap(names: readonly string[], values: readonly string[]): string | Record<string, string> {
  if (names.length === 1) return values[0]!;
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
}

function namesOf(fun: string, rest: readonly unknown[]): string[] {
  if (rest.length === 0) throw new BrineError('BAD_ARGUMENTS', `${fun}: give at least one package name`);
  return rest.map((r) => checkName(fun, 'package name', String(r), PKG_NAME));
}

export function createPkgFunctions(factories: BackendFactories = { apt: createAptBackend, dnf: createDnfBackend }): ModuleFunction[] {
  const backend = (fun: string): PkgBackend => detectBackend(fun, factories);
  return [
    defineFunction({
      name: 'pkg.install',
      doc: 'Install a package (name, optionally version=) or several (pkgs=[...]); returns {name: {old, new}} for what changed.',
      params: [
        { name: 'name', type: 'string', doc: 'package to install (ignored when pkgs is given)' },
        { name: 'refresh', type: 'bool', default: false, doc: 'update the package index first' },
        { name: 'fromrepo', type: 'string', doc: 'install from this release (apt -t) or repository (dnf)' },
        { name: 'pkgs', type: 'list', keywordOnly: true, doc: 'list of names or {name: version} mappings' },
        { name: 'version', type: 'string', keywordOnly: true, doc: 'version of the single package given as name' },
        { name: 'reinstall', type: 'bool', default: false, keywordOnly: true, doc: 'reinstall even if the version is already installed' },
        { name: 'install_recommends', type: 'bool', keywordOnly: true, doc: 'false leaves out recommended (apt) or weak (dnf) dependencies; unset keeps the host default' },
        { name: 'enablerepo', type: 'string', keywordOnly: true, doc: 'dnf: also use this repository (apt ignores it, as Salt does)' },
        { name: 'disablerepo', type: 'string', keywordOnly: true, doc: 'dnf: do not use this repository (apt ignores it, as Salt does)' },
        { name: 'sources', type: 'list', keywordOnly: true, doc: 'package files: [{name: /absolute/path.deb}] (pkg.installed fetches salt:// and http(s) ones first)' },
      ],
      run: async (ctx, a) => {
        const fun = 'pkg.install';
        if (a.named.sources !== undefined) return installFiles(fun, backend(fun), ctx, a.named.sources);
        const targets = targetsOf(fun, a);
        const b = backend(fun);
        const before = await b.listPkgs(fun, ctx.signal);
        await withErrorsNamingChanges(fun, b, ctx, before, () =>
          b.install(
            fun,
            targets,
            {
              refresh: a.named.refresh,
              fromrepo: a.named.fromrepo,
              reinstall: a.named.reinstall,
              installRecommends: a.named.install_recommends,
              ...(a.named.enablerepo ? { enablerepo: a.named.enablerepo } : {}),
              ...(a.named.disablerepo ? { disablerepo: a.named.disablerepo } : {}),
            },
            ctx.signal,
          ),
        );
        return comparePkgs(before, await b.listPkgs(fun, ctx.signal));
      },
    }),
    defineFunction({
      name: 'pkg.remove',
      doc: 'Remove a package or several (pkgs=[...]); returns {name: {old, new: ""}} for what was removed.',
      params: [
        { name: 'name', type: 'string', doc: 'package to remove (ignored when pkgs is given)' },
        { name: 'pkgs', type: 'list', doc: 'list of package names' },
      ],
      run: async (ctx, a) => {
        const fun = 'pkg.remove';
        const targets = targetsOf(fun, a);
        const b = backend(fun);
        const before = await b.listPkgs(fun, ctx.signal);
        // Like Salt, only installed packages are handed to the package manager.
        const installed = targets.map((t) => t.name).filter((n) => before.has(n));
        if (installed.length === 0) return {};
        await withErrorsNamingChanges(fun, b, ctx, before, () => b.remove(fun, installed, ctx.signal));
        return comparePkgs(before, await b.listPkgs(fun, ctx.signal));
      },
    }),
    defineFunction({
      name: 'pkg.purge',
      doc: 'Remove packages with their configuration files; apt returns {installed: {name: {old, new}}, removed: {...}} (the config-files ones), dnf {name: {old, new}}.',
      params: [
        { name: 'name', type: 'string', doc: 'package to purge (ignored when pkgs is given)' },
        { name: 'pkgs', type: 'list', doc: 'list of package names' },
      ],
      run: async (ctx, a) => {
        const fun = 'pkg.purge';
        const targets = targetsOf(fun, a);
        const b = backend(fun);
        const before = await b.listPkgs(fun, ctx.signal);
        // Installed packages, and removed ones whose configuration files are still there.
        const residual = await b.listRemoved(fun, ctx.signal);
        const names = targets.map((t) => t.name).filter((n) => before.has(n) || residual.has(n));
        if (names.length === 0) return {};
        await withErrorsNamingChanges(fun, b, ctx, before, () => b.purge(fun, names, ctx.signal));
        const installed = comparePkgs(before, await b.listPkgs(fun, ctx.signal));
        // Salt's apt shape: what left the installed list, and what left the config-files list.
        if (b.name === 'apt') return { installed, removed: comparePkgs(residual, await b.listRemoved(fun, ctx.signal)) };
        return installed;
      },
    }),
    defineFunction({
      name: 'pkg.version',
      doc: "Return the installed version of a package ('' if not installed); several names return {name: version}.",
      params: [],
      varargs: true,
      run: async (ctx, a) => {
        const names = namesOf('pkg.version', a.rest);
        const pkgs = await backend('pkg.version').listPkgs('pkg.version', ctx.signal);
        return oneOrMap(
          names,
          names.map((n) => flat(pkgs.get(n))),
        );
      },
    }),
    defineFunction({
      name: 'pkg.list_pkgs',
      doc: 'Return the installed packages as {name: version} (removed=True: those removed but not purged).',
      params: [
        { name: 'versions_as_list', type: 'bool', default: false, doc: 'give each version list as a list instead of a comma-joined string' },
        { name: 'removed', type: 'bool', default: false, keywordOnly: true, doc: 'list packages removed but not purged (apt config-files) instead' },
      ],
      run: async (ctx, a) => {
        const b = backend('pkg.list_pkgs');
        const pkgs = a.named.removed ? await b.listRemoved('pkg.list_pkgs', ctx.signal) : await b.listPkgs('pkg.list_pkgs', ctx.signal);
        const asList = a.named.versions_as_list;
        return Object.fromEntries([...pkgs.keys()].sort().map((n) => [n, asList ? pkgs.get(n)! : flat(pkgs.get(n))]));
      },
    }),
    defineFunction({
      name: 'pkg.latest_version',
      doc: "Return the newest available version of a package if newer than the installed one, else ''; several names return a mapping.",
      params: [{ name: 'refresh', type: 'bool', default: true, keywordOnly: true, doc: 'update the package index first (as Salt does by default)' }],
      varargs: true,
      run: async (ctx, a) => {
        const fun = 'pkg.latest_version';
        const names = namesOf(fun, a.rest);
        const b = backend(fun);
        if (a.named.refresh) await b.refresh(fun, ctx.signal);
        const values: string[] = [];
        for (const n of names) values.push(await b.latestVersion(fun, n, ctx.signal));
        return oneOrMap(names, values);
      },
    }),
    defineFunction({
      name: 'pkg.list_upgrades',
      doc: 'Return the packages an upgrade would change, as {name: new version}.',
      params: [
        { name: 'refresh', type: 'bool', default: true, doc: 'update the package index first' },
        { name: 'dist_upgrade', type: 'bool', default: true, doc: "apt: as dist-upgrade would (Salt's default here), else as upgrade" },
        { name: 'fromrepo', type: 'string', keywordOnly: true, doc: 'apt: the release to prefer (APT::Default-Release); dnf: the only repository' },
      ],
      kwargs: true,
      run: async (ctx, a) => {
        const fun = 'pkg.list_upgrades';
        const b = backend(fun);
        if (a.named.refresh) await b.refresh(fun, ctx.signal);
        return Object.fromEntries(await b.listUpgrades(fun, { dist: a.named.dist_upgrade, fromrepo: a.named.fromrepo }, ctx.signal));
      },
    }),
    defineFunction({
      name: 'pkg.upgrade',
      doc: 'Upgrade all packages (or only pkgs); returns {name: {old, new}} for what changed.',
      params: [
        { name: 'refresh', type: 'bool', default: true, doc: 'update the package index first' },
        { name: 'dist_upgrade', type: 'bool', default: false, doc: 'apt: dist-upgrade (may add and remove packages) instead of upgrade' },
        { name: 'pkgs', type: 'list', keywordOnly: true, doc: 'upgrade only these installed packages' },
        { name: 'fromrepo', type: 'string', keywordOnly: true, doc: 'apt: the target release (-t); dnf: the only repository' },
        { name: 'force_conf_new', type: 'bool', default: false, keywordOnly: true, doc: 'apt: take the new version of changed configuration files' },
      ],
      kwargs: true,
      run: async (ctx, a) => {
        const fun = 'pkg.upgrade';
        const b = backend(fun);
        const names = a.named.pkgs?.map((p) => checkName(fun, 'package name', String(p), PKG_NAME));
        if (a.named.refresh) await b.refresh(fun, ctx.signal);
        const before = await b.listPkgs(fun, ctx.signal);
        const opts = { dist: a.named.dist_upgrade, fromrepo: a.named.fromrepo, forceConfNew: a.named.force_conf_new, ...(names ? { names } : {}) };
        await withErrorsNamingChanges(fun, b, ctx, before, () => b.upgrade(fun, opts, ctx.signal));
        return comparePkgs(before, await b.listPkgs(fun, ctx.signal));
      },
    }),
  ];
}

export const pkgFunctions: readonly ModuleFunction[] = createPkgFunctions();
