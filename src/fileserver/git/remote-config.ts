// gitfs_remotes and the gitfs_* options read into one checked record per remote, as Salt 3007
// reads them: a remote is a URL or a one-key mapping {URL: [{param: value}, ...]}; per-remote
// parameters override the global gitfs_<param>; `saltenv` (per remote) and gitfs_saltenv
// (global) map environments to a ref, root or mountpoint. A bad entry is GITFS_CONFIG naming it.

import { globMatch } from '../../util/glob.js';
import { checkSaltenv } from '../path-check.js';
import type { GitAuth } from './credentials.js';
import { bool, paramReaders, readAuth, readRemoteEntries } from './remote-params.js';

export type RefType = 'branch' | 'tag' | 'sha';

/** Per-environment settings: which ref, and the root and mountpoint inside it. */
export interface SaltenvConf {
  ref?: string;
  root?: string;
  mountpoint?: string;
}

export interface GitfsRemote {
  /** The URL as configured (Salt's remote id); shown only through `shown`. */
  url: string;
  /** The URL with any user:password removed, for logs, doctor and the CLI. */
  shown: string;
  /** The cache directory's name: `name`, else the SHA-256 of the URL. */
  cacheName: string;
  base: string;
  root: string;
  mountpoint: string;
  refTypes: readonly RefType[];
  disableSaltenvMapping: boolean;
  whitelist: readonly string[];
  blacklist: readonly string[];
  fallback: string;
  allSaltenvs: string;
  updateIntervalS: number;
  saltenv: ReadonlyMap<string, SaltenvConf>;
  auth: GitAuth;
}

/** What the master options hold for gitfs (the schema checks their types). */
export interface GitfsOptions {
  gitfs_remotes?: unknown;
  gitfs_base?: unknown;
  gitfs_root?: unknown;
  gitfs_mountpoint?: unknown;
  gitfs_ref_types?: unknown;
  gitfs_disable_saltenv_mapping?: unknown;
  gitfs_saltenv_whitelist?: unknown;
  gitfs_saltenv_blacklist?: unknown;
  gitfs_fallback?: unknown;
  gitfs_update_interval?: unknown;
  gitfs_saltenv?: unknown;
  gitfs_user?: unknown;
  gitfs_password?: unknown;
  gitfs_insecure_auth?: unknown;
  gitfs_privkey?: unknown;
  gitfs_pubkey?: unknown;
  gitfs_ssh_strict_host_key_checking?: unknown;
  gitfs_ssh_known_hosts?: unknown;
}

/** Salt's PER_REMOTE_OVERRIDES for gitfs plus the auth parameters; PER_REMOTE_ONLY below. */
const OVERRIDES = [
  'base',
  'root',
  'mountpoint',
  'ref_types',
  'disable_saltenv_mapping',
  'saltenv_whitelist',
  'saltenv_blacklist',
  'fallback',
  'update_interval',
  'user',
  'password',
  'insecure_auth',
  'privkey',
  'pubkey',
] as const;
const ONLY = ['name', 'saltenv', 'all_saltenvs'] as const;
/** Accepted and ignored: they tune pygit2/GitPython, which brine does not use. */
const IGNORED = new Set(['ssl_verify', 'refspecs', 'passphrase', 'proxy']);

const readers = paramReaders('GITFS_CONFIG');
const { bad, paramsOf, text, strings, subPath } = readers;

/** Salt's expr_match: equal, a glob, or a regular expression matching the whole name. */
function exprMatch(name: string, expr: string): boolean {
  if (name === expr || globMatch(expr, name)) return true;
  try {
    return new RegExp(`^(?:${expr})$`).test(name);
  } catch {
    return false;
  }
}

/** Salt's check_whitelist_blacklist for an environment name. */
export function envExposed(remote: Pick<GitfsRemote, 'whitelist' | 'blacklist'>, env: string): boolean {
  if (remote.blacklist.some((e) => exprMatch(env, e))) return false;
  return remote.whitelist.length === 0 || remote.whitelist.some((e) => exprMatch(env, e));
}

function saltenvMap(v: unknown, where: string): Map<string, SaltenvConf> {
  const out = new Map<string, SaltenvConf>();
  for (const [env, conf] of Object.entries(paramsOf(v, where))) {
    checkSaltenv(env);
    const p = paramsOf(conf, `${where} ${env}`);
    const c: SaltenvConf = {};
    for (const [k, val] of Object.entries(p)) {
      if (k === 'ref') c.ref = text(val, `${where} ${env} ref`);
      else if (k === 'root') c.root = subPath(val, `${where} ${env} root`);
      else if (k === 'mountpoint') c.mountpoint = subPath(val, `${where} ${env} mountpoint`);
      else throw bad(`${where} ${env}: unknown parameter ${JSON.stringify(k)}`, 'a saltenv mapping takes ref, root and mountpoint');
    }
    out.set(env, c);
  }
  return out;
}

function refTypes(v: unknown, where: string): RefType[] {
  const list = strings(v, where);
  for (const t of list) if (t !== 'branch' && t !== 'tag' && t !== 'sha') throw bad(`${where}: unknown ref type ${JSON.stringify(t)}`, 'use branch, tag and/or sha');
  return list as RefType[];
}

/** Every remote of gitfs_remotes, checked; throws GITFS_CONFIG on the first bad one. */
export function readGitfsRemotes(opts: GitfsOptions): GitfsRemote[] {
  const list = opts.gitfs_remotes ?? [];
  const globalSaltenv = saltenvMap(opts.gitfs_saltenv, 'gitfs_saltenv');
  const accepted = [...OVERRIDES, ...ONLY, ...IGNORED];
  return readRemoteEntries(list, 'gitfs_remotes', readers, accepted, '`- https://host/repo.git` or `- https://host/repo.git: [{root: salt}]`').map(({ id: url, shown, where, params, cacheName }) => {
    const pick = (k: string): unknown => (k in params ? params[k] : (opts as Record<string, unknown>)[`gitfs_${k}`]);
    const interval = Number(pick('update_interval') ?? 60);
    if (!Number.isFinite(interval) || interval <= 0) throw bad(`${where}: update_interval must be a positive number of seconds`, 'e.g. update_interval: 60');
    const saltenv = saltenvMap(params.saltenv, `${where} saltenv`);
    for (const [env, conf] of globalSaltenv) saltenv.set(env, { ...conf, ...saltenv.get(env) });
    return {
      url,
      shown,
      cacheName,
      base: text(pick('base') ?? 'master', `${where} base`) || 'master',
      root: subPath(pick('root'), `${where} root`),
      mountpoint: subPath(pick('mountpoint'), `${where} mountpoint`),
      refTypes: pick('ref_types') === undefined ? ['branch', 'tag', 'sha'] : refTypes(pick('ref_types'), `${where} ref_types`),
      disableSaltenvMapping: bool(pick('disable_saltenv_mapping')),
      whitelist: strings(pick('saltenv_whitelist'), `${where} saltenv_whitelist`),
      blacklist: strings(pick('saltenv_blacklist'), `${where} saltenv_blacklist`),
      fallback: text(pick('fallback'), `${where} fallback`),
      allSaltenvs: text(params.all_saltenvs, `${where} all_saltenvs`),
      updateIntervalS: interval,
      saltenv,
      auth: readAuth(pick, url, where, readers, { strict: opts.gitfs_ssh_strict_host_key_checking, knownHosts: opts.gitfs_ssh_known_hosts, prefix: 'gitfs' }),
    };
  });
}
