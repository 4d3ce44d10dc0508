// The minion-side doctor's decisions, as pure functions of what was observed: the master's key
// against master_finger and the pin, the key state the master reported for a probe, the running
// daemon's own view, the ID checks in one line. The I/O lives in minion-checks.ts.

import { ERRORS, type ErrorCode } from '../../util/errors.js';
import type { AuthStatus, MinionStatus } from '../../protocol/index.js';
import { masterKeyDecision, type IdCheck } from '../../minion/index.js';
import { duration, fail, ok, warn, type Check } from './check.js';

export interface KeyTrust {
  /** The fingerprint pinned for this master, when there is one. */
  pinned?: string | undefined;
  pinFile: string;
  /** master_finger from the config as written, [] when unset. */
  masterFinger: readonly string[];
  /** master_finger normalised (undefined for an entry that is not a fingerprint). */
  masterFingerNormalized: ReadonlyArray<string | undefined>;
}

/** The master's key as the minion daemon would judge it (MasterPins), read-only. */
export function judgeMasterKey(what: string, presented: string, trust: KeyTrust): Check[] {
  const out: Check[] = [];
  const decision = masterKeyDecision(presented, { raw: trust.masterFinger, normalized: trust.masterFingerNormalized }, trust.pinned);
  if (trust.masterFinger.length > 0) {
    if (decision === 'finger_mismatch') {
      out.push(
        fail(
          what,
          `the master presented key ${presented}, but master_finger is ${trust.masterFinger.join(', ')}; the minion refuses this master and retries it with backoff (MASTER_FINGER_MISMATCH)`,
          `compare with 'brine key -F master' on that master; if it was re-keyed on purpose or has its own key pair, add ${presented} to master_finger`,
        ),
      );
      return out;
    }
    out.push(ok(what, `master key ${presented} is listed in master_finger`));
    return out;
  }
  if (decision === 'unpinned') {
    out.push(ok(what, `master key ${presented}; not pinned yet: the minion pins it in ${trust.pinFile} once this master accepts it`));
  } else if (decision === 'changed') {
    out.push(
      fail(
        what,
        `the master key has changed: the master presented ${presented}, but this minion pinned ${trust.pinned} in ${trust.pinFile}; the minion refuses this master and retries it with backoff (MASTER_KEY_CHANGED)`,
        `if the master was re-keyed on purpose, delete ${trust.pinFile} (or add ${presented} to master_finger); otherwise treat it as an attack and do not re-trust it`,
      ),
    );
  } else {
    out.push(ok(what, `master key ${presented} matches the pinned key in ${trust.pinFile}`));
  }
  return out;
}

/** Trust on first use only: without master_finger the first key a master shows is believed. */
export function judgeMasterFinger(masterFinger: readonly string[]): Check {
  if (masterFinger.length > 0)
    return ok('master_finger', `set (${masterFinger.length} fingerprint${masterFinger.length === 1 ? '' : 's'}): refusals from a listed master count, other keys are refused`);
  return warn(
    'master_finger',
    'not set: the minion trusts the key each master shows when it first accepts this minion (trust on first use), and a refusal from a master it never signed in with is retried instead of believed',
    "run 'brine key -F master' on each master and set master_finger to that fingerprint (a list for masters with their own key pairs)",
  );
}

const REFUSAL_CODES: ReadonlyMap<AuthStatus, ErrorCode> = new Map<AuthStatus, ErrorCode>([
  ['pending', 'AUTH_PENDING'],
  ['rejected', 'AUTH_REJECTED'],
  ['denied', 'AUTH_DENIED'],
  ['invalid_id', 'INVALID_ID'],
  ['full', 'AUTH_FULL'],
  ['error', 'PROTOCOL_VERSION'],
]);

/** The fix from the error catalogue, with this minion's ID in place of <id>. */
function catalogueFix(code: ErrorCode, id: string): string {
  return ERRORS[code].fix.replace(/<id>/g, id);
}

/** The key state the master reported to a probe: accepted OK, pending WARN, refusals FAIL. */
export function judgeKeyState(what: string, id: string, answer: { status: AuthStatus; message: string }): Check {
  const message = answer.message.replace(/\s+$/, '');
  switch (answer.status) {
    case 'accepted':
      return ok(what, message === 'accepted' ? `the key of ${id} is accepted` : message);
    case 'pending':
      return warn(what, `${id} is pending: ${message}`, `on the master run 'brine key -a ${id}' (check the fingerprint first with 'brine key -f ${id}')`);
    case 'busy':
      return warn(what, `the master is admitting sign-ins at its auth_rate and did not answer now: ${message}`, 'run brine doctor again in a few seconds');
    default: {
      const code = REFUSAL_CODES.get(answer.status) ?? 'AUTH_REJECTED';
      return fail(what, `${answer.status}: ${message}`, catalogueFix(code, id));
    }
  }
}

