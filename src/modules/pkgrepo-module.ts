// Package repositories, as Salt's pkg module manages them: pkg.list_repos, pkg.get_repo,
// pkg.mod_repo, pkg.del_repo, plus pkg.refresh_db. apt sources lines or dnf .repo sections,
// chosen by which package manager the host has (or by the caller, for tests and chroots).

import { BrineError } from '../util/errors.js';
import { runChecked, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';
import { addRepoKey } from './apt-keys.js';
import { AptSources, formatSourceLine, parseSourceLine, repoFromLine, type AptRepo, writeAtomic } from './pkgrepo-apt.js';
import { checkRepoId, repoValue, YumRepos } from './pkgrepo-dnf.js';

export interface PkgrepoOptions {
  /** Force a backend instead of detecting apt-get or dnf on PATH. */
  backend?: 'apt' | 'dnf';
  /** apt's configuration directory (sources.list and sources.list.d/ in it); /etc/apt. */
  aptRoot?: string;
  /** dnf's repository directory; /etc/yum.repos.d. */
  reposDir?: string;
  /** The keyring apt-key adds keys to (`apt-key --keyring`); apt's own when unset. */
  aptKeyring?: string;
}

type Backend = { kind: 'apt'; sources: AptSources } | { kind: 'dnf'; repos: YumRepos };

function backendOf(fun: string, o: PkgrepoOptions): Backend {
  const kind = o.backend ?? (which('apt-get') ? 'apt' : which('dnf') ? 'dnf' : undefined);
  if (kind === 'apt') return { kind, sources: new AptSources(o.aptRoot ?? '/etc/apt') };
  if (kind === 'dnf') return { kind, repos: new YumRepos(o.reposDir ?? '/etc/yum.repos.d') };
  throw new BrineError('EXEC_FAILED', `${fun}: no supported package manager on this host (neither apt-get nor dnf is on PATH); repositories can be managed only for apt and dnf`);
}

/** The public shape of an apt repository (Salt's get_repo keys). */
function aptView(r: AptRepo): Record<string, unknown> {
  return { type: r.type, uri: r.uri, dist: r.dist, comps: r.comps, architectures: r.architectures, signedby: r.signedby, disabled: r.disabled, file: r.file, line: r.line };
}

function listOf(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  return (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** The apt repository a caller asks for: the line, with comps/architectures/signedby/disabled overriding it. */
export function aptRequest(fun: string, repo: string, kw: Record<string, unknown>): Omit<AptRepo, 'file' | 'line'> {
  const r = repoFromLine(fun, repo);
  const comps = listOf(kw.comps);
  const arch = listOf(kw.architectures);
  const signedby = kw.signedby ?? kw['signed-by'];
  const disabled = kw.disabled !== undefined ? Boolean(kw.disabled) : kw.enabled !== undefined ? !kw.enabled : r.disabled;
  const out = { ...r, disabled };
  if (comps) out.comps = comps;
  if (arch) out.architectures = arch;
  if (signedby !== undefined && signedby !== null) out.signedby = String(signedby);
  // Re-parse what will be written, so that every value is checked the same way.
  return { ...repoFromLine(fun, formatSourceLine({ ...out, disabled: false })), disabled: out.disabled };
}

// dnf keys taken from the state's own arguments: humanname is Salt's name for the `name=` key;
// the apt key arguments are not .repo keys.
const DNF_NOT_KEYS = new Set(['file', 'basedir', 'refresh', 'refresh_db', 'humanname', 'saltenv', 'aptkey', 'key_url', 'key_text', 'keyid', 'keyserver', 'allow_insecure_key', 'clean_file']);

export function dnfRequest(fun: string, kw: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  if (kw.humanname !== undefined && kw.humanname !== null) out.name = repoValue(fun, 'name', kw.humanname);
  for (const [k, v] of Object.entries(kw)) {
    if (DNF_NOT_KEYS.has(k) || v === undefined || v === null) continue;
    out[k] = repoValue(fun, k, v);
  }
  return out;
}

export function createPkgrepoFunctions(opts: PkgrepoOptions = {}): ModuleFunction[] {
  return [
    defineFunction({
      name: 'pkg.list_repos',
      doc: 'List the configured repositories: apt {uri: [repo, ...]}, dnf {id: {key: value, file}}.',
      params: [],
      run: async () => {
        const b = backendOf('pkg.list_repos', opts);
        if (b.kind === 'dnf') return Object.fromEntries(await b.repos.list());
        const out = new Map<string, unknown[]>();
        for (const r of await b.sources.list()) out.set(r.uri, [...(out.get(r.uri) ?? []), aptView(r)]);
        return Object.fromEntries(out);
      },
    }),
    defineFunction({
      name: 'pkg.get_repo',
      doc: 'Return one repository (apt: by its sources line; dnf: by id), or {} when it is not configured (apt: or the name is not a sources line, as in Salt).',
      params: [{ name: 'repo', type: 'string', required: true, doc: "apt: 'deb http://... suite comp'; dnf: the repository id" }],
      run: async (_ctx, a) => {
        const fun = 'pkg.get_repo';
        const b = backendOf(fun, opts);
        if (b.kind === 'dnf') return (await b.repos.get(checkRepoId(fun, a.named.repo))) ?? {};
        // Salt's get_repo: a name that is not a sources line (a dnf id asked on apt, as
        // rabbitmq-formula's clean states do) is an invalid entry that matches no repository
        const wanted = /[\n\r\0]/.test(a.named.repo) ? undefined : parseSourceLine(a.named.repo, '');
        const r = wanted ? await b.sources.find(wanted) : undefined;
        return r ? aptView(r) : {};
      },
    }),
    defineFunction({
      name: 'pkg.mod_repo',
      doc: 'Add a repository or change it (apt: comps, architectures, signedby, disabled, file; dnf: baseurl, gpgcheck, enabled ...); returns it.',
      params: [
        { name: 'repo', type: 'string', required: true, doc: 'apt: the sources line; dnf: the repository id' },
        { name: 'file', type: 'string', doc: 'apt: the .list file for a new repository (default sources.list); dnf: the .repo file (default <id>.repo)' },
        { name: 'saltenv', type: 'string', default: 'base', doc: 'apt: the file server environment of a salt:// key_url' },
      ],
      kwargs: true,
      run: async (ctx, a) => {
        const fun = 'pkg.mod_repo';
        const b = backendOf(fun, opts);
        if (b.kind === 'dnf') {
          const id = checkRepoId(fun, a.named.repo);
          const keys = dnfRequest(fun, a.extra);
          const existing = await b.repos.get(id);
          if (!existing && keys.baseurl === undefined && keys.mirrorlist === undefined && keys.metalink === undefined) {
            throw new BrineError('BAD_ARGUMENTS', `${fun}: a new repository '${id}' needs baseurl, mirrorlist or metalink`);
          }
          const file = a.named.file !== undefined ? b.repos.checkFile(fun, a.named.file) : b.repos.defaultFile(id);
          await b.repos.put(id, keys, file);
          return (await b.repos.get(id)) ?? {};
        }
        const want = aptRequest(fun, a.named.repo, a.extra);
        const file = b.sources.checkFile(fun, a.named.file ?? b.sources.mainFile);
        const comment = typeof a.extra.comments === 'string' ? a.extra.comments : Array.isArray(a.extra.comments) ? a.extra.comments.join(' ') : undefined;
        if (comment !== undefined && /[\n\r\0]/.test(comment)) throw new BrineError('BAD_ARGUMENTS', `${fun}: comments must be one line`);
        // Salt's pkgrepo.managed empties the file first when asked (clean_file: True)
        if (a.extra.clean_file === true) await writeAtomic(file, '');
        // Salt's mod_repo adds the key first: a line whose key failed is never written
        await addRepoKey(ctx, a.extra, want.signedby, a.named.saltenv, opts.aptKeyring ? { aptKeyring: opts.aptKeyring } : {});
        await b.sources.put(want, formatSourceLine(want, comment), file);
        const r = await b.sources.find(want);
        return r ? aptView(r) : {};
      },
    }),
    defineFunction({
      name: 'pkg.del_repo',
      doc: 'Remove a repository (apt: every line of it; dnf: its section); a file left empty is deleted.',
      params: [{ name: 'repo', type: 'string', required: true, doc: 'apt: the sources line; dnf: the repository id' }],
      run: async (_ctx, a) => {
        const fun = 'pkg.del_repo';
        const b = backendOf(fun, opts);
        if (b.kind === 'dnf') {
          const file = await b.repos.remove(checkRepoId(fun, a.named.repo));
          if (!file) throw new BrineError('EXEC_FAILED', `${fun}: repository '${a.named.repo}' is not configured`);
          return `Repo '${a.named.repo}' has been removed from ${file}`;
        }
        const files = await b.sources.remove(repoFromLine(fun, a.named.repo));
        if (files.length === 0) throw new BrineError('EXEC_FAILED', `${fun}: repository '${a.named.repo}' is not configured`);
        return `Repo '${a.named.repo}' has been removed from ${files.join(', ')}`;
      },
    }),
    defineFunction({
      name: 'pkg.refresh_db',
      doc: 'Update the package index (apt-get update or dnf makecache); true on success.',
      params: [],
      run: async () => {
        const b = backendOf('pkg.refresh_db', opts);
        if (b.kind === 'apt') await runChecked('pkg.refresh_db', ['apt-get', '-q', 'update'], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
        else await runChecked('pkg.refresh_db', ['dnf', '-q', '-y', 'makecache', '--refresh']);
        return true;
      },
    }),
  ];
}

export const pkgrepoFunctions: readonly ModuleFunction[] = createPkgrepoFunctions();
