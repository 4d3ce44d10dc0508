// brine doctor's decisions and formatting, without processes: each line starts with its level,
// WARN/FAIL carry the fix, only FAIL fails the run; the master key against master_finger and the
// pin; the key state a probe reports; the running daemon's view; keys, duplicate IDs, flapping.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  duration,
  exitCodeFor,
  fail,
  formatCheck,
  formatChecks,
  groupsFor,
  judgeDenied,
  judgeFlapping,
  judgeKeyCounts,
  judgeKeyState,
  judgeMasterFinger,
  judgeMasterKey,
  judgeMinionStatus,
  ok,
  summarizeId,
  warn,
  DUPLICATE_WINDOW_MS,
} from '../../../src/cli/doctor/index.js';
import type { MinionStatus, SessionInfo } from '../../../src/protocol/index.js';
import type { IdCheck } from '../../../src/minion/index.js';

const A = `${'aa:'.repeat(31)}aa`;
const B = `${'bb:'.repeat(31)}bb`;
const C = `${'cc:'.repeat(31)}cc`;
const NOW = 1_740_830_400_000;

describe('formatting and exit status', () => {
  it('prints one line per check: the level, what, the detail, and the fix only when not OK', () => {
    assert.equal(formatCheck(ok('keys', '1 accepted')), 'OK   keys: 1 accepted.');
    assert.equal(formatCheck(warn('keys', '1 pending.', 'accept it')), 'WARN keys: 1 pending. Fix: accept it');
    assert.equal(formatCheck(fail('master', 'down\n  really', 'start it')), 'FAIL master: down really. Fix: start it');
    // an OK check never shows a fix even if one was set
    assert.equal(formatCheck({ level: 'ok', what: 'x', detail: 'y', fix: 'z' }), 'OK   x: y.');
    assert.equal(formatChecks([]), '');
    assert.equal(formatChecks([ok('a', 'b'), warn('c', 'd', 'e')]), 'OK   a: b.\nWARN c: d. Fix: e\n');
  });

  it('exits 1 only when a line is FAIL; warnings alone pass', () => {
    assert.equal(exitCodeFor([]), 0);
    assert.equal(exitCodeFor([ok('a', 'b'), warn('c', 'd', 'e')]), 0);
    assert.equal(exitCodeFor([ok('a', 'b'), fail('c', 'd', 'e')]), 1);
  });

  it('words durations for sentences', () => {
    assert.equal(duration(4_400), '4 s');
    assert.equal(duration(240_000), '4 min');
    assert.equal(duration(3 * 3_600_000), '3 h');
  });

  it('runs the groups whose config file exists', () => {
    assert.deepEqual(
      groupsFor('/etc/brine', (f) => f === '/etc/brine/minion'),
      ['minion'],
    );
    assert.deepEqual(
      groupsFor('/etc/brine', (f) => f === '/etc/brine/master'),
      ['master'],
    );
    assert.deepEqual(
      groupsFor('/etc/brine', () => true),
      ['minion', 'master'],
    );
    assert.deepEqual(
      groupsFor('/etc/brine', () => false),
      [],
    );
  });
});