/** The one ID line: the ID and its source, or the worst finding; details via `brine doctor id`. */
export function summarizeId(checks: readonly IdCheck[]): Check {
  const bad = checks.find((c) => c.level === 'fail') ?? checks.find((c) => c.level === 'warn');
  const idLine = checks.find((c) => c.topic === 'id');
  if (!bad) return ok('minion id', `${idLine?.message ?? '?'}; every candidate: brine doctor id`);
  const more = checks.filter((c) => c.level !== 'ok').length - 1;
  const also = more > 0 ? ` (and ${more} more finding${more === 1 ? '' : 's'})` : '';
  const fix = `${bad.fix ?? 'see below'}; run 'brine doctor id' for every candidate and cause`;
  return bad.level === 'fail' ? fail('minion id', `${bad.message}${also}`, fix) : warn('minion id', `${bad.message}${also}`, fix);
}

export interface StatusProblem {
  kind: 'not_running' | 'denied' | 'error';
  socket: string;
  message?: string;
}

/** The running daemon's own view, or why there is none. */
export function judgeMinionStatus(status: MinionStatus | StatusProblem, now: number, startHint: string): Check[] {
  if ('kind' in status) {
    if (status.kind === 'not_running') return [warn('minion daemon', `minion is not running (nothing answers on ${status.socket}); the network checks above still ran`, `start it with ${startHint}`)];
    if (status.kind === 'denied') return [warn('minion daemon', `cannot read ${status.socket}: permission denied`, 'run brine doctor as the user that runs the minion')];
    return [warn('minion daemon', `the minion did not answer on ${status.socket}: ${status.message ?? 'unknown error'}`, 'check the minion log; restart the minion if it is stuck')];
  }
  const out: Check[] = [];
  if (status.links.length === 0) out.push(ok('minion daemon', `running as ${status.id} with no master links (master_type: disable)`));
  for (const link of status.links) {
    const what = `minion daemon -> ${link.endpoint}`;
    const reconnects = `${link.reconnects} reconnect${link.reconnects === 1 ? '' : 's'} since start`;
    if (link.state === 'ready' || link.state === 'probing') {
      const since = link.connectedSince === undefined ? '' : ` for ${duration(now - link.connectedSince)}`;
      const rtt = link.rttMs === undefined ? 'RTT not measured yet (first heartbeat pending)' : `heartbeat RTT ${link.rttMs.toFixed(1)} ms`;
      out.push(ok(what, `running as ${status.id}, connected${since}, ${rtt}, ${reconnects}`));
    } else {
      const last = link.lastDownReason ? `, last reason ${link.lastDownReason}` : '';
      out.push(
        warn(
          what,
          `running as ${status.id} but not connected (link ${link.state}${link.connection ? `, connection ${link.connection}` : ''}${last}; ${link.attempts} attempts, ${reconnects})`,
          'see the master checks above and the minion log; the minion keeps retrying by itself',
        ),
      );
    }
  }
  for (const r of status.refusedMasters ?? []) {
    out.push(
      fail(
        `minion daemon -> ${r.master} refused`,
        `${r.code}: ${r.message} (since ${duration(now - r.since)} ago)`,
        'see the master checks above; the minion keeps serving its other masters and retries this one with backoff',
      ),
    );
  }
  for (const e of status.scheduleErrors ?? []) {
    out.push(fail(`schedule job ${e.job}`, `${e.code}: ${e.message}`, 'fix the entry (docs/schedule.md lists every field) in the minion config, pillar or with schedule.modify; the other jobs run'));
  }
  const broken = status.customModuleProblems ?? [];
  if (broken.length > 0) {
    const list = broken.map((p) => `${p.file}: ${p.reason}`).join('; ');
    out.push(
      warn(
        'custom modules',
        `MODULE_LOAD_FAILED: ${broken.length} synced file(s) did not load: ${list}`,
        "fix or remove them in the master's file_roots (_modules/, _states/, _grains/) and run saltutil.sync_all; the other modules work",
      ),
    );
  }
  if (status.mine !== undefined) out.push(judgeMine(status.mine, now));
  const queue = `return queue ${status.returnQueue} waiting for acknowledgement, ${status.returnsDropped} dropped since start`;
  if (status.returnsDropped > 0) out.push(warn('return queue', queue, 'raise return_queue_max, and find why no master acknowledges returns (see the connection lines above)'));
  else out.push(ok('return queue', queue));
  return out;
}

/** The last mine.update: a failed entry is named with its code, the others still count as sent. */
export function judgeMine(mine: NonNullable<MinionStatus['mine']>, now: number): Check {
  const when = `last mine.update ${duration(now - mine.lastUpdate)} ago: ${mine.sent} entr${mine.sent === 1 ? 'y' : 'ies'} sent`;
  if (mine.failed.length === 0) return ok('mine', when);
  const failed = mine.failed.map((f) => `${f.name}: ${f.code}: ${f.message}`).join('; ');
  return warn('mine', `${when}, ${mine.failed.length} failed (${failed})`, 'fix mine_functions in the minion config or pillar (docs/mine.md), then run brine run <minion> mine.update');
}
