// Signing minions in: the admission rate, autosign/autoreject files, Salt's decision table, the
// limits on waiting keys, applying the decision's key-store effects (the only place they are
// applied), and what is logged and emitted for each outcome; plus the read-only doctor probe.

import * as fs from 'node:fs';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { MasterOptions } from '../config/index.js';
import { applyKeyEffects, decideAuth, loadMatchFile, type AuthPolicy, type KeyStore } from '../pki/index.js';
import type { AcceptedKeyIndex } from './accepted-keys.js';
import { sourceKey } from '../transport/index.js';
import type { AuthAdmission } from './admission.js';
import type { RefusalLog } from './refusal-log.js';
import { verdictFor } from './auth-messages.js';
import type { EventBus } from './event-bus.js';
import type { AuthVerdict } from './minion-session.js';
import { probeAuth } from './probe.js';
import type { SessionTable } from './session-table.js';
import { WaitingKeyLedger } from './waiting-keys.js';

export interface SignInDeps {
  opts: MasterOptions;
  logger: Logger;
  clock: Clock;
  keys: KeyStore;
  /** The master's accepted-key index (the sign-in fast path). */
  acceptedKeys: AcceptedKeyIndex;
  events: EventBus;
  sessions: SessionTable;
  masterFingerprint: string;
  /** Sign-in admission, shared with the master so malformed hellos can be charged to their source. */
  admission: AuthAdmission;
  /** Refused sign-ins (busy, pending, denied, rejected, invalid ID, caps) are logged through this, in summary per address. */
  refusals: Pick<RefusalLog, 'note'>;
}

export type SignIn = (hello: { id: string }, publicKeyPem: string, remote: string, presentedFingerprint?: string) => AuthVerdict;

