// How the git layer reads Salt's per-remote parameters (a list of one-key mappings such as
// `- root: pillar`) and their values, shared by gitfs_remotes and the git ext_pillar: each
// reader throws the caller's configuration code (GITFS_CONFIG or GIT_PILLAR_CONFIG) naming
// the entry, and saying what to write instead.

import { createHash } from 'node:crypto';
import { BrineError, type ErrorCode, errorMessage } from '../../util/errors.js';
import type { GitAuth } from './credentials.js';
import { redactUrls } from './git-run.js';
import { checkRelativePath } from '../path-check.js';

export interface ParamReaders {
  bad(what: string, fix: string): BrineError;
  /** A list of one-key mappings (Salt's format) or a mapping, as one mapping. */
  paramsOf(value: unknown, where: string): Record<string, unknown>;
  text(v: unknown, where: string): string;
  /** A YAML list or a comma-separated string. */
  strings(v: unknown, where: string): string[];
  /** root and mountpoint: salt:// and outer slashes removed, then the file server's path rules. */
  subPath(v: unknown, where: string): string;
}

/** Salt's loose booleans in per-remote parameters (`True`, `true`, 1). */
export function bool(v: unknown): boolean {
  return v === true || v === 'true' || v === 'True' || v === 1;
}

export function paramReaders(code: Extract<ErrorCode, 'GITFS_CONFIG' | 'GIT_PILLAR_CONFIG'>): ParamReaders {
  const bad = (what: string, fix: string): BrineError => new BrineError(code, `${what}; ${fix}`);
  const text = (v: unknown, where: string): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (v === null || v === undefined) return '';
    throw bad(`${where} must be a string`, 'quote the value');
  };
  return {
    bad,
    text,
    paramsOf(value, where) {
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
    },
    strings(v, where) {
      if (v === null || v === undefined || v === '') return [];
      if (typeof v === 'string')
        return v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
      if (Array.isArray(v)) return v.map((x, i) => text(x, `${where}[${i}]`));
      throw bad(`${where} must be a list of strings`, 'write it as a YAML list');
    },
    subPath(v, where) {
      const raw = text(v, where).replace(/^salt:\/\//, '');
      try {
        return checkRelativePath(raw.replace(/^\/+/, '').replace(/\/+$/, ''), true);
      } catch (err) {
        throw bad(`${where} ${JSON.stringify(raw)} is not a relative path inside the repository`, `${errorMessage(err)}`);
      }
    },
  };
}

/** One entry of a remotes list: its id (a URL, or `<branch> <URL>` for git_pillar) and parameters. */
export interface RemoteEntry {
  id: string;
  /** The id with any user:password removed, for logs, doctor and the CLI. */
  shown: string;
  /** `<option> <shown>`: how errors name the entry. */
  where: string;
  params: Record<string, unknown>;
  /** The cache directory's name: `name`, else the SHA-256 of the id. */
  cacheName: string;
}

/**
 * A remotes list (Salt's `- <id>` or `- <id>: [{param: value}, ...]`) checked entry by entry:
 * parameters outside `accepted` are refused, each remote gets its own cache directory.
 */
export function readRemoteEntries(list: unknown, option: string, r: ParamReaders, accepted: readonly string[], example: string): RemoteEntry[] {
  if (!Array.isArray(list)) throw r.bad(`${option} must be a list of remotes (or one-key mappings of a remote to its parameters)`, `write it as a YAML list, e.g. ${example}`);
  const names = new Set<string>();
  return list.map((entry, i) => {
    let id: string;
    let params: Record<string, unknown> = {};
    if (typeof entry === 'string') id = entry.trim();
    else if (typeof entry === 'object' && entry !== null && !Array.isArray(entry) && Object.keys(entry).length === 1) {
      const [k, v] = Object.entries(entry as Record<string, unknown>)[0]!;
      id = k.trim();
      params = r.paramsOf(v, `${option}[${i}] ${redactUrls(id)}`);
    } else throw r.bad(`${option}[${i}] is neither a URL nor a one-key mapping of a URL to its parameters`, `write it as ${example}`);
    const shown = redactUrls(id);
    const where = `${option} ${shown}`;
    if (id === '') throw r.bad(`${option}[${i}] is empty`, `give the URL of a git repository, e.g. ${example}`);
    for (const k of Object.keys(params)) {
      if (!accepted.includes(k)) throw r.bad(`${where}: unknown parameter ${JSON.stringify(k)}`, `a remote takes ${accepted.join(', ')}`);
    }
    const name = r.text(params.name, `${where} name`);
    if (name !== '' && !/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name)) throw r.bad(`${where}: name ${JSON.stringify(name)} is not a plain word`, 'use letters, digits, _, - and .');
    const cacheName = name !== '' ? name : createHash('sha256').update(id).digest('hex');
    if (names.has(cacheName)) throw r.bad(`${where}: another remote has the same ${name !== '' ? `name ${name}` : 'URL'}`, 'give each remote its own name (or remove the duplicate)');
    names.add(cacheName);
    return { id, shown, where, params, cacheName };
  });
}

/** The credentials of a remote: per-remote values over the global ones (`pick`), checked. */
export function readAuth(pick: (k: string) => unknown, url: string, where: string, r: ParamReaders, ssh: { strict: unknown; knownHosts: unknown; prefix: string }): GitAuth {
  const password = r.text(pick('password'), `${where} password`);
  if (password !== '' && /^http:\/\//i.test(url) && !bool(pick('insecure_auth'))) {
    throw r.bad(`${where}: a password would be sent over plain http`, 'use an https:// URL, or set insecure_auth: True for this remote if you accept that');
  }
  return {
    user: r.text(pick('user'), `${where} user`),
    password,
    privkey: r.text(pick('privkey'), `${where} privkey`),
    pubkey: r.text(pick('pubkey'), `${where} pubkey`),
    strictHostKeyChecking: r.text(ssh.strict ?? 'yes', `${ssh.prefix}_ssh_strict_host_key_checking`) || 'yes',
    knownHosts: r.text(ssh.knownHosts, `${ssh.prefix}_ssh_known_hosts`),
  };
}
