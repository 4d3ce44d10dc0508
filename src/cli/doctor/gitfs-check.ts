// `brine doctor master`: the health of the gitfs remotes, as the master last wrote it
// (<cachedir>/gitfs/status.json after each update round). A remote that cannot be fetched but
// still has a checkout served is a WARN (minions get the last good files); one never fetched is
// a FAIL (nothing of it is served).

import type { GitfsStatusFile } from '../../master/index.js';
import { duration, fail, ok, warn, type Check } from './check.js';

const FIX = "check the URL and credentials (gitfs_privkey, gitfs_user/gitfs_password, the host key in known_hosts), then run 'brine fileserver update'";

/** Pure: the gitfs lines, or none when the master serves no gitfs. */
export function judgeGitfs(usesGitfs: boolean, status: GitfsStatusFile | undefined, now: number): Check[] {
  if (!usesGitfs) return [];
  if (status === undefined)
    return [warn('gitfs', 'the master has not reported on its gitfs remotes yet (no gitfs/status.json in cachedir)', 'start the master, wait for its first fetch, then run the doctor again')];
  if (status.remotes.length === 0)
    return [warn('gitfs', 'fileserver_backend lists gitfs but gitfs_remotes is empty', 'add the repositories to gitfs_remotes, or remove gitfs from fileserver_backend')];
  return status.remotes.map((r) => {
    const what = `gitfs ${r.remote}`;
    if (r.ok) return ok(what, r.lastSuccess === undefined ? 'not fetched yet' : `fetched ${duration(now - r.lastSuccess)} ago`);
    const since = r.failingSince === undefined ? '' : ` for ${duration(now - r.failingSince)} (${r.failures} failed fetches)`;
    const err = r.lastError ?? 'unknown error';
    if (r.serving) return warn(what, `unreachable${since}: ${err}; the last good checkout is still served`, FIX);
    return fail(what, `unreachable${since}: ${err}; nothing from this remote is served`, FIX);
  });
}
