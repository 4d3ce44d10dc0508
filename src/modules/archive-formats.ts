// Archives as the archive module and archive.extracted see them: the format from the file's
// magic bytes, the member list (tar/tar.gz/tar.bz2/tar.xz through tar, zip through unzip; argv
// only, never a shell), the check that no member leaves the destination, and extraction.

import { open } from 'node:fs/promises';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { runChecked, which } from './host-tools.js';
import { splitShellWords } from './shell-words.js';

export type ArchiveKind = { format: 'zip' } | { format: 'tar'; compression: 'gz' | 'bz2' | 'xz' | 'none' };

/** Reads the first bytes and names the format; undefined when it is none of tar, gz, bz2, xz, zip. */
export async function detectArchive(file: string): Promise<ArchiveKind | undefined> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await fh.read(head, 0, 512, 0);
    const b = head.subarray(0, bytesRead);
    if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) && (b[3] === 4 || b[3] === 6)) return { format: 'zip' };
    if (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) return { format: 'tar', compression: 'gz' };
    if (b.length >= 3 && b.subarray(0, 3).toString('latin1') === 'BZh') return { format: 'tar', compression: 'bz2' };
    if (b.length >= 6 && b.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return { format: 'tar', compression: 'xz' };
    if (b.length >= 262 && b.subarray(257, 262).toString('latin1') === 'ustar') return { format: 'tar', compression: 'none' };
    return undefined;
  } finally {
    await fh.close();
  }
}

/** The format to use: the detected one, checked against an explicit archive_format. */
export async function archiveKind(fun: string, file: string, wanted?: string): Promise<ArchiveKind> {
  const kind = await detectArchive(file);
  if (wanted !== undefined && wanted !== '' && wanted !== 'tar' && wanted !== 'zip') {
    throw new BrineError('BAD_ARGUMENTS', `${fun}: archive_format '${wanted}' is not supported; use tar or zip (or leave it out to detect it)`);
  }
  if (!kind) throw new BrineError('EXEC_FAILED', `${fun}: ${file} is not a tar (plain, gz, bz2, xz) or zip archive; check the source`);
  if (wanted && wanted !== kind.format) throw new BrineError('EXEC_FAILED', `${fun}: ${file} is a ${kind.format} archive, not ${wanted}; fix archive_format or leave it out`);
  return kind;
}

function tarFlag(kind: ArchiveKind): string[] {
  if (kind.format !== 'tar') return [];
  return { gz: ['-z'], bz2: ['-j'], xz: ['-J'], none: [] }[kind.compression];
}

function needTool(fun: string, tool: string): void {
  if (!which(tool)) throw new BrineError('EXEC_FAILED', `${fun}: '${tool}' is not installed on this minion; install it to handle this archive`);
}

export interface Member {
  /** Path inside the archive, without a trailing slash. */
  path: string;
  isDir: boolean;
  /** Symlink or hard link target, when the member is a link. */
  linkTarget?: string;
  /** A hard link: its target is a path from the archive's root, not from the member's directory. */
  hardLink?: boolean;
}

/** Parses `tar -tv --quoting-style=literal` lines: type char first, name after the time column. */
function parseTarVerbose(fun: string, out: string): Member[] {
  const members: Member[] = [];
  for (const line of out.split('\n')) {
    if (line.trim() === '') continue;
    // size is "major,minor" for devices; a line we cannot read fails closed (its path would go unchecked).
    const m = /^(\S)\S*\s+\S+\s+\S+\s+\S+\s+\S+\s(.*)$/.exec(line);
    if (!m) throw new BrineError('EXEC_FAILED', `${fun}: cannot read tar's listing line '${line}'; refusing to extract an archive that cannot be checked`);
    const type = m[1]!;
    let name = m[2]!;
    let linkTarget: string | undefined;
    if (type === 'l') {
      const at = name.lastIndexOf(' -> ');
      if (at >= 0) [name, linkTarget] = [name.slice(0, at), name.slice(at + 4)];
    } else if (type === 'h') {
      const at = name.lastIndexOf(' link to ');
      if (at >= 0) [name, linkTarget] = [name.slice(0, at), name.slice(at + 9)];
    }
    members.push({ path: name.replace(/\/+$/, ''), isDir: type === 'd', linkTarget, hardLink: type === 'h' || undefined });
  }
  return members;
}

