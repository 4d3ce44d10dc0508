// The master-side doctor's decisions, as pure functions of what was read: keys per state,
// duplicate-ID events (denied keys written in the last 24 h), flapping minions from the session
// table. The I/O lives in master-checks.ts.

import type { SessionInfo } from '../../protocol/index.js';
import { duration, fail, ok, warn, type Check } from './check.js';

export const DUPLICATE_WINDOW_MS = 24 * 3_600_000;
export const TROUBLESHOOTING_DOC = 'docs/troubleshooting-disconnects.md';

export interface KeyCounts {
  accepted: string[];
  pending: string[];
  rejected: string[];
  denied: string[];
}

export function judgeKeyCounts(keys: KeyCounts): Check {
  const counts = `${keys.accepted.length} accepted, ${keys.pending.length} pending, ${keys.rejected.length} rejected, ${keys.denied.length} denied`;
  if (keys.pending.length === 0) return ok('keys', counts);
  const first = keys.pending[0]!;
  const shown = keys.pending.slice(0, 5).join(', ') + (keys.pending.length > 5 ? ', ...' : '');
  return warn(
    'keys',
    `${counts}; waiting for acceptance: ${shown}`,
    `review them with 'brine key -L', check each fingerprint with 'brine key -f ${first}' against the minion, then accept with 'brine key -a ${first}' (or reject with 'brine key -r ${first}')`,
  );
}

export interface DeniedKey {
  id: string;
  /** Fingerprint of the key in minions_denied. */
  deniedFingerprint: string;
  /** When it was written (mtime), ms since the epoch. */
  at: number;
  /** The key accepted for the ID, when there is one. */
  acceptedFingerprint?: string | undefined;
  /** The key pending for the ID, when there is one. */
  pendingFingerprint?: string | undefined;
  /** Where the accepted minion is connected from, when it is. */
  acceptedRemote?: string | undefined;
}

/**
 * Each denied key written in the last 24 h is a duplicate-ID event: FAIL when the ID is accepted
 * with another key (one of the two hosts is locked out), WARN when it clashed with a pending key.
 */
export function judgeDenied(denied: readonly DeniedKey[], now: number): Check[] {
  const recent = denied.filter((d) => now - d.at < DUPLICATE_WINDOW_MS);
  const older = denied.length - recent.length;
  if (recent.length === 0) {
    const note = older > 0 ? ` (${older} older denied key${older === 1 ? '' : 's'}: brine key -L)` : '';
    return [ok('duplicate IDs', `no duplicate-ID events in the last 24 h${note}`)];
  }
  return recent.map((d) => {
    const what = `duplicate ID ${d.id}`;
    const when = `${duration(now - d.at)} ago`;
    const fix = `if ${d.id} was re-imaged, run 'brine key --replace ${d.id}' on the master and restart that minion; if it is another host, give the other host its own id (id: in its minion config) and restart it`;
    if (d.acceptedFingerprint !== undefined) {
      const where = d.acceptedRemote ? ` (connected from ${d.acceptedRemote})` : '';
      return fail(what, `a second key tried to sign in as ${d.id} ${when}: accepted key ${d.acceptedFingerprint}${where}, denied key ${d.deniedFingerprint}`, fix);
    }
    if (d.pendingFingerprint !== undefined) {
      return warn(
        what,
        `two keys claim ${d.id} (${when}): pending key ${d.pendingFingerprint}, denied key ${d.deniedFingerprint}; accept neither until you know which host is which`,
        `compare 'brine key -f ${d.id}' with the fingerprint on each host; give the other host its own id (id: in its minion config)`,
      );
    }
    return warn(
      what,
      `a key for ${d.id} was denied ${when} (denied key ${d.deniedFingerprint}), and ${d.id} has no accepted or pending key now`,
      `if that host should be ${d.id}, delete the old denied key with 'brine key -d ${d.id}' and restart it so it enrols again; otherwise give it its own id`,
    );
  });
}

/** WARN for each flapping minion with its typical up time and reasons; OK when none. */
export function judgeFlapping(sessions: readonly SessionInfo[]): Check[] {
  const flapping = sessions.filter((s) => s.flapping === true);
  const connected = sessions.filter((s) => s.state === 'connected').length;
  if (flapping.length === 0) return [ok('flapping', `no flapping minions (${connected} of ${sessions.length} known minions connected)`)];
  return flapping.map((s) => {
    const up = s.typicalConnectedMs === undefined ? '?' : duration(s.typicalConnectedMs);
    const silent = s.typicalSilentMs === undefined ? '?' : duration(s.typicalSilentMs);
    const reasons = (s.dropReasons ?? []).join(', ') || 'unknown';
    return warn(
      `minion ${s.id}`,
      `flapping: ${s.drops ?? 0} unplanned drops in the last hour, typically up ~${up} and silent ~${silent} before each, reasons ${reasons}; now ${s.state}`,
      `see ${TROUBLESHOOTING_DOC} ("Reading the drops"): the same up time every time points at a NAT or load balancer idle timeout; check 'brine minions status' and the path to ${s.remote ?? 'the minion'}`,
    );
  });
}
