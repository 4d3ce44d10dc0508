// git.latest: a clone of a remote repository at `target`, kept at the remote's revision `rev`.
// Arguments, checks, comments and changes follow Salt's salt/states/git.py latest(); the
// update of an existing clone is in git-latest-update.ts.

import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { StateResult } from '../types.js';
import { defineState } from '../types.js';
import { GitCli, parseLsRemote } from './git-cli.js';
import { formatComments, resolveRemoteRev, revsEqual } from './git-latest-plan.js';
import { type LatestRun, updateExisting } from './git-latest-update.js';
import { localCopy } from './salt-url.js';
import { errorMessage } from '../../util/errors.js';

function fail(name: string, comment: string, changes: Record<string, unknown> = {}): StateResult {
  return { name, result: false, changes, comment };
}

/** Salt's salt.utils.url.add_http_basic_auth (https_only=True). */
function withBasicAuth(url: string, user: string | undefined, pass: string | undefined): string | { error: string } {
  if (user === undefined && pass === undefined) return url;
  const m = /^(https?):\/\/(.*)$/.exec(url);
  if (m?.[1] !== 'https') return { error: 'Basic Auth only supported for HTTPS' };
  const cred = pass === undefined ? encodeURIComponent(user ?? '') : `${encodeURIComponent(user ?? '')}:${encodeURIComponent(pass)}`;
  return `https://${cred}@${m[2]}`;
}

/** Salt's redact_http_basic_auth: the password of an https URL shown as XXXXXXXXXX. */
function redact(url: string): string {
  return url.replace(/^(https:\/\/[^:@/]+:)[^@/]*@/, '$1XXXXXXXXXX@');
}

async function cloneFresh(r: LatestRun, opts: { mirror: boolean; depth: number | undefined }): Promise<StateResult> {
  const { git, target, remote, branch, plan } = r;
  const { remoteRev, remoteRevType: revType, desiredUpstream, remoteLoc, rev } = plan;
  const changes: Record<string, unknown> = {};
  const comments: string[] = [];
  if (statSync(target, { throwIfNoEntry: false })?.isDirectory()) {
    const contents = readdirSync(target);
    if (r.forceClone) {
      if (r.test) {
        return {
          name: r.name,
          result: null,
          changes: { 'forced clone': true, new: `${r.name} => ${target}` },
          comment: `Target directory ${target} exists. Since force_clone=True, the contents of ${target} would be deleted, and ${r.name} would be cloned into this directory.`,
        };
      }
      for (const entry of contents) rmSync(path.join(target, entry), { recursive: true, force: true });
      changes['forced clone'] = true;
    } else if (contents.length > 0) {
      return fail(
        r.name,
        `Target '${target}' exists, is non-empty and is not a git repository. Set the 'force_clone' option to True to remove this directory's contents and proceed with cloning the remote repository`,
      );
    }
  }
  if (r.test) return { name: r.name, result: null, changes: { ...changes, new: `${r.name} => ${target}` }, comment: `Repository ${r.name} would be cloned to ${target}` };
  const cloneOpts = opts.mirror ? ['--mirror'] : r.bare ? ['--bare'] : [];
  if (remote !== 'origin') cloneOpts.push('--origin', remote);
  if (opts.depth !== undefined) cloneOpts.push('--depth', String(opts.depth), '--branch', rev);
  try {
    await git.run(['clone', ...cloneOpts, r.fetchUrl, target]);
  } catch (err) {
    return fail(r.name, `Clone failed: ${errorMessage(err)}`, changes);
  }
  changes.new = `${r.name} => ${target}`;
  comments.push(`${r.name} cloned to ${target}${opts.mirror ? ' as mirror' : r.bare ? ' as bare repository' : ''}`);
  const failWith = (msg: string): StateResult => fail(r.name, `${msg}\n\nChanges already made: ${formatComments(comments)}`, changes);
  if (!r.bare) {
    if (remoteRev === undefined) {
      if (rev !== 'HEAD') return failWith(`Repository was cloned but is empty, so ${remote}/${rev} cannot be checked out`);
    } else {
      if (revType === 'tag' && !((await git.probe(['tag', '--list', rev], target)) ?? '').split('\n').includes(rev)) {
        return failWith(`Revision '${rev}' does not exist in clone`);
      }
      if (branch !== undefined && (await git.probe(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], target)) === undefined) {
        const checkoutRev = rev === 'HEAD' ? remoteRev : desiredUpstream || rev;
        await git.run(['checkout', '-b', branch, checkoutRev], target);
        comments.push(`Branch '${branch}' checked out, with ${remoteLoc} as a starting point`);
      }
      const localRev = await git.probe(['rev-parse', 'HEAD'], target);
      const localBranch = await git.probe(['rev-parse', '--abbrev-ref', 'HEAD'], target);
      if (localBranch === undefined && !r.refs.has('HEAD')) {
        return failWith(
          "Remote HEAD refers to a ref that does not exist. This can happen when the default branch on the remote repository is renamed or deleted. If you are unable to fix the remote repository, you can work around this by setting the 'branch' argument (which will ensure that the named branch is created if it does not already exist).",
        );
      }
      if (!revsEqual(localRev, remoteRev, revType)) {
        await git.run(['reset', '--hard', remoteRev], target);
        comments.push(`Repository was reset to ${remoteLoc}`);
      }
      const upstream = (await git.probe(['rev-parse', '--abbrev-ref', `${localBranch}@{upstream}`], target)) ?? false;
      const branches = ((await git.probe(['for-each-ref', '--format=%(refname:short)', 'refs/heads/'], target)) ?? '').split('\n');
      const setOpts = branch !== undefined && !branches.includes(branch) ? undefined : ['--set-upstream-to', String(desiredUpstream)];
      let action: [string[] | undefined, string] | undefined;
      if (!upstream && desiredUpstream) action = [setOpts, `Tracking branch was set to ${desiredUpstream}`];
      else if (upstream && desiredUpstream === false) action = [['--unset-upstream'], 'Tracking branch was unset'];
      else if (desiredUpstream && upstream !== desiredUpstream) action = [setOpts, `Tracking branch was updated to ${desiredUpstream}`];
      if (action?.[0]) {
        await git.run(['branch', ...action[0]], target);
        comments.push(action[1]);
      }
    }
  }
  if (r.submodules && remoteRev !== undefined) {
    try {
      await git.run(['submodule', 'update', '--init', '--recursive'], target);
    } catch (err) {
      return failWith(`Failed to update submodules: ${errorMessage(err)}`);
    }
  }
  const newRev = await git.probe(['rev-parse', 'HEAD'], target);
  if (newRev !== undefined) changes.revision = { old: null, new: newRev };
  return { name: r.name, result: true, changes, comment: formatComments(comments) };
}

