// What a daemon (or `brine call --local`) warns about at start-up, decided from the loaded
// configuration alone: trees that do not exist, and Salt options brine does not honour. Pure
// but for the existence checks; the caller logs each warning (issue 22: never silence).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Role } from './option-spec.js';
import { isUnhonoured, MASTER_BACKENDS, SERVED_BACKENDS, SERVED_EXT_PILLARS, unimplementedSaltOption } from './salt-unimplemented.js';

export interface ConfigWarning {
  /** The option the warning is about. */
  readonly option: string;
  readonly message: string;
}

export interface WarningContext {
  readonly role: Role;
  /** The node serves or reads its own trees: a master, or a minion with file_client: local / --local. */
  readonly localTrees: boolean;
  /** For tests; defaults to a directory check on disk. */
  readonly isDir?: (dir: string) => boolean;
  /** For tests; defaults to a file check on disk. */
  readonly isFile?: (file: string) => boolean;
}

function isDirOnDisk(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function isFileOnDisk(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function dirsOf(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.values(value as Record<string, unknown>)
    .flatMap((d) => (Array.isArray(d) ? d : [d]))
    .filter((d): d is string => typeof d === 'string');
}

/**
 * No top.sls in any file_roots directory: a highstate finds nothing. Salt says so only at debug
 * level ("No contents found in top file ... The 'file_roots' configuration is: ..."), and
 * show_lowstate then prints [] with exit 0; here the operator is told where brine looked.
 */
function topFileWarning(fileRoots: unknown, isDir: (d: string) => boolean, isFile: (f: string) => boolean): ConfigWarning[] {
  const dirs = dirsOf(fileRoots).filter(isDir);
  if (dirs.length === 0 || dirs.some((d) => isFile(path.join(d, 'top.sls')))) return [];
  return [
    {
      option: 'file_roots',
      message: `no top.sls in any file_roots directory (looked in ${dirs.join(', ')}): a highstate (state.apply with no SLS names, state.show_lowstate, state.show_top) finds no states until one is added`,
    },
  ];
}

function treeWarnings(option: 'file_roots' | 'pillar_roots', value: unknown, isDir: (d: string) => boolean): ConfigWarning[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const out: ConfigWarning[] = [];
  for (const [env, dirs] of Object.entries(value as Record<string, unknown>)) {
    for (const dir of Array.isArray(dirs) ? dirs : [dirs]) {
      if (typeof dir !== 'string' || isDir(dir)) continue;
      const what = option === 'file_roots' ? 'salt:// files and top.sls' : 'pillar SLS files and top.sls';
      out.push({ option, message: `${option} directory ${dir} (environment ${env}) does not exist: no ${what} will be found there until it is created` });
    }
  }
  return out;
}

function backendWarnings(value: unknown, role: string): ConfigWarning[] {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  const served = role === 'master' ? [...SERVED_BACKENDS, ...MASTER_BACKENDS] : SERVED_BACKENDS;
  return list
    .filter((b) => !served.includes(String(b)))
    .map((b) => ({
      option: 'fileserver_backend',
      message: MASTER_BACKENDS.includes(String(b))
        ? `fileserver_backend '${String(b)}' is served by the master only and is ignored here: a minion with file_client: local reads its own file_roots (the roots backend)`
        : `fileserver_backend '${String(b)}' is not implemented by brine and is ignored: salt:// is served from ${role === 'master' ? 'the roots and gitfs backends' : 'file_roots'} only`,
    }));
}

/** Salt's top-file options that Salt's minions take from the master; brine compiles highstates on the minion. */
const MINION_READ_TOP_OPTIONS = ['default_top', 'env_order', 'pillarenv_from_saltenv', 'state_top_saltenv', 'top_file_merging_strategy'];

function minionReadWarning(name: string): ConfigWarning {
  return {
    option: name,
    message: `option '${name}' in the master configuration is not sent to minions: brine's minions compile the highstate and read it from their own configuration; set it in the minion configuration (docs/states.md "Several environments")`,
  };
}

/** ext_pillar entries of a kind brine does not have: skipped at each render, as Salt skips an unavailable one. */
function extPillarWarnings(value: unknown, role: Role): ConfigWarning[] {
  if (role === 'minion') {
    // Salt's masterless minion runs ext_pillar; brine's renders its pillar_roots only
    if (!Array.isArray(value) || value.length === 0) return [];
    return [{ option: 'ext_pillar', message: "option 'ext_pillar' is read by the master only and is ignored here: a masterless minion's pillar comes from its pillar_roots" }];
  }
  const kinds = (Array.isArray(value) ? value : []).flatMap((e) => (typeof e === 'object' && e !== null && !Array.isArray(e) ? Object.keys(e) : []));
  return [...new Set(kinds)]
    .filter((k) => !SERVED_EXT_PILLARS.includes(k))
    .map((k) => ({
      option: 'ext_pillar',
      message: `ext_pillar '${k}' is not implemented by brine and is skipped: its data is not in any pillar (brine runs ${SERVED_EXT_PILLARS.join(', ')})`,
    }));
}

/** Warnings for a loaded configuration, in a stable order: trees first, then options by name. */
export function configWarnings(opts: Readonly<Record<string, unknown>>, ctx: WarningContext): ConfigWarning[] {
  const isDir = ctx.isDir ?? isDirOnDisk;
  const out: ConfigWarning[] = [];
  if (ctx.role === 'master' || ctx.localTrees) {
    out.push(...treeWarnings('file_roots', opts.file_roots, isDir), ...treeWarnings('pillar_roots', opts.pillar_roots, isDir));
    // with gitfs the top file may well come from git, which is not fetched yet at start
    const backends = [opts.fileserver_backend].flat().map(String);
    const gitfs = ctx.role === 'master' && backends.some((b) => MASTER_BACKENDS.includes(b));
    if (!gitfs) out.push(...topFileWarning(opts.file_roots, isDir, ctx.isFile ?? isFileOnDisk));
  }
  for (const name of Object.keys(opts).sort()) {
    if (ctx.role === 'master' && MINION_READ_TOP_OPTIONS.includes(name)) {
      out.push(minionReadWarning(name));
      continue;
    }
    if (name === 'fileserver_backend') {
      out.push(...backendWarnings(opts[name], ctx.role));
      continue;
    }
    if (name === 'ext_pillar') {
      out.push(...extPillarWarnings(opts[name], ctx.role));
      continue;
    }
    const row = unimplementedSaltOption(name);
    if (row === undefined || !isUnhonoured(row, opts[name])) continue;
    out.push({ option: name, message: `option '${name}' is a Salt option brine does not implement and is ignored: ${row.lost}` });
  }
  return out;
}
