// Which commit, root and mountpoint of a remote serve each saltenv: Salt 3007's rules as a pure
// function of the remote's settings and its fetched refs. gitfs_base (`base`) is the `base`
// environment; every other branch and tag is the environment of its name (unless
// disable_saltenv_mapping); per-saltenv `ref` mappings rename; the whitelist and blacklist hide.

import { checkSaltenv } from '../path-check.js';
import type { GitRefs } from './git-mirror.js';
import { envExposed, type GitfsRemote } from './remote-config.js';

export interface EnvSource {
  /** The branch, tag or commit ID that was asked for. */
  ref: string;
  commit: string;
  root: string;
  mountpoint: string;
}

const HEX = /^[0-9a-f]{40}$/;

function validEnv(env: string): boolean {
  try {
    checkSaltenv(env);
    return true;
  } catch {
    // a branch like feature/x cannot be a saltenv name (path rules); it is not served
    return false;
  }
}

/** The ref name `env` is served from by this remote, or undefined (Salt's _getconf 'ref'). */
export function refFor(remote: GitfsRemote, env: string): string | undefined {
  if (remote.allSaltenvs !== '') return remote.allSaltenvs;
  const mapped = remote.saltenv.get(env)?.ref;
  if (env === 'base') return mapped ?? remote.base;
  if (remote.disableSaltenvMapping) return mapped;
  return mapped ?? env;
}

/** The commit a ref names, per the remote's ref_types (branch first, then tag, then a commit ID). */
export function resolveRef(remote: GitfsRemote, refs: GitRefs, ref: string, knownCommits: ReadonlySet<string>): string | undefined {
  if (remote.refTypes.includes('branch') && refs.branches.has(ref)) return refs.branches.get(ref);
  if (remote.refTypes.includes('tag') && refs.tags.has(ref)) return refs.tags.get(ref);
  if (remote.refTypes.includes('sha') && HEX.test(ref) && knownCommits.has(ref)) return ref;
  return undefined;
}

/** The environments this remote offers (Salt's _get_envs_from_ref_paths plus the mapped ones). */
export function envsOf(remote: GitfsRemote, refs: GitRefs): Set<string> {
  const revmap = new Map<string, string[]>();
  for (const [env, conf] of remote.saltenv) if (conf.ref !== undefined) revmap.set(conf.ref, [...(revmap.get(conf.ref) ?? []), env]);
  const out = new Set<string>();
  const check = (rname: string) => {
    const mapped = revmap.get(rname);
    if (mapped) for (const e of mapped) out.add(e);
    else if (rname === remote.base) out.add('base');
    else if (!remote.disableSaltenvMapping) out.add(rname);
  };
  if (remote.refTypes.includes('branch')) for (const b of refs.branches.keys()) check(b);
  if (remote.refTypes.includes('tag')) for (const t of refs.tags.keys()) check(t);
  if (HEX.test(remote.base)) out.add('base');
  return new Set([...out].filter((e) => validEnv(e) && envExposed(remote, e)));
}

/**
 * Every environment this remote serves with the commit and paths serving it. `allEnvs` are the
 * environments of all gitfs remotes: a remote with `fallback` serves those it lacks from that ref.
 */
export function envSources(remote: GitfsRemote, refs: GitRefs, knownCommits: ReadonlySet<string>, allEnvs: ReadonlySet<string> = new Set()): Map<string, EnvSource> {
  const out = new Map<string, EnvSource>();
  const add = (env: string, ref: string | undefined) => {
    if (ref === undefined) return;
    const commit = resolveRef(remote, refs, ref, knownCommits);
    if (commit === undefined) return;
    const conf = remote.saltenv.get(env);
    out.set(env, { ref, commit, root: conf?.root ?? remote.root, mountpoint: conf?.mountpoint ?? remote.mountpoint });
  };
  for (const env of envsOf(remote, refs)) add(env, refFor(remote, env));
  if (remote.fallback !== '') {
    for (const env of allEnvs) if (!out.has(env) && validEnv(env) && envExposed(remote, env)) add(env, remote.fallback);
  }
  return out;
}