describe('the master key (master_finger, then the pin)', () => {
  const pinFile = '/pki/masters/m_4506.pub';
  const none = { masterFinger: [], masterFingerNormalized: [] };

  it('OK when it matches the pin, and when nothing is pinned yet (trust on first use)', () => {
    const [same] = judgeMasterKey('m', A, { pinned: A, pinFile, ...none });
    assert.equal(same?.level, 'ok');
    assert.match(same!.detail, /matches the pinned key in \/pki\/masters\/m_4506\.pub/);
    const [first] = judgeMasterKey('m', A, { pinFile, ...none });
    assert.equal(first?.level, 'ok');
    assert.match(first!.detail, /not pinned yet/);
  });

  it('FAIL on a changed key, naming both fingerprints and how to re-trust', () => {
    const checks = judgeMasterKey('m', A, { pinned: B, pinFile, ...none });
    assert.equal(checks.length, 1);
    assert.equal(checks[0]!.level, 'fail');
    assert.ok(checks[0]!.detail.includes(A) && checks[0]!.detail.includes(B), checks[0]!.detail);
    assert.match(checks[0]!.detail, /refuses this master and retries it with backoff \(MASTER_KEY_CHANGED\)/);
    assert.match(checks[0]!.fix!, /delete \/pki\/masters\/m_4506\.pub \(or add \S+ to master_finger\)/);
  });

  it('FAIL on a master_finger mismatch before looking at the pin; OK when any listed fingerprint matches', () => {
    const bad = judgeMasterKey('m', A, { pinned: A, pinFile, masterFinger: [`BB${B.slice(2)}`], masterFingerNormalized: [B] });
    assert.equal(bad.length, 1);
    assert.equal(bad[0]!.level, 'fail');
    assert.match(bad[0]!.detail, /MASTER_FINGER_MISMATCH/);
    assert.ok(bad[0]!.fix!.includes(`add ${A} to master_finger`));
    // a master_finger that is not even a fingerprint never matches
    assert.equal(judgeMasterKey('m', A, { pinFile, masterFinger: ['nonsense'], masterFingerNormalized: [undefined] })[0]!.level, 'fail');
    const good = judgeMasterKey('m', A, { pinned: B, pinFile, masterFinger: [B, A], masterFingerNormalized: [B, A] });
    assert.equal(good[0]!.level, 'ok', 'a listed key is trusted even over an older pin');
    assert.match(good[0]!.detail, /listed in master_finger/);
  });

  it('WARN when master_finger is unset, OK when set', () => {
    assert.equal(judgeMasterFinger([]).level, 'warn');
    assert.match(judgeMasterFinger([]).fix!, /brine key -F master/);
    assert.equal(judgeMasterFinger([A, B]).level, 'ok');
  });
});

describe('the key state a probe reports', () => {
  it('accepted is OK, pending WARN with the accept command, busy WARN', () => {
    assert.deepEqual(judgeKeyState('k', 'web1', { status: 'accepted', message: 'accepted' }), ok('k', 'the key of web1 is accepted'));
    const p = judgeKeyState('k', 'web1', { status: 'pending', message: 'in pending' });
    assert.equal(p.level, 'warn');
    assert.match(p.fix!, /brine key -a web1/);
    assert.equal(judgeKeyState('k', 'web1', { status: 'busy', message: 'later' }).level, 'warn');
  });

  it('refusals FAIL with the master’s reason and the catalogue fix for this ID', () => {
    const r = judgeKeyState('k', 'web1', { status: 'rejected', message: 'rejected by an operator' });
    assert.equal(r.level, 'fail');
    assert.match(r.detail, /^rejected: rejected by an operator/);
    assert.match(r.fix!, /brine key -d web1/);
    const d = judgeKeyState('k', 'web1', { status: 'denied', message: `accepted: ${A}; this minion: ${B}` });
    assert.equal(d.level, 'fail');
    assert.ok(d.detail.includes(A) && d.detail.includes(B));
    assert.match(d.fix!, /brine key --replace web1/);
    assert.equal(judgeKeyState('k', 'web1', { status: 'invalid_id', message: 'bad' }).level, 'fail');
    assert.match(judgeKeyState('k', 'web1', { status: 'full', message: 'full' }).fix!, /max_minions/);
    assert.match(judgeKeyState('k', 'web1', { status: 'error', message: 'versions' }).fix!, /Upgrade the older side/);
  });
});

