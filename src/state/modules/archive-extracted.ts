// archive.extracted: an archive's contents are present under a directory. Extraction happens
// only when a member is missing (or if_missing is absent); the archive is checked (hash, format,
// single top-level directory, no member leaving the destination) before anything is written.

import { chown, lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { archiveKind, checkMembers, extractArchive, listMembers, type Member } from '../../modules/archive-formats.js';
import { isRemoteUrl, redact } from '../../modules/index.js';
import { defineState, type StateContext } from '../types.js';
import { resolvePerms, type ResolvedPerms } from './file-perms.js';
import { checkAbsolute, errorText, failed, pending, succeed } from './file-result.js';
import { expectedHash, resolveSource, sourceCandidates, verifySource } from './file-source.js';

/** The first path components of the members: what lands directly in the destination. */
export function topLevel(members: readonly Member[]): { dirs: string[]; files: string[] } {
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const m of members) {
    const parts = m.path.split('/').filter((x) => x !== '' && x !== '.');
    if (parts.length === 0) continue;
    if (parts.length > 1 || m.isDir) dirs.add(parts[0]!);
    else files.add(parts[0]!);
  }
  for (const d of dirs) files.delete(d);
  return { dirs: [...dirs].sort(), files: [...files].sort() };
}

/** The URL of a single http(s):// source in test mode, which Salt 3007 answers without downloading. */
function remoteTestAnswer(ctx: StateContext, source: unknown): string | undefined {
  if (!ctx.test) return undefined;
  const c = sourceCandidates(source);
  if ('error' in c || c.ok.length !== 1) return undefined;
  return isRemoteUrl(c.ok[0]!.url) ? c.ok[0]!.url : undefined;
}

/** Paths below `root` whose owner differs from the wanted one (for user/group). */
async function ownershipDrift(root: string, want: ResolvedPerms): Promise<string[]> {
  if (want.uid === undefined && want.gid === undefined) return [];
  const out: string[] = [];
  const visit = async (p: string) => {
    const st = await lstat(p).catch(() => undefined);
    if (!st) return;
    if ((want.uid !== undefined && st.uid !== want.uid) || (want.gid !== undefined && st.gid !== want.gid)) out.push(p);
    if (st.isDirectory()) for (const e of await readdir(p)) await visit(path.join(p, e));
  };
  await visit(root);
  return out;
}

