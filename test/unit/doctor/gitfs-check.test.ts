// `brine doctor master`'s gitfs lines (judgeGitfs, pure): nothing without gitfs; OK with the time
// of the last fetch; WARN for an unreachable remote whose last good checkout is still served;
// FAIL for one never fetched; a WARN when the master has not reported yet.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeGitfs, judgeGitPillar } from '../../../src/cli/doctor/gitfs-check.js';
import { formatCheck } from '../../../src/cli/doctor/check.js';

const NOW = 1_800_000_000_000;

test('gitfs health in brine doctor master', () => {
  assert.deepEqual(judgeGitfs(false, undefined, NOW), []);
  assert.equal(judgeGitfs(true, undefined, NOW)[0]!.level, 'warn');
  assert.equal(judgeGitfs(true, { at: NOW, remotes: [] }, NOW)[0]!.level, 'warn');
  const lines = judgeGitfs(
    true,
    {
      at: NOW,
      remotes: [
        { remote: 'ssh://git@a/r.git', ok: true, failures: 0, lastSuccess: NOW - 30_000, serving: true },
        { remote: 'ssh://git@b/r.git', ok: false, failures: 4, failingSince: NOW - 300_000, lastError: 'ssh: connect to host b port 22: Connection refused', serving: true },
        { remote: 'https://***@c/r.git', ok: false, failures: 1, failingSince: NOW - 5_000, lastError: 'Authentication failed', serving: false },
      ],
    },
    NOW,
  ).map(formatCheck);
  assert.deepEqual(lines, [
    'OK   gitfs ssh://git@a/r.git: fetched 30 s ago.',
    "WARN gitfs ssh://git@b/r.git: unreachable for 5 min (4 failed fetches): ssh: connect to host b port 22: Connection refused; the last good checkout is still served. Fix: check the URL and credentials (gitfs_privkey, gitfs_user/gitfs_password, the host key in known_hosts), then run 'brine fileserver update'",
    "FAIL gitfs https://***@c/r.git: unreachable for 5 s (1 failed fetches): Authentication failed; nothing from this remote is served. Fix: check the URL and credentials (gitfs_privkey, gitfs_user/gitfs_password, the host key in known_hosts), then run 'brine fileserver update'",
  ]);
});

test('git_pillar health in brine doctor master: a remote never fetched is a FAIL because every pillar render fails', () => {
  assert.deepEqual(judgeGitPillar(false, undefined, NOW), []);
  assert.match(formatCheck(judgeGitPillar(true, undefined, NOW)[0]!), /^WARN git_pillar: the master has not reported on its git_pillar remotes yet/);
  const lines = judgeGitPillar(
    true,
    {
      at: NOW,
      remotes: [
        { remote: '__env__ file:///srv/p.git', ok: false, failures: 2, failingSince: NOW - 60_000, lastError: 'does not appear to be a git repository', serving: true },
        { remote: 'master https://***@h/p.git', ok: false, failures: 1, failingSince: NOW - 5_000, lastError: 'Authentication failed', serving: false },
      ],
    },
    NOW,
  ).map(formatCheck);
  assert.deepEqual(lines, [
    "WARN git_pillar __env__ file:///srv/p.git: unreachable for 60 s (2 failed fetches): does not appear to be a git repository; the last good checkout is still served. Fix: check the URL and credentials (git_pillar_privkey, git_pillar_user/git_pillar_password, the host key in known_hosts), then run 'brine git-pillar update'",
    "FAIL git_pillar master https://***@h/p.git: unreachable for 5 s (1 failed fetches): Authentication failed; every pillar render fails (EXT_PILLAR_FAILED) until a fetch succeeds. Fix: check the URL and credentials (git_pillar_privkey, git_pillar_user/git_pillar_password, the host key in known_hosts), then run 'brine git-pillar update'",
  ]);
});
