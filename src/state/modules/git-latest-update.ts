// git.latest on a target that is already a repository: fetch when the wanted revision is
// missing, then fast-forward, hard-reset (force_reset) or switch branch, and set the upstream
// tracking branch, in the steps, comments and changes of Salt's salt/states/git.py latest().

import type { StateResult } from '../types.js';
import type { GitCli } from './git-cli.js';
import { capitalize, formatComments, notFastForwardMessage, type RemoteRev, revsEqual, shortSha, upToDateComment } from './git-latest-plan.js';
import { errorMessage } from '../../util/errors.js';

/** Everything git.latest decided before looking at the target. */
export interface LatestRun {
  git: GitCli;
  test: boolean;
  name: string;
  /** The URL with https credentials added (what the remote should be set to). */
  fetchUrl: string;
  /** The same without credentials, for comments. */
  shownUrl: string;
  target: string;
  remote: string;
  branch: string | undefined;
  updateHead: boolean;
  forceCheckout: boolean;
  forceFetch: boolean;
  forceClone: boolean;
  /** true, false or 'remote-changes' (reset only for remote changes, never to drop local ones). */
  forceReset: boolean | 'remote-changes';
  submodules: boolean;
  bare: boolean;
  syncTags: boolean;
  refspecs: string[];
  refs: ReadonlyMap<string, string>;
  plan: RemoteRev;
}

function result(name: string, res: boolean | null, comment: string, changes: Record<string, unknown>): StateResult {
  return { name, result: res, changes, comment };
}

function fail(r: LatestRun, msg: string, comments: readonly string[], changes: Record<string, unknown>): StateResult {
  const text = comments.length > 0 ? `${msg}\n\nChanges already made: ${formatComments(comments)}` : msg;
  return result(r.name, false, text, changes);
}

async function listRefs(git: GitCli, target: string, kind: 'heads' | 'tags'): Promise<string[]> {
  const out = (await git.probe(['for-each-ref', '--format=%(refname:short)', `refs/${kind}/`], target)) ?? '';
  return out.split('\n').filter((l) => l !== '');
}

