// Which branch of a git_pillar remote is checked out for a render, and which pillar
// environment its top file then serves: Salt 3007's GitProvider.get_checkout_target and
// GitPillar.checkout, as pure functions of the remote and the render's pillarenv.

import type { GitRefs } from '../../fileserver/git/index.js';
import type { GitPillarRemote } from './git-pillar-config.js';

/** The branch (or tag) to check out: `__env__` follows the pillarenv, base being git_pillar_base. */
export function checkoutTarget(remote: GitPillarRemote, pillarenv: string | undefined): string {
  if (remote.branch !== '__env__') return remote.branch;
  if (remote.allSaltenvs !== '') return remote.allSaltenvs;
  const target = pillarenv ?? 'base';
  return target === 'base' ? remote.base : target;
}

/** The pillar environment the remote's checkout is for (before `__env__` in `env` is mapped). */
export function envOf(remote: GitPillarRemote, pillarenv: string | undefined): string {
  if (remote.branch === '__env__' && remote.allSaltenvs !== '') return pillarenv ?? 'base';
  if (remote.env !== '') return remote.env;
  if (remote.branch === remote.base) return 'base';
  const tgt = checkoutTarget(remote, pillarenv);
  return tgt === remote.base ? 'base' : tgt;
}

/** The commit of `ref` (a remote branch first, then a tag), then of the fallback; undefined when neither exists. */
export function checkoutCommit(remote: GitPillarRemote, refs: GitRefs, ref: string): string | undefined {
  const find = (r: string) => refs.branches.get(r) ?? refs.tags.get(r);
  return find(ref) ?? (remote.fallback !== '' ? find(remote.fallback) : undefined);
}

/** The pillar environments a remote can serve (for a pillarenv a minion asks for). */
export function envsOffered(remote: GitPillarRemote, refs: GitRefs | undefined): string[] {
  if (remote.branch !== '__env__' || remote.allSaltenvs !== '' || remote.env !== '') return [envOf(remote, undefined)];
  const names = refs ? [...refs.branches.keys(), ...refs.tags.keys()] : [];
  return [...new Set(['base', ...names.filter((n) => n !== remote.base)])];
}
