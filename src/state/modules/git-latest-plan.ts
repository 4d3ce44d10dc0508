// The pure decisions of git.latest, as Salt's salt/states/git.py makes them: which remote
// revision `rev` names (branch, tag or SHA1) from `git ls-remote`, how the state's comments are
// joined, and the words of its "not a fast-forward" failure.

export type RevType = 'branch' | 'tag' | 'sha1';

export interface RemoteRev {
  /** The SHA1 the remote HEAD points at (undefined for an empty remote). */
  headRev: string | undefined;
  /** The remote branch HEAD points at (the first with its SHA1, as Salt finds it). */
  defaultBranch: string | undefined;
  /** The SHA1 the state should end at; undefined when the remote has none (or the clone is bare). */
  remoteRev: string | undefined;
  remoteRevType: RevType | undefined;
  /** `<remote>/<rev>` for a branch; undefined (leave alone) for HEAD; false (unset) for a tag or SHA1. */
  desiredUpstream: string | false | undefined;
  /** How comments name the remote revision, e.g. `origin/main (1a2b3c4)`. */
  remoteLoc: string | undefined;
  /** rev, lowercased when it is taken for a SHA1. */
  rev: string;
}

/** Python's str.capitalize(): the first character upper-cased, the rest lower-cased. */
export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
}

export function shortSha(sha: string | undefined | null): string | undefined {
  return sha == null ? undefined : sha.slice(0, 7);
}

/** Salt's _revs_equal: SHA1s compare by prefix (rev2 may be short), others exactly. */
export function revsEqual(rev1: string | undefined, rev2: string | undefined, type: RevType | undefined): boolean {
  if (rev1 === undefined || rev2 === undefined) return rev1 === rev2;
  return type === 'sha1' ? rev1.startsWith(rev2) : rev1 === rev2;
}

/** Salt's _format_comments: joined with '. ', and a final '.' when there is more than one. */
export function formatComments(comments: readonly string[]): string {
  return comments.join('. ') + (comments.length > 1 ? '.' : '');
}

export function resolveRemoteRev(refs: ReadonlyMap<string, string>, rawRev: string, remote: string, bare: boolean): RemoteRev {
  let rev = rawRev;
  const headRev = refs.get('HEAD');
  let defaultBranch: string | undefined;
  if (headRev !== undefined) {
    for (const [ref, sha] of refs) {
      if (ref.startsWith('refs/heads/') && sha === headRev) {
        defaultBranch = ref.slice('refs/heads/'.length);
        break;
      }
    }
  }
  let remoteRev: string | undefined;
  let remoteRevType: RevType | undefined;
  let desiredUpstream: string | false | undefined = false;
  if (!bare) {
    if (rev === 'HEAD') {
      if (headRev !== undefined) {
        remoteRev = headRev;
        desiredUpstream = undefined;
        remoteRevType = 'sha1';
      }
    } else if (refs.has(`refs/heads/${rev}`)) {
      remoteRev = refs.get(`refs/heads/${rev}`);
      desiredUpstream = `${remote}/${rev}`;
      remoteRevType = 'branch';
    } else if (refs.has(`refs/tags/${rev}^{}`)) {
      remoteRev = refs.get(`refs/tags/${rev}^{}`);
      remoteRevType = 'tag';
    } else if (refs.has(`refs/tags/${rev}`)) {
      remoteRev = refs.get(`refs/tags/${rev}`);
      remoteRevType = 'tag';
    } else if (rev.length <= 40 && /^[0-9a-fA-F]+$/.test(rev)) {
      // ls-remote does not list it, but it looks like a SHA1: assume it is one.
      rev = rev.toLowerCase();
      remoteRev = rev;
      remoteRevType = 'sha1';
    }
  }
  let remoteLoc: string | undefined;
  if (remoteRevType === 'sha1' && remoteRev !== undefined) remoteLoc = rev === 'HEAD' ? `remote HEAD (${remoteRev.slice(0, 7)})` : remoteRev.slice(0, 7);
  else if (remoteRev !== undefined) remoteLoc = `${remoteRevType === 'branch' ? String(desiredUpstream) : rev} (${remoteRev.slice(0, 7)})`;
  return { headRev, defaultBranch, remoteRev, remoteRevType, desiredUpstream, remoteLoc, rev };
}

export interface NotFastForward {
  rev: string;
  pre: string | undefined;
  post: string | undefined;
  branch: string | undefined;
  localBranch: string | undefined;
  defaultBranch: string | undefined;
  localChanges: boolean;
}

/** Salt's _not_fast_forward message (the state fails with it unless force_reset is set). */
export function notFastForwardMessage(n: NotFastForward): string {
  let branchMsg = '';
  if (n.branch === undefined) {
    if (n.rev !== 'HEAD') {
      if (n.localBranch !== n.rev) {
        branchMsg =
          ` The desired rev (${n.rev}) differs from the name of the local branch (${n.localBranch}), if the desired rev is a branch name then a forced update ` +
          `could possibly be avoided by setting the 'branch' argument to '${n.rev}' instead.`;
      }
    } else if (n.defaultBranch !== undefined && n.localBranch !== n.defaultBranch) {
      branchMsg =
        ` The default remote branch (${n.defaultBranch}) differs from the local branch (${n.localBranch}). This could be caused by changing the default ` +
        `remote branch, or if the local branch was manually changed. Rather than forcing an update, it may be advisable to set the 'branch' argument to ` +
        `'${n.defaultBranch}' instead. To ensure that this state follows the '${n.defaultBranch}' branch instead of the remote HEAD, set the 'rev' argument to '${n.defaultBranch}'.`;
    }
  }
  const pre = shortSha(n.pre);
  const post = shortSha(n.post);
  const what = n.localChanges && pre !== post ? `from ${pre} to ${post}` : `to ${post}`;
  const branchNote = n.branch !== undefined && n.branch !== n.localBranch ? ` (after checking out local branch '${n.branch}')` : '';
  const why = n.localChanges ? 'there are uncommitted changes' : 'this is not a fast-forward merge';
  return `Repository would be updated ${what}${branchNote}, but ${why}. Set 'force_reset' to True to force this update${n.localChanges ? ' and discard these changes' : ''}.${branchMsg}`;
}

/** Salt's _uptodate comment. */
export function upToDateComment(target: string, comments: string, localChanges = false): string {
  let c = `Repository ${target} is up-to-date`;
  if (localChanges) c += ", but with local changes. Set 'force_reset' to True to purge local changes.";
  if (comments) c += `\n\nChanges made: ${comments}`;
  return c;
}