export async function updateExisting(r: LatestRun): Promise<StateResult> {
  const { git, target, remote, branch, plan } = r;
  const { remoteRev, remoteRevType: revType, desiredUpstream, remoteLoc, rev } = plan;
  const changes: Record<string, unknown> = {};
  const comments: string[] = [];
  const localBranches = await listRefs(git, target, 'heads');
  const localTags = await listRefs(git, target, 'tags');
  const localRev = await git.probe(['rev-parse', 'HEAD'], target);
  const localBranch = await git.probe(['rev-parse', '--abbrev-ref', 'HEAD'], target);
  if (!r.bare && remoteRev === undefined && localRev !== undefined) {
    return fail(r, 'Remote repository is empty, cannot update from a non-empty to an empty repository', [], changes);
  }
  const needBranchChange = branch !== undefined && branch !== localBranch;
  let baseRev = localRev;
  let baseBranch = localBranch;
  if (needBranchChange) {
    if (!localBranches.includes(branch)) baseRev = remoteRev;
    else {
      baseBranch = branch;
      baseRev = await git.probe(['rev-parse', `${branch}^{commit}`], target);
    }
  }
  const currentUrl = await git.probe(['config', '--get', `remote.${remote}.url`], target);
  const revsMatch = revsEqual(localRev, remoteRev, revType);
  const localChanges = !r.bare && ((await git.probe(['diff', 'HEAD'], target)) ?? '') !== '';
  const resetForLocal = r.forceReset === true;

  if (localChanges && revsMatch) {
    if (!resetForLocal) return result(r.name, true, upToDateComment(target, '', true), changes);
    if (r.test) {
      return result(r.name, null, `${target} is up-to-date, but with local changes. Since 'force_reset' is enabled, these local changes would be reset.`, { 'forced update': true });
    }
  }

  let hasRemoteRev = false;
  if (revType === 'sha1' && baseRev !== undefined && remoteRev !== undefined && baseRev.startsWith(remoteRev)) hasRemoteRev = true;
  else if (remoteRev !== undefined && (await git.probe(['rev-parse', '--verify', '--quiet', `${remoteRev}^{commit}`], target)) !== undefined) {
    if (revType === 'branch') hasRemoteRev = currentUrl !== undefined && (await git.probe(['rev-parse', String(desiredUpstream)], target)) === remoteRev;
    else if (revType === 'tag') {
      if (localTags.includes(rev)) {
        const localTagSha = await git.probe(['rev-parse', `${rev}^{commit}`], target);
        if (localTagSha === remoteRev) hasRemoteRev = true;
        else if (!r.forceReset) {
          return fail(
            r,
            `'${rev}' is a tag, but the remote SHA1 for this tag (${shortSha(remoteRev)}) doesn't match the local SHA1 (${shortSha(localTagSha)}). Set 'force_reset' to True to force this update.`,
            [],
            changes,
          );
        }
      }
    } else hasRemoteRev = true;
  }

  // null: unknown until the fetch; false: local changes or diverged history.
  let fastForward: boolean | null = localChanges ? false : null;
  const isAncestor = async (a: string, b: string): Promise<boolean> => (await git.probe(['merge-base', '--is-ancestor', a, b], target)) !== undefined;
  const headNotUpdated = (): StateResult =>
    result(
      r.name,
      true,
      `${rev === 'HEAD' ? capitalize(String(remoteLoc)) : remoteLoc} is already present and local HEAD (${shortSha(localRev)}) does not match, but update_head=False. HEAD has not been updated locally.`,
      changes,
    );
  if (hasRemoteRev) {
    if (!revsMatch && !r.updateHead && (branch === undefined || branch === localBranch)) return headNotUpdated();
    if (fastForward !== false) fastForward = baseRev === undefined ? !localChanges : await isAncestor(baseRev, String(remoteRev));
  }
  const notFf = (): StateResult => fail(r, notFastForwardMessage({ rev, pre: baseRev, post: remoteRev, branch, localBranch, defaultBranch: plan.defaultBranch, localChanges }), comments, changes);
  if (fastForward === false && !r.forceReset) return notFf();
  const mergeAction = fastForward === false ? 'hard-reset' : fastForward === true ? 'fast-forwarded' : 'updated';
  const upstream: string | false | undefined = baseBranch === undefined ? undefined : ((await git.probe(['rev-parse', '--abbrev-ref', `${baseBranch}@{upstream}`], target)) ?? false);

  if (remoteRev !== undefined && r.fetchUrl !== currentUrl) {
    if (r.test) {
      const actions = [`Remote '${remote}' would be changed from ${currentUrl ?? 'None'} to ${r.shownUrl}`];
      if (!hasRemoteRev) actions.push('Remote would be fetched');
      if (!revsMatch && r.updateHead) {
        changes.revision = { old: localRev ?? null, new: remoteRev };
        if (fastForward === false) changes['forced update'] = true;
        actions.push(`Repository would be ${mergeAction} to ${shortSha(remoteRev)}`);
      }
      if (Object.keys(changes).length > 0) return result(r.name, null, formatComments(actions), changes);
      if (!revsMatch && !r.updateHead) return result(r.name, true, formatComments(actions), changes);
      return result(r.name, true, upToDateComment(target, formatComments(actions)), changes);
    }
    if (currentUrl === undefined) {
      await git.run(['remote', 'add', remote, r.fetchUrl], target);
      comments.push(`Remote '${remote}' set to ${r.shownUrl}`);
      changes.new = `${r.name} => ${remote}`;
    } else {
      await git.run(['remote', 'set-url', remote, r.fetchUrl], target);
      comments.push(`Remote '${remote}' changed from ${currentUrl} to ${r.shownUrl}`);
    }
  }

  if (remoteRev !== undefined) {
    if (r.test) {
      const actions: string[] = [];
      if (!hasRemoteRev) actions.push(`Remote '${remote}' would be fetched`);
      if (!revsMatch && (r.updateHead || needBranchChange)) changes.revision = { old: localRev ?? null, new: remoteRev };
      if (needBranchChange) {
        if (!localBranches.includes(branch)) {
          actions.push(`New branch '${branch}' would be checked out, with ${remoteLoc} as a starting point`);
          if (desiredUpstream) actions.push(`Tracking branch would be set to ${desiredUpstream}`);
        } else actions.push(`Branch '${branch}' would be checked out and ${mergeAction} to ${shortSha(remoteRev)}`);
      } else if (!revsMatch) {
        if (!r.updateHead) actions.push(`Local HEAD (${shortSha(localRev)}) does not match ${remoteLoc} but update_head=False, HEAD would not be updated locally`);
        else if (fastForward === true) actions.push(`Repository would be fast-forwarded from ${shortSha(localRev)} to ${shortSha(remoteRev)}`);
        else actions.push(`Repository would be ${r.forceReset && hasRemoteRev ? 'hard-reset' : 'updated'} from ${shortSha(localRev)} to ${shortSha(remoteRev)}`);
      }
      if (!upstream && desiredUpstream) actions.push(`Tracking branch would be set to ${desiredUpstream}`);
      else if (upstream && desiredUpstream === false) actions.push('Tracking branch would be unset');
      else if (desiredUpstream && upstream !== desiredUpstream) actions.push(`Tracking branch would be updated to ${desiredUpstream}`);
      const formatted = formatComments(actions);
      if (Object.keys(changes).length > 0) return result(r.name, null, formatted, changes);
      if (!revsMatch && !r.updateHead && formatted) return result(r.name, true, formatted, changes);
      return result(r.name, true, upToDateComment(target, formatted), changes);
    }

    let branchOpts: string[] | undefined;
    let upstreamAction = '';
    const setUpstream = (): string[] | undefined => (branch !== undefined && !localBranches.includes(branch) ? undefined : ['--set-upstream-to', String(desiredUpstream)]);
    if (!upstream && desiredUpstream) {
      upstreamAction = `Tracking branch was set to ${desiredUpstream}`;
      branchOpts = setUpstream();
    } else if (upstream && desiredUpstream === false) {
      upstreamAction = 'Tracking branch was unset';
      branchOpts = ['--unset-upstream'];
    } else if (desiredUpstream && upstream !== desiredUpstream) {
      upstreamAction = `Tracking branch was updated to ${desiredUpstream}`;
      branchOpts = setUpstream();
    }
    if (branchOpts && localBranch === undefined) {
      return fail(
        r,
        "Cannot set/unset upstream tracking branch, local HEAD refers to nonexistent branch. This may have been caused by cloning a remote repository for which the default branch was renamed or deleted. If you are unable to fix the remote repository, you can work around this by setting the 'branch' argument (which will ensure that the named branch is created if it does not already exist).",
        comments,
        changes,
      );
    }
    const remoteTagOut = (await git.probe(['ls-remote', '--tags', remote], target)) ?? '';
    const remoteTags = new Set(
      remoteTagOut
        .split('\n')
        .map((l) => l.split('\t')[1] ?? '')
        .filter((ref) => ref.startsWith('refs/tags/') && !ref.includes('^{}'))
        .map((ref) => ref.slice('refs/tags/'.length)),
    );
    const newTags = [...[...remoteTags].filter((t) => !localTags.includes(t)), ...localTags.filter((t) => !remoteTags.has(t))];
    if (newTags.length > 0) {
      hasRemoteRev = false;
      changes.new_tags = newTags;
    }
    if (!hasRemoteRev) {
      try {
        const out = await git.runBoth(['fetch', ...(r.forceFetch ? ['--force'] : []), remote, ...r.refspecs], target);
        if (/->/.test(out.stderr)) comments.push(`${r.name} was fetched, resulting in updated refs`);
      } catch (err) {
        return fail(
          r,
          `Fetch failed. Set 'force_fetch' to True to force the fetch if the failure was due to not being able to fast-forward. Output of the fetch command follows:\n\n${errorMessage(err)}`,
          comments,
          changes,
        );
      }
      if (r.syncTags) {
        for (const t of localTags.filter((t) => !remoteTags.has(t))) await git.run(['tag', '-d', t], target);
      }
      if ((await git.probe(['rev-parse', '--verify', '--quiet', `${remoteRev}^{commit}`], target)) === undefined) {
        return fail(r, `Fetch did not successfully retrieve rev '${rev}' from ${r.name}`, [], changes);
      }
      if (!revsMatch && !r.updateHead && (branch === undefined || branch === localBranch)) return headNotUpdated();
      fastForward = baseRev === undefined ? true : await isAncestor(baseRev, remoteRev);
      if (fastForward === false && !r.forceReset) return notFf();
    }
    if (needBranchChange) {
      if (localChanges && !r.forceCheckout) {
        return fail(r, `Local branch '${localBranch}' has uncommitted changes. Set 'force_checkout' to True to discard them and proceed.`, [], changes);
      }
      const create = !localBranches.includes(branch);
      const checkoutRev = create ? (rev === 'HEAD' ? remoteRev : desiredUpstream || rev) : branch;
      await git.run(['checkout', ...(r.forceCheckout ? ['--force'] : []), ...(create ? ['-b', branch] : []), checkoutRev], target);
      comments.push(create ? `New branch '${branch}' was checked out, with ${remoteLoc} as a starting point` : `'${checkoutRev}' was checked out`);
    }
    if (localChanges) comments.push('Local changes were discarded');
    if (fastForward === false) {
      await git.run(['reset', '--hard', remoteRev], target);
      changes['forced update'] = true;
      comments.push(`Repository was hard-reset to ${remoteLoc}`);
    }
    if (branchOpts) {
      await git.run(['branch', ...branchOpts], target);
      comments.push(upstreamAction);
    }
    if (fastForward === true && !revsEqual(baseRev, remoteRev, revType)) {
      if (desiredUpstream || rev === 'HEAD') {
        if ((await git.probe(['symbolic-ref', '--quiet', 'HEAD'], target)) === undefined) return fail(r, 'Unable to fast-forward, HEAD is detached', comments, changes);
        await git.run(['merge', '--ff-only', remoteRev], target);
        comments.push(`Repository was fast-forwarded to ${remoteLoc}`);
      } else {
        await git.run(['reset', '--hard', rev === 'HEAD' ? remoteRev : rev], target);
        comments.push(`Repository was reset to ${rev} (fast-forward)`);
      }
    }
    if (r.submodules) {
      try {
        await git.run(['submodule', 'update', '--init', '--recursive'], target);
      } catch (err) {
        return fail(r, `Failed to update submodules: ${errorMessage(err)}`, comments, changes);
      }
    }
  } else if (r.bare) {
    if (r.test) return result(r.name, true, upToDateComment(target, `Bare repository at ${target} would be fetched`), changes);
    try {
      const out = await git.runBoth(['fetch', ...(r.forceFetch ? ['--force'] : []), remote, ...r.refspecs], target);
      comments.push(`Bare repository at ${target} was fetched${/->/.test(out.stderr) ? ', resulting in updated refs' : ''}`);
    } catch (err) {
      return fail(
        r,
        `Fetch failed. Set 'force_fetch' to True to force the fetch if the failure was due to not being able to fast-forward. Output of the fetch command follows:\n\n${errorMessage(err)}`,
        comments,
        changes,
      );
    }
  }
  const newRev = await git.probe(['rev-parse', 'HEAD'], target);
  if (!r.bare && !revsEqual(newRev, remoteRev, revType)) return fail(r, 'Failed to update repository', comments, changes);
  if (localRev !== newRev) {
    changes.revision = { old: localRev ?? null, new: newRev ?? null };
    return result(r.name, true, formatComments(comments), changes);
  }
  return result(r.name, true, upToDateComment(target, formatComments(comments)), changes);
}