/**
 * Zip members from zipinfo's long listing (`unzip -Z`): the type is the first letter of the
 * permissions; a symlink's target is its stored content (`unzip -p`).
 */
async function listZipMembers(fun: string, file: string, signal?: AbortSignal): Promise<Member[]> {
  needTool(fun, 'unzip');
  // Every name from the short listing (so none escapes the path check), link flags from the long one.
  const names = (await runChecked(fun, ['unzip', '-Z1', '--', file], { signal })).stdout.split('\n').filter((l) => l !== '');
  const long = (await runChecked(fun, ['unzip', '-Z', '--', file], { signal, env: { LC_ALL: 'C' } })).stdout;
  const links = new Set<string>();
  for (const line of long.split('\n')) {
    const m = /^l\S+\s+\S+\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s(.*)$/.exec(line);
    if (m) links.add(m[1]!);
  }
  const members: Member[] = [];
  for (const name of names) {
    const member: Member = { path: name.replace(/\/+$/, ''), isDir: name.endsWith('/') };
    if (links.has(name)) {
      // unzip reads member names as wildcard patterns; a link named with one cannot be read back exactly.
      if (/[[\]*?\\]/.test(name)) throw new BrineError('PATH_REFUSED', `${fun}: archive symlink '${name}' has a wildcard character in its name; refusing to extract this archive`);
      member.linkTarget = (await runChecked(fun, ['unzip', '-p', '--', file, name], { signal })).stdout;
    }
    members.push(member);
  }
  return members;
}

/** Every member of the archive. */
export async function listMembers(fun: string, file: string, kind: ArchiveKind, signal?: AbortSignal): Promise<Member[]> {
  if (kind.format === 'zip') return listZipMembers(fun, file, signal);
  needTool(fun, 'tar');
  const r = await runChecked(fun, ['tar', '-t', '-v', '--quoting-style=literal', ...tarFlag(kind), '-f', file], { signal, env: { LC_ALL: 'C' } });
  return parseTarVerbose(fun, r.stdout);
}

/** Throws PATH_REFUSED when a member (or a link's target) would land outside the destination. */
export function checkMembers(fun: string, members: readonly Member[]): void {
  const escapes = (p: string) => path.isAbsolute(p) || p.split('/').includes('..') || p.includes('\0');
  for (const m of members) {
    if (escapes(m.path)) throw new BrineError('PATH_REFUSED', `${fun}: archive member '${m.path}' would be written outside the destination; refusing to extract this archive`);
    if (m.linkTarget !== undefined && m.hardLink) {
      if (escapes(m.linkTarget))
        throw new BrineError('PATH_REFUSED', `${fun}: archive member '${m.path}' is a hard link to '${m.linkTarget}', outside the destination; refusing to extract this archive`);
    } else if (m.linkTarget !== undefined) {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(m.path), m.linkTarget));
      if (path.isAbsolute(m.linkTarget) || resolved.startsWith('../') || resolved === '..') {
        throw new BrineError('PATH_REFUSED', `${fun}: archive member '${m.path}' links to '${m.linkTarget}', outside the destination; refusing to extract this archive`);
      }
    }
  }
}

// tar options that run programs: an SLS author may pass options, but not a way to run commands.
const REFUSED_TAR_OPTIONS = /^(--to-command|--use-compress-program|-I|--checkpoint-action|--info-script|--new-volume-script|-F|--rsh-command|--rmt-command)/;

/** Extracts into dest (which must exist); `options` are extra tar/unzip arguments (shell-split). */
export async function extractArchive(fun: string, file: string, kind: ArchiveKind, dest: string, options = '', signal?: AbortSignal): Promise<void> {
  const extra = options.trim() === '' ? [] : splitShellWords(options);
  if (kind.format === 'zip') {
    needTool(fun, 'unzip');
    await runChecked(fun, ['unzip', '-o', '-q', ...extra, '--', file, '-d', dest], { signal });
    return;
  }
  const bad = extra.find((o) => REFUSED_TAR_OPTIONS.test(o));
  if (bad) throw new BrineError('BAD_ARGUMENTS', `${fun}: tar option '${bad}' runs programs and is refused; remove it from options`);
  needTool(fun, 'tar');
  await runChecked(fun, ['tar', '-x', ...tarFlag(kind), '-f', file, '-C', dest, ...extra], { signal, env: { LC_ALL: 'C' } });
}
