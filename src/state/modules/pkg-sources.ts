// pkg.installed with sources: packages from files ({name: salt://, http(s):// URL or path of a
// .deb/.rpm}), as Salt's pkg.installed takes them: a package that is not installed is a target
// (test=True says so without fetching anything); an installed one is compared with the version in
// its file (Salt's lowpkg.bin_pkg_info); the files of the targets are fetched and handed to the
// package manager (dpkg -i / dnf install) through pkg.install.

import { runArgv } from '../../modules/host-tools.js';
import type { StateContext, StateResult } from '../types.js';
import { resolveSource } from './file-source.js';
import { forgetPkgList, listPkgs } from './pkg-run-cache.js';
import { stateResult } from './state-result.js';

/** Salt's pack_sources: a list of one-key {name: source} mappings, or undefined when it is not one. */
function packSources(raw: unknown): { name: string; url: string }[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const out: { name: string; url: string }[] = [];
  for (const s of raw) {
    if (typeof s !== 'object' || s === null || Array.isArray(s) || Object.keys(s).length !== 1) return undefined;
    const [name, url] = Object.entries(s)[0]!;
    if (typeof url !== 'string' || url === '') return undefined;
    out.push({ name, url });
  }
  return out;
}

/** The Version field of a package file (dpkg-deb, or rpm for .rpm), '' when it cannot be read. */
async function fileVersion(ctx: StateContext, file: string): Promise<string> {
  const argv = file.endsWith('.rpm') ? ['rpm', '-qp', '--queryformat', '%{VERSION}-%{RELEASE}', '--', file] : ['dpkg-deb', '-f', '--', file, 'Version'];
  const r = await runArgv('pkg.installed', argv, { signal: ctx.exec.signal }).catch(() => undefined);
  return r?.retcode === 0 ? r.stdout.trim() : '';
}

export async function installedFromSources(ctx: StateContext, name: string, raw: unknown, reinstall: boolean): Promise<StateResult> {
  const sources = packSources(raw);
  if (!sources) return stateResult(name, false, "Invalidly formatted 'sources' parameter: give a list of {package name: salt://, http(s):// URL or path of its .deb/.rpm}");
  const before = await listPkgs(ctx);
  if (typeof before === 'string') return stateResult(name, false, before);
  const targets: { name: string; url: string; file?: string }[] = [];
  const problems: string[] = [];
  for (const s of sources) {
    const have = before.get(s.name) ?? [];
    if (have.length === 0) {
      targets.push(s);
      continue;
    }
    if (!reinstall && ctx.test) continue;
    // installed: Salt caches the file and installs it when its version differs (or reinstall)
    const src = await resolveSource(ctx, s.url, { skipVerify: true });
    if ('error' in src) {
      problems.push(`Unable to cache ${s.url}: ${src.error}`);
      continue;
    }
    if (reinstall || !have.includes(await fileVersion(ctx, src.ok.localPath))) targets.push({ ...s, file: src.ok.localPath });
  }
  if (problems.length > 0) return stateResult(name, false, problems.join('\n'));
  if (targets.length === 0) return stateResult(name, true, 'All specified packages are already installed');
  const names = targets.map((t) => t.name);
  if (ctx.test) {
    return stateResult(name, null, `The following packages would be installed/updated: ${names.join(', ')}`, Object.fromEntries(names.map((n) => [n, { new: 'installed', old: '' }])));
  }
  const files: Record<string, string>[] = [];
  for (const t of targets) {
    if (t.file) {
      files.push({ [t.name]: t.file });
      continue;
    }
    const src = await resolveSource(ctx, t.url, { skipVerify: true });
    if ('error' in src) return stateResult(name, false, `Unable to cache ${t.url}: ${src.error}`);
    files.push({ [t.name]: src.ok.localPath });
  }
  const r = await ctx.call('pkg.install', [], { sources: files });
  forgetPkgList(ctx);
  if (!r.success) return stateResult(name, false, r.error?.message ?? String(r.return));
  const changes = r.return as Record<string, unknown> | undefined;
  const after = await listPkgs(ctx);
  const failed = typeof after === 'string' ? names : names.filter((n) => !after.has(n));
  if (failed.length) return stateResult(name, false, `The following packages failed to install/update: ${failed.join(', ')}`, changes ?? {});
  return stateResult(name, true, `The following packages were installed/updated: ${names.join(', ')}`, changes ?? {});
}
