// gitfs_remotes and the gitfs_* options read into one checked record per remote, as Salt 3007
// reads them: a remote is a URL or a one-key mapping {URL: [{param: value}, ...]}; per-remote
// parameters override the global gitfs_<param>; `saltenv` (per remote) and gitfs_saltenv
// (global) map environments to a ref, root or mountpoint. A bad entry is GITFS_CONFIG naming it.

import { createHash } from 'node:crypto';
import { BrineError } from '../../util/errors.js';
import { globMatch } from '../../util/glob.js';
import { checkRelativePath, checkSaltenv } from '../path-check.js';
import { redactUrls } from './git-run.js';
import type { GitAuth } from './credentials.js';

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

function bad(what: string, fix: string): BrineError {
  return new BrineError('GITFS_CONFIG', `${what}; ${fix}`);
}

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

/** A list of one-key mappings (Salt's format) or a mapping, as one mapping. */
function paramsOf(value: unknown, where: string): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const item of value) {
      if (typeof item !== 'object' || item === null || Array.isArray(item) || Object.keys(item).length !== 1) {
        throw bad(`${where}: each parameter must be a one-key mapping such as "- root: salt"`, 'write the parameters as a YAML list of `name: value`');
      }
      Object.assign(out, item);
    }
    return out;
  }
  if (typeof value === 'object') return { ...(value as Record<string, unknown>) };
  throw bad(`${where}: parameters must be a list of one-key mappings`, 'write them as `- root: salt`');
}

function text(v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '';
  throw bad(`${where} must be a string`, 'quote the value');
}

function strings(v: unknown, where: string): string[] {
  if (v === null || v === undefined || v === '') return [];
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(v)) return v.map((x, i) => text(x, `${where}[${i}]`));
  throw bad(`${where} must be a list of strings`, 'write it as a YAML list');
}

/** root and mountpoint: salt:// and outer slashes removed, then the file server's path rules. */
function subPath(v: unknown, where: string): string {
  const raw = text(v, where).replace(/^salt:\/\//, '');
  try {
    return checkRelativePath(raw.replace(/^\/+/, ''), true);
  } catch (err) {
    throw bad(`${where} ${JSON.stringify(raw)} is not a relative path inside the repository`, `${(err as Error).message}`);
  }
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

function bool(v: unknown): boolean {
  return v === true || v === 'true' || v === 'True' || v === 1;
}

/** Every remote of gitfs_remotes, checked; throws GITFS_CONFIG on the first bad one. */
export function readGitfsRemotes(opts: GitfsOptions): GitfsRemote[] {
  const list = opts.gitfs_remotes ?? [];
  if (!Array.isArray(list)) throw bad('gitfs_remotes must be a list of URLs (or one-key mappings of a URL to its parameters)', 'write it as a YAML list');
  const globalSaltenv = saltenvMap(opts.gitfs_saltenv, 'gitfs_saltenv');
  const names = new Set<string>();
  return list.map((entry, i) => {
    let url: string;
    let params: Record<string, unknown> = {};
    if (typeof entry === 'string') url = entry.trim();
    else if (typeof entry === 'object' && entry !== null && !Array.isArray(entry) && Object.keys(entry).length === 1) {
      const [k, v] = Object.entries(entry as Record<string, unknown>)[0]!;
      url = k.trim();
      params = paramsOf(v, `gitfs_remotes[${i}] ${redactUrls(url)}`);
    } else throw bad(`gitfs_remotes[${i}] is neither a URL nor a one-key mapping of a URL to its parameters`, 'write it as `- https://host/repo.git` or `- https://host/repo.git: [{root: salt}]`');
    const shown = redactUrls(url);
    const where = `gitfs_remotes ${shown}`;
    if (url === '') throw bad(`gitfs_remotes[${i}] is an empty URL`, 'give the URL of a git repository');
    for (const k of Object.keys(params)) {
      if (!(OVERRIDES as readonly string[]).includes(k) && !(ONLY as readonly string[]).includes(k) && !IGNORED.has(k)) {
        throw bad(`${where}: unknown parameter ${JSON.stringify(k)}`, `a remote takes ${[...OVERRIDES, ...ONLY].join(', ')}`);
      }
    }
    const pick = (k: (typeof OVERRIDES)[number]): unknown => (k in params ? params[k] : (opts as Record<string, unknown>)[`gitfs_${k}`]);
    const name = text(params.name, `${where} name`);
    if (name !== '' && !/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name)) throw bad(`${where}: name ${JSON.stringify(name)} is not a plain word`, 'use letters, digits, _, - and .');
    const cacheName = name !== '' ? name : createHash('sha256').update(url).digest('hex');
    if (names.has(cacheName)) throw bad(`${where}: another remote has the same ${name !== '' ? `name ${name}` : 'URL'}`, 'give each remote its own name (or remove the duplicate)');
    names.add(cacheName);
    const user = text(pick('user'), `${where} user`);
    const password = text(pick('password'), `${where} password`);
    if (password !== '' && /^http:\/\//i.test(url) && !bool(pick('insecure_auth'))) {
      throw bad(`${where}: a password would be sent over plain http`, 'use an https:// URL, or set insecure_auth: True for this remote if you accept that');
    }
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
      auth: {
        user,
        password,
        privkey: text(pick('privkey'), `${where} privkey`),
        pubkey: text(pick('pubkey'), `${where} pubkey`),
        strictHostKeyChecking: text(opts.gitfs_ssh_strict_host_key_checking ?? 'yes', 'gitfs_ssh_strict_host_key_checking') || 'yes',
        knownHosts: text(opts.gitfs_ssh_known_hosts, 'gitfs_ssh_known_hosts'),
      },
    };
  });
}
