// `brine doctor master`: the health of the gitfs and git_pillar remotes, as the master last
// wrote it (<cachedir>/gitfs/status.json, git_pillar/status.json after each update round). A
// remote that cannot be fetched but still has a checkout served is a WARN (minions get the last
// good files or pillar); one never fetched is a FAIL (nothing of it is served, or every pillar
// render fails with EXT_PILLAR_FAILED).

import type { GitfsStatusFile } from '../../master/index.js';
import { duration, fail, ok, warn, type Check } from './check.js';

const FIX = "check the URL and credentials (gitfs_privkey, gitfs_user/gitfs_password, the host key in known_hosts), then run 'brine fileserver update'";
const PILLAR_FIX = "check the URL and credentials (git_pillar_privkey, git_pillar_user/git_pillar_password, the host key in known_hosts), then run 'brine git-pillar update'";

/** Pure: the gitfs lines, or none when the master serves no gitfs. */
export function judgeGitfs(usesGitfs: boolean, status: GitfsStatusFile | undefined, now: number): Check[] {
  if (!usesGitfs) return [];
  if (status === undefined)
    return [warn('gitfs', 'the master has not reported on its gitfs remotes yet (no gitfs/status.json in cachedir)', 'start the master, wait for its first fetch, then run the doctor again')];
  if (status.remotes.length === 0)
    return [warn('gitfs', 'fileserver_backend lists gitfs but gitfs_remotes is empty', 'add the repositories to gitfs_remotes, or remove gitfs from fileserver_backend')];
  return status.remotes.map((r) => judgeRemote(`gitfs ${r.remote}`, r, now, FIX, 'nothing from this remote is served'));
}

/** Pure: the git_pillar lines, or none when no `git` ext_pillar is configured. */
export function judgeGitPillar(usesGitPillar: boolean, status: GitfsStatusFile | undefined, now: number): Check[] {
  if (!usesGitPillar) return [];
  if (status === undefined)
    return [
      warn('git_pillar', 'the master has not reported on its git_pillar remotes yet (no git_pillar/status.json in cachedir)', 'start the master, wait for its first fetch, then run the doctor again'),
    ];
  return status.remotes.map((r) => judgeRemote(`git_pillar ${r.remote}`, r, now, PILLAR_FIX, 'every pillar render fails (EXT_PILLAR_FAILED) until a fetch succeeds'));
}

function judgeRemote(what: string, r: GitfsStatusFile['remotes'][number], now: number, fix: string, never: string): Check {
  if (r.ok) return ok(what, r.lastSuccess === undefined ? 'not fetched yet' : `fetched ${duration(now - r.lastSuccess)} ago`);
  const since = r.failingSince === undefined ? '' : ` for ${duration(now - r.failingSince)} (${r.failures} failed fetches)`;
  const err = r.lastError ?? 'unknown error';
  if (r.serving) return warn(what, `unreachable${since}: ${err}; the last good checkout is still served`, fix);
  return fail(what, `unreachable${since}: ${err}; ${never}`, fix);
}