describe('the ID in one line', () => {
  const idOk: IdCheck = { level: 'ok', topic: 'id', cause: 'ok', message: 'web1 (from `id:` in the minion config)' };
  it('OK shows the ID and its source', () => {
    const c = summarizeId([idOk, { level: 'ok', topic: 'cache', cause: 'x', message: 'fine' }]);
    assert.equal(c.level, 'ok');
    assert.match(c.detail, /^web1 \(from `id:` in the minion config\)/);
  });
  it('the worst finding wins, with its fix and a pointer to brine doctor id', () => {
    const c = summarizeId([
      idOk,
      { level: 'warn', topic: 'cache', cause: 'stale_cache', message: 'stale', fix: 'delete it' },
      { level: 'fail', topic: 'machine_id', cause: 'cloned_image', message: 'CLONED', fix: 'delete the cache' },
    ]);
    assert.equal(c.level, 'fail');
    assert.match(c.detail, /^CLONED \(and 1 more finding\)$/);
    assert.match(c.fix!, /^delete the cache; run 'brine doctor id'/);
  });
});

describe('the running minion', () => {
  const status = (over: Partial<MinionStatus['links'][number]> = {}, queue = { returnQueue: 2, returnsDropped: 0 }): MinionStatus => ({
    t: 'minion_status',
    id: 'web1',
    startedAt: NOW - 60_000,
    links: [{ endpoint: 'salt:4506', state: 'ready', connectedSince: NOW - 30_000, rttMs: 0.42, reconnects: 1, attempts: 2, ...over }],
    ...queue,
  });

  it('OK with the RTT and the queue depth when connected', () => {
    const [link, queue] = judgeMinionStatus(status(), NOW, 'brine minion');
    assert.equal(link!.level, 'ok');
    assert.equal(link!.detail, 'running as web1, connected for 30 s, heartbeat RTT 0.4 ms, 1 reconnect since start');
    assert.equal(queue!.level, 'ok');
    assert.match(queue!.detail, /return queue 2 waiting for acknowledgement, 0 dropped/);
  });

  it('WARN when a link is not connected, or returns were dropped', () => {
    const [link] = judgeMinionStatus(status({ state: 'waiting', lastDownReason: 'auth_pending', connectedSince: undefined, rttMs: undefined }), NOW, 'x');
    assert.equal(link!.level, 'warn');
    assert.match(link!.detail, /not connected \(link waiting, last reason auth_pending/);
    const [, queue] = judgeMinionStatus(status({}, { returnQueue: 1000, returnsDropped: 3 }), NOW, 'x');
    assert.equal(queue!.level, 'warn');
    assert.match(queue!.fix!, /return_queue_max/);
  });

  it('FAIL per schedule job that cannot run, naming the job and the code', () => {
    const checks = judgeMinionStatus({ ...status(), scheduleErrors: [{ job: 'hs', code: 'SCHEDULE_INVALID', message: "schedule job 'hs', field 'seconds': must not be negative, got -1" }] }, NOW, 'x');
    const c = checks.find((x) => x.what === 'schedule job hs');
    assert.equal(c?.level, 'fail');
    assert.match(c!.detail, /^SCHEDULE_INVALID: schedule job 'hs', field 'seconds'/);
    assert.match(c!.fix!, /docs\/schedule\.md/);
    assert.equal(judgeMinionStatus(status(), NOW, 'x').filter((x) => x.what.startsWith('schedule')).length, 0);
  });

  it('WARN naming each synced custom module that did not load; no line when all loaded', () => {
    const checks = judgeMinionStatus({ ...status(), customModuleProblems: [{ file: '/var/cache/brine/minion/extmods/modules/broken.js', reason: 'boom' }] }, NOW, 'x');
    const line = checks.find((c) => c.what === 'custom modules');
    assert.equal(line?.level, 'warn');
    assert.match(line!.detail, /MODULE_LOAD_FAILED: 1 synced file\(s\) did not load: .*broken\.js: boom/);
    assert.match(line!.fix!, /saltutil\.sync_all/);
    assert.equal(
      judgeMinionStatus(status(), NOW, 'x').find((c) => c.what === 'custom modules'),
      undefined,
    );
  });

  it('WARN "minion is not running" when nothing answers, never FAIL', () => {
    const [c] = judgeMinionStatus({ kind: 'not_running', socket: '/run/minion.sock' }, NOW, "'brine minion -c /etc/brine'");
    assert.equal(c!.level, 'warn');
    assert.match(c!.detail, /^minion is not running/);
    assert.equal(c!.fix, "start it with 'brine minion -c /etc/brine'");
    assert.equal(judgeMinionStatus({ kind: 'denied', socket: 's' }, NOW, 'x')[0]!.level, 'warn');
  });
});

describe('master verdicts', () => {
  it('keys per state; WARN with brine key -L when some are pending', () => {
    assert.deepEqual(judgeKeyCounts({ accepted: ['a'], pending: [], rejected: [], denied: [] }), ok('keys', '1 accepted, 0 pending, 0 rejected, 0 denied'));
    const w = judgeKeyCounts({ accepted: [], pending: ['p1', 'p2'], rejected: ['r'], denied: [] });
    assert.equal(w.level, 'warn');
    assert.match(w.detail, /0 accepted, 2 pending, 1 rejected, 0 denied; waiting for acceptance: p1, p2/);
    assert.match(w.fix!, /brine key -L/);
  });

  it('a denied key from the last 24 h against an accepted one is a FAIL naming both keys and both fixes', () => {
    const [c] = judgeDenied([{ id: 'web1', deniedFingerprint: B, acceptedFingerprint: A, acceptedRemote: '10.0.0.5:4000', at: NOW - 120_000 }], NOW);
    assert.equal(c!.level, 'fail');
    assert.equal(c!.what, 'duplicate ID web1');
    assert.ok(c!.detail.includes(`accepted key ${A} (connected from 10.0.0.5:4000), denied key ${B}`), c!.detail);
    assert.match(c!.fix!, /brine key --replace web1/);
    assert.match(c!.fix!, /give the other host its own id/);
  });

  it('against a pending key it is a WARN; older than 24 h it is only counted', () => {
    const [p] = judgeDenied([{ id: 'web2', deniedFingerprint: B, pendingFingerprint: C, at: NOW - 1000 }], NOW);
    assert.equal(p!.level, 'warn');
    assert.ok(p!.detail.includes(C) && p!.detail.includes(B));
    const old = judgeDenied([{ id: 'web3', deniedFingerprint: B, acceptedFingerprint: A, at: NOW - DUPLICATE_WINDOW_MS - 1 }], NOW);
    assert.equal(old.length, 1);
    assert.equal(old[0]!.level, 'ok');
    assert.match(old[0]!.detail, /no duplicate-ID events in the last 24 h \(1 older denied key/);
  });

  it('each flapping minion is a WARN with its typical up time and reasons; steady ones are not', () => {
    const sessions: SessionInfo[] = [
      { id: 'steady', state: 'connected', reconnects: 0 },
      {
        id: 'nat',
        state: 'connected',
        reconnects: 5,
        drops: 5,
        flapping: true,
        typicalConnectedMs: 240_000,
        typicalSilentMs: 30_000,
        dropReasons: ['heartbeat_timeout', 'replaced'],
        remote: '10.0.0.9:1',
      },
      { id: 'twice', state: 'connected', reconnects: 2, drops: 2, flapping: false },
    ];
    const checks = judgeFlapping(sessions);
    assert.equal(checks.length, 1);
    assert.equal(checks[0]!.level, 'warn');
    assert.equal(checks[0]!.what, 'minion nat');
    assert.match(checks[0]!.detail, /5 unplanned drops in the last hour, typically up ~4 min and silent ~30 s before each, reasons heartbeat_timeout, replaced/);
    assert.match(checks[0]!.fix!, /docs\/troubleshooting-disconnects\.md/);
    assert.equal(judgeFlapping([sessions[0]!])[0]!.level, 'ok');
  });
});