export const archiveExtracted = defineState({
  name: 'archive.extracted',
  // Salt's archive.extracted takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure an archive (tar, tar.gz/bz2/xz, zip) is extracted into a directory.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the directory to extract into' },
    { name: 'source', type: 'any', required: true, doc: 'salt:// or http(s):// URL or absolute local path of the archive (or a list: first that exists); http(s) needs source_hash or skip_verify' },
    { name: 'source_hash', type: 'string', doc: "expected hash: 'sha256=<hex>', a bare digest, or a hash file URL" },
    { name: 'source_hash_name', type: 'string', doc: 'the file name to look up in a source_hash file (default: the source file name)' },
    { name: 'archive_format', type: 'string', doc: 'tar or zip; detected from the file when left out' },
    { name: 'enforce_toplevel', type: 'bool', default: true, doc: 'refuse archives without a single top-level directory' },
    { name: 'if_missing', type: 'string', doc: 'extract only when this path does not exist' },
    { name: 'options', type: 'string', default: '', doc: 'extra tar/unzip arguments' },
    { name: 'user', type: 'string', doc: 'owner of the extracted files' },
    { name: 'group', type: 'string', doc: 'group of the extracted files' },
    { name: 'clean', type: 'bool', default: false, doc: "remove the archive's top-level paths from name before extracting" },
    { name: 'overwrite', type: 'bool', default: false, doc: 'extract even when every member is already present' },
    { name: 'skip_verify', type: 'bool', default: false, doc: 'do not check the archive against source_hash' },
    { name: 'trim_output', type: 'any', default: false, doc: 'list at most this many extracted files in changes (true: 100)' },
    { name: 'keep_source', type: 'bool', default: true, doc: 'accepted for compatibility: the cached archive is always kept' },
  ],
  example:
    '/opt/app:\n  archive.extracted:\n    - source: salt://app/app-1.2.tar.gz\n    - source_hash: sha256=3f0d2b8a4e6c1f5d7b9a0c2e4f6a8b0d1c3e5f7a9b1d3f5a7c9e1b3d5f7a9c1e\n    - user: app\n    - group: app',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name, 'directory');
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const fun = 'archive.extracted';
    try {
      if (a.if_missing && (await lstat(a.if_missing).catch(() => undefined))) return succeed(name, `Path ${a.if_missing} exists; nothing to extract`);
      const perms = await resolvePerms(fun, { user: a.user, group: a.group });
      if ('error' in perms) return failed(name, perms.error);
      const remote = remoteTestAnswer(ctx, a.source);
      if (remote) {
        // Salt 3007 does not download a remote archive in test mode; it checks source_hash only
        const exp = a.source_hash && !a.skip_verify ? await expectedHash(ctx, a.source_hash, remote) : undefined;
        if (exp && 'error' in exp) return failed(name, exp.error);
        return pending(name, `Archive ${redact(remote)} would be cached (if necessary) and checked to discover if extraction is needed`, {});
      }
      const src = await resolveSource(ctx, a.source, { sourceHash: a.source_hash, sourceHashName: a.source_hash_name, skipVerify: a.skip_verify });
      if ('error' in src) return failed(name, src.error);
      const badHash = a.skip_verify ? undefined : await verifySource(ctx, src.ok, a.source_hash, a.source_hash_name);
      if (badHash) return failed(name, badHash);
      const kind = await archiveKind(fun, src.ok.localPath, a.archive_format);
      const members = await listMembers(fun, src.ok.localPath, kind, ctx.exec.signal);
      checkMembers(fun, members);
      const top = topLevel(members);
      if (a.enforce_toplevel && (top.dirs.length !== 1 || top.files.length > 0)) {
        return failed(
          name,
          `Archive ${src.ok.url} does not have a single top-level directory. To allow this archive to be extracted, set "enforce_toplevel" to False. To avoid a tarbomb, set "name" to a directory of its own`,
        );
      }
      const dest = await stat(name).catch(() => undefined);
      if (dest && !dest.isDirectory()) return failed(name, `${name} exists and is not a directory; remove it first`);
      const missing: string[] = [];
      for (const m of members) if (!(await lstat(path.join(name, m.path)).catch(() => undefined))) missing.push(m.path);
      const topPaths = [...top.dirs, ...top.files].map((t) => path.join(name, t));
      if (missing.length === 0 && !a.overwrite) {
        const drift = (await Promise.all(topPaths.map((t) => ownershipDrift(t, perms)))).flat();
        if (drift.length === 0) return succeed(name, `All files in archive ${src.ok.url} are already present in ${name}`);
        if (ctx.test) return pending(name, `Ownership of ${drift.length} extracted paths would be changed`, { updated_ownership: true });
        for (const p of drift) await chown(p, perms.uid ?? -1, perms.gid ?? -1);
        return succeed(name, `Ownership of ${drift.length} extracted paths updated`, { updated_ownership: true });
      }

      const extracted = members.filter((m) => !m.isDir).map((m) => m.path);
      const limit = a.trim_output === true ? 100 : typeof a.trim_output === 'number' && a.trim_output > 0 ? a.trim_output : undefined;
      const changes: Record<string, unknown> = {
        extracted_files: limit !== undefined && extracted.length > limit ? [...extracted.slice(0, limit), `... and ${extracted.length - limit} more`] : extracted,
      };
      if (!dest) changes.directories_created = [name];
      if (a.clean) changes.removed = topPaths;
      if (ctx.test) return pending(name, `Archive ${src.ok.url} would be extracted to ${name}`, changes);
      await mkdir(name, { recursive: true });
      if (a.clean) for (const t of topPaths) await rm(t, { recursive: true, force: true });
      await extractArchive(fun, src.ok.localPath, kind, name, a.options, ctx.exec.signal);
      for (const t of topPaths) for (const p of await ownershipDrift(t, perms)) await chown(p, perms.uid ?? -1, perms.gid ?? -1);
      return succeed(name, `${src.ok.url} extracted to ${name}`, changes);
    } catch (err) {
      return failed(name, `Unable to extract ${String(a.source)} to ${name}: ${errorText(err)}`);
    }
  },
});