export function createSignIn(deps: SignInDeps): { authorize: SignIn; probe: SignIn } {
  const { opts, logger, clock } = deps;
  const matchOpts = (option: string) => ({ option, onProblem: (msg: string) => logger.warn({ option }, msg) });
  for (const [option, file] of [
    ['autosign_file', opts.autosign_file],
    ['autoreject_file', opts.autoreject_file],
  ] as const) {
    if (file && !fs.existsSync(file)) logger.warn({ option, file }, `${option} ${file} does not exist (root_dir is prepended to it): it matches no minion until it is created`);
  }
  const autosign = opts.autosign_file ? loadMatchFile(opts.autosign_file, matchOpts('autosign_file')) : undefined;
  const autoreject = opts.autoreject_file ? loadMatchFile(opts.autoreject_file, matchOpts('autoreject_file')) : undefined;

  const { admission } = deps;
  const busy = (remote: string): AuthVerdict | undefined => {
    const source = sourceKey(remote);
    const refusal = admission.admit(source);
    if (refusal === undefined) return undefined;
    const retryAfter = refusal === 'source' ? admission.sourceRetryAfterSeconds(source) : admission.retryAfterSeconds();
    const message =
      refusal === 'source'
        ? `the master admits ${opts.auth_rate_per_source} sign-ins per second from one address (auth_rate_per_source) and ${source} is over it; try again in ${retryAfter} s`
        : `the master admits ${opts.auth_rate} sign-ins per second and is busy; try again in ${retryAfter} s`;
    deps.refusals.note(source, 'busy', () => logger.info({ remote, code: 'AUTH_BUSY' }, `turned away a sign-in from ${remote}: ${message}`));
    return { status: 'busy', message, retryAfter };
  };
  const waiting = new WaitingKeyLedger(deps.keys, { maxPending: opts.max_pending_keys, maxPendingPerAddress: opts.max_pending_keys_per_address, maxIdsPerKey: opts.max_ids_per_key });
  const policy = (remote: string): AuthPolicy => ({
    autoAccept: opts.auto_accept,
    openMode: opts.open_mode,
    ...(autosign ? { autosign } : {}),
    ...(autoreject ? { autoreject } : {}),
    maxMinions: opts.max_minions,
    connectedCount: deps.sessions.connectedCount,
    isConnected: (id) => deps.sessions.isConnected(id),
    admitWaitingKey: (id, fp, state) => waiting.admit(id, fp, state, remote),
  });
  // brine doctor: the same decision, read-only, no events; one log line per probe
  const probe = (hello: { id: string }, publicKeyPem: string, remote: string): AuthVerdict => {
    const refused = busy(remote);
    if (refused) return refused;
    const verdict = probeAuth(deps.keys, { id: hello.id, publicKeyPem }, policy(remote), deps.masterFingerprint);
    logger.info({ id: hello.id.slice(0, 300), remote, status: verdict.status }, `answered a brine doctor probe from ${hello.id.slice(0, 64)} at ${remote}: ${verdict.status}`);
    return verdict;
  };
  // the fast path only where the table's first steps cannot apply
  const accepted = deps.acceptedKeys;
  const fastPath = !opts.open_mode && opts.max_minions === 0;
  const authorize = (hello: { id: string }, publicKeyPem: string, remote: string, presentedFingerprint?: string): AuthVerdict => {
    const refused = busy(remote);
    if (refused) return refused;
    if (fastPath && presentedFingerprint !== undefined && accepted.isAccepted(hello.id, presentedFingerprint)) {
      logger.debug({ id: hello.id, remote, presented: presentedFingerprint, status: 'accepted' }, `Accepted ${hello.id}: its key is the accepted one`);
      deps.events.emit({ kind: 'auth_accepted', id: hello.id, remote, pub: publicKeyPem, at: clock.now() });
      return { status: 'accepted', message: 'accepted' };
    }
    const decision = decideAuth(deps.keys, { id: hello.id, publicKeyPem }, policy(remote));
    const at = clock.now();
    waiting.refresh(); // before our own writes, so applied() need not re-read the store after them
    applyKeyEffects(deps.keys, decision.effects, { remote, at });
    waiting.applied(decision.effects, decision.presentedFingerprint, remote);
    const fields = { id: hello.id.slice(0, 300), remote, presented: decision.presentedFingerprint, existing: decision.existingFingerprint, status: decision.status, code: decision.code };
    const fp = decision.presentedFingerprint;
    const pub = publicKeyPem;
    if (decision.status === 'accepted') deps.events.emit({ kind: 'auth_accepted', id: hello.id, remote, pub, at });
    else if (decision.status === 'pending') deps.events.emit({ kind: 'auth_pending', id: hello.id, remote, fingerprint: fp, pub, at });
    else if (decision.status === 'rejected' || decision.status === 'full')
      deps.events.emit({ kind: 'auth_rejected', id: hello.id, remote, fingerprint: fp, pub, reason: decision.reason, full: decision.status === 'full', at });
    else if (decision.status === 'denied') deps.events.emit({ kind: 'key_mismatch', id: hello.id, remote, acceptedFingerprint: decision.existingFingerprint ?? '', presentedFingerprint: fp, pub, at });
    else if (decision.status === 'invalid_id') deps.events.emit({ kind: 'invalid_id', remote, reason: decision.reason, at });
    const log = (): void => {
      if (decision.status === 'denied') {
        logger.error(
          fields,
          `Authentication attempt from ${hello.id} at ${remote} failed, the public keys did not match: ${decision.existingState ?? 'accepted'} key ${decision.existingFingerprint ?? '?'}, presented key ${decision.presentedFingerprint}. ${decision.effects.length > 0 ? "The presented key is kept among the ID's denied keys (brine key -f)" : decision.reason}; this may be a duplicate ID or an attempt to impersonate the minion.`,
        );
      } else if (decision.status === 'accepted') {
        logger.debug(fields, decision.reason);
      } else if (decision.status === 'pending' && decision.existingFingerprint !== undefined) {
        // the same pending key asking again every acceptance_wait_time: said once already
        logger.info(fields, decision.reason);
      } else {
        logger.warn(fields, decision.reason);
      }
    };
    // every refusal counts towards the per-address summary, so a flood of invalid IDs, squatting
    // keys or impostors is a few lines, not one per attempt
    if (decision.status === 'accepted') log();
    else deps.refusals.note(sourceKey(remote), decision.code ?? decision.status, log);
    return verdictFor(decision, hello.id, deps.masterFingerprint);
  };
  return { authorize, probe };
}
