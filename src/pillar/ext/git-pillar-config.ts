// The `git` ext_pillar's configuration read as Salt 3007 reads it (salt/pillar/git_pillar.py,
// salt/utils/gitfs.py GitPillar): a list of remotes, each `<branch> <URL>` (or a URL alone, on
// git_pillar_branch) or a one-key mapping of that to its parameters; per-remote parameters
// override the global git_pillar_<param>. A bad entry is GIT_PILLAR_CONFIG naming it.

import { type GitAuth, paramReaders, readAuth, readRemoteEntries, bool } from '../../fileserver/git/index.js';

export interface GitPillarRemote {
  /** The URL as configured; shown only through `shown`. */
  url: string;
  /** `<branch> <URL>` without credentials, for logs, doctor and the CLI (Salt's remote id). */
  shown: string;
  /** Salt's `name` parameter ('' when not given): `brine git-pillar update --repo` matches it. */
  name: string;
  cacheName: string;
  /** The branch or tag to check out, or `__env__` (the minion's pillarenv). */
  branch: string;
  /** git_pillar_base: the branch `__env__` uses for the base environment. */
  base: string;
  /** The pillar environment this remote's top file serves ('' = from the branch). */
  env: string;
  root: string;
  mountpoint: string;
  /** A branch or tag used when the one asked for does not exist. */
  fallback: string;
  /** With `__env__`: the branch every environment is served from. */
  allSaltenvs: string;
  updateIntervalS: number;
  auth: GitAuth;
}

/** What the master options hold for git_pillar (the schema checks their types). */
export interface GitPillarOptions {
  git_pillar_base?: unknown;
  git_pillar_branch?: unknown;
  git_pillar_env?: unknown;
  git_pillar_root?: unknown;
  git_pillar_fallback?: unknown;
  git_pillar_ssl_verify?: unknown;
  git_pillar_update_interval?: unknown;
  git_pillar_includes?: unknown;
  git_pillar_user?: unknown;
  git_pillar_password?: unknown;
  git_pillar_insecure_auth?: unknown;
  git_pillar_privkey?: unknown;
  git_pillar_pubkey?: unknown;
  git_pillar_ssh_strict_host_key_checking?: unknown;
  git_pillar_ssh_known_hosts?: unknown;
}

/** salt/pillar/git_pillar.py PER_REMOTE_OVERRIDES, PER_REMOTE_ONLY, and gitfs.py's AUTH_PARAMS. */
const OVERRIDES = ['base', 'env', 'root', 'ssl_verify', 'refspecs', 'fallback', 'user', 'password', 'insecure_auth', 'privkey', 'pubkey', 'passphrase'] as const;
const ONLY = ['name', 'mountpoint', 'all_saltenvs'] as const;

const readers = paramReaders('GIT_PILLAR_CONFIG');
const { bad, text, subPath } = readers;

const EXAMPLE = '`- git: [master https://host/pillar.git]` or `- git: [{__env__ https://host/pillar.git: [{root: pillar}]}]`';

/** The remotes of one `git` ext_pillar entry; `label` names the entry in errors. */
export function readGitPillarRemotes(value: unknown, opts: GitPillarOptions, label: string): GitPillarRemote[] {
  // Salt calls ext_pillar(minion_id, pillar, *repos): a single string is one remote
  const list = typeof value === 'string' ? [value] : value;
  const g = opts as Record<string, unknown>;
  const interval = Number(opts.git_pillar_update_interval ?? 60);
  if (!Number.isFinite(interval) || interval <= 0) throw bad('git_pillar_update_interval must be a positive number of seconds', 'e.g. git_pillar_update_interval: 60');
  return readRemoteEntries(list, label, readers, [...OVERRIDES, ...ONLY], EXAMPLE).map(({ id, shown, where, params, cacheName }) => {
    const pick = (k: string): unknown => (k in params ? params[k] : g[`git_pillar_${k}`]);
    // Salt's get_url: '<branch> <url>', or the URL alone on git_pillar_branch
    const parts = id.split(/\s+/);
    if (parts.length > 2) throw bad(`${where} has ${parts.length} words`, `write it as '<branch> <URL>' (a root goes in the parameters: ${EXAMPLE})`);
    const [branch, url] = parts.length === 2 ? [parts[0]!, parts[1]!] : [text(opts.git_pillar_branch ?? 'master', 'git_pillar_branch') || 'master', parts[0]!];
    if (branch !== '__env__' && 'base' in params) {
      throw bad(`${where}: base can only be specified if __env__ is specified as the branch name`, "remove 'base' from this remote, or use '__env__' as its branch");
    }
    const auth = readAuth(pick, url, where, readers, {
      strict: opts.git_pillar_ssh_strict_host_key_checking,
      knownHosts: opts.git_pillar_ssh_known_hosts,
      prefix: 'git_pillar',
    });
    const sslVerify = pick('ssl_verify');
    return {
      url,
      shown,
      name: text(params.name, `${where} name`),
      cacheName,
      branch,
      base: text(pick('base') ?? 'master', `${where} base`) || 'master',
      env: text(pick('env'), `${where} env`),
      root: subPath(pick('root'), `${where} root`),
      mountpoint: subPath(params.mountpoint, `${where} mountpoint`),
      fallback: text(pick('fallback'), `${where} fallback`),
      allSaltenvs: text(params.all_saltenvs, `${where} all_saltenvs`),
      updateIntervalS: interval,
      auth: sslVerify === undefined || sslVerify === null || bool(sslVerify) ? auth : { ...auth, sslVerify: false },
    };
  });
}

/** git_pillar_includes (default True): an SLS may include SLS of the other remotes of its environment. */
export function includesOf(opts: GitPillarOptions): boolean {
  return opts.git_pillar_includes === undefined || opts.git_pillar_includes === null || bool(opts.git_pillar_includes);
}