export const gitLatest = defineState({
  name: 'git.latest',
  // Salt's git.latest takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a git repository is cloned at a directory and checked out at the remote revision.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'address of the remote repository, as given to git clone' },
    { name: 'rev', type: 'string', default: 'HEAD', doc: "remote branch, tag or SHA1 to check out (HEAD: the remote's default branch)" },
    { name: 'target', type: 'string', doc: 'absolute path of the clone (required)' },
    { name: 'branch', type: 'string', doc: 'local branch to check the revision out into (default: leave the local branch alone)' },
    { name: 'user', type: 'string', doc: 'run git as this user (the minion must run as root)' },
    { name: 'password', type: 'string', doc: 'Windows only in Salt; ignored here' },
    { name: 'update_head', type: 'bool', default: true, doc: 'false: fetch the revision but leave the local HEAD where it is' },
    { name: 'force_checkout', type: 'bool', default: false, doc: 'discard uncommitted changes when checking out another branch' },
    { name: 'force_clone', type: 'bool', default: false, doc: 'empty a non-repository target directory and clone into it' },
    { name: 'force_fetch', type: 'bool', default: false, doc: 'allow non-fast-forward fetches' },
    { name: 'force_reset', type: 'any', default: false, doc: "hard-reset when the update is not a fast-forward (True), or only for remote changes ('remote-changes')" },
    { name: 'submodules', type: 'bool', default: false, doc: 'update submodules (git submodule update --init --recursive)' },
    { name: 'bare', type: 'bool', default: false, doc: 'a bare clone (incompatible with rev)' },
    { name: 'mirror', type: 'bool', default: false, doc: 'a mirror clone (implies bare)' },
    { name: 'remote', type: 'string', default: 'origin', doc: 'name of the remote' },
    { name: 'fetch_tags', type: 'bool', default: true, doc: 'fetch every tag of the remote' },
    { name: 'sync_tags', type: 'bool', default: true, doc: 'delete local tags the remote no longer has, when fetching' },
    { name: 'depth', type: 'int', doc: 'shallow clone of this depth (rev must then be a branch)' },
    { name: 'identity', type: 'any', doc: 'private key path (or list of paths) for ssh remotes' },
    { name: 'https_user', type: 'string', doc: 'HTTP basic auth user (https remotes only)' },
    { name: 'https_pass', type: 'string', doc: 'HTTP basic auth password (https remotes only)' },
    { name: 'refspec_branch', type: 'string', default: '*', doc: 'glob of the branches fetched' },
    { name: 'refspec_tag', type: 'string', default: '*', doc: 'glob of the tags fetched' },
    { name: 'output_encoding', type: 'string', doc: 'accepted for Salt compatibility; git output is read as UTF-8' },
  ],
  example: 'https://github.com/saltstack/salt-bootstrap.git:\n  git.latest:\n    - target: /opt/salt-bootstrap\n    - rev: stable\n    - force_reset: True',
  run: async (ctx, { named: a }) => {
    const name = a.name;
    if (!a.remote) return fail(name, "'remote' argument is required");
    if (!a.target) return fail(name, "'target' argument is required");
    if (!a.rev) return fail(name, `'${a.rev}' is not a valid value for the 'rev' argument`);
    const target = a.target;
    if (!path.isAbsolute(target)) return fail(name, `target '${target}' is not an absolute path`);
    const identity = a.identity === undefined || a.identity === null ? undefined : typeof a.identity === 'string' ? [a.identity] : a.identity;
    if (identity !== undefined && !Array.isArray(identity)) return fail(name, 'identity must be either a list or a string');
    const keys: string[] = [];
    for (const key of (identity ?? []) as unknown[]) {
      // salt:// keys are fetched into the minion's cache first, as Salt's cp.cache_file does.
      const local = typeof key === 'string' && key.startsWith('salt://') ? await localCopy(ctx, key) : key;
      if (local === undefined) return fail(name, `identity '${String(key)}' does not exist.`);
      if (typeof local !== 'string' || !path.isAbsolute(local)) return fail(name, `identity '${String(key)}' is not an absolute path`);
      if (local !== key) chmodSync(local, 0o600);
      keys.push(local);
    }
    if (statSync(target, { throwIfNoEntry: false })?.isFile()) return fail(name, `Target '${target}' exists and is a regular file, cannot proceed`);
    const fetchUrl = withBasicAuth(name, a.https_user, a.https_pass);
    if (typeof fetchUrl === 'object') return fail(name, fetchUrl.error);
    const bare = a.bare || a.mirror;
    if (a.rev !== 'HEAD' && bare) return fail(name, "'rev' is not compatible with the 'mirror' and 'bare' arguments");
    const forceReset = a.force_reset === 'remote-changes' ? 'remote-changes' : Boolean(a.force_reset);
    const git = await GitCli.open({ fun: 'git.latest', user: a.user, identity: keys, signal: ctx.exec.signal });
    if (!git) return fail(name, 'git is not installed on this minion; install it first (pkg.installed: git)');
    let refs: Map<string, string>;
    try {
      refs = parseLsRemote(await git.run(['ls-remote', fetchUrl]));
    } catch (err) {
      return fail(name, `Failed to check remote refs: ${errorMessage(err)}`);
    }
    const plan = resolveRemoteRev(refs, a.rev, a.remote, bare);
    if (a.depth !== undefined && plan.remoteRevType !== 'branch') return fail(name, "When 'depth' is used, 'rev' must be set to the name of a branch on the remote repository");
    if (plan.remoteRev === undefined && !bare && a.rev !== 'HEAD') return fail(name, `No revision matching '${a.rev}' exists in the remote repository`);
    const run: LatestRun = {
      git,
      test: ctx.test,
      name,
      fetchUrl,
      shownUrl: redact(fetchUrl),
      target,
      remote: a.remote,
      branch: a.branch,
      updateHead: a.update_head,
      forceCheckout: a.force_checkout,
      forceFetch: a.force_fetch,
      forceReset,
      forceClone: a.force_clone,
      submodules: a.submodules,
      bare,
      syncTags: a.sync_tags,
      refspecs: a.fetch_tags ? [`refs/heads/${a.refspec_branch}:refs/remotes/${a.remote}/${a.refspec_branch}`, `+refs/tags/${a.refspec_tag}:refs/tags/${a.refspec_tag}`] : [],
      refs,
      plan,
    };
    try {
      if (existsSync(path.join(target, bare ? 'refs' : '.git'))) return await updateExisting(run);
      return await cloneFresh(run, { mirror: a.mirror, depth: a.depth });
    } catch (err) {
      return fail(name, errorMessage(err));
    }
  },
});
