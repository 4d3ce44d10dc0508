// Salt's master-side decision for a minion presenting (id, public key), reference §4.2, as one
// pure function over a read-only view of the key store. It returns the key-file writes the table
// prescribes as data (effects); the sign-in applies them, a doctor probe only reads them.

import type { ErrorCode } from '../util/errors.js';
import { minionIdProblem } from '../util/minion-id.js';
import { fingerprint, toPublicKey } from './fingerprint.js';
import { sameKey, type KeyState } from './key-store.js';
import { keyTypeProblem, SUPPORTED_KEY_TYPES } from './key-type.js';

/** A key-store write the decision wants; applied in order by applyKeyEffects. */
export type KeyEffect = { op: 'write'; state: KeyState; id: string; pem: string } | { op: 'move'; id: string; from: KeyState; to: KeyState } | { op: 'remove'; id: string; state: KeyState };

/** What the decision reads: the stored key text of an ID in a state. */
export interface KeyView {
  read(state: KeyState, id: string): string | undefined;
}

export type AuthStatus = 'accepted' | 'pending' | 'rejected' | 'denied' | 'invalid_id' | 'full';

export interface AuthDecision {
  status: AuthStatus;
  /** One sentence for the operator's log. */
  reason: string;
  /** Fingerprint of the stored key the decision compared against, when there was one. */
  existingFingerprint?: string;
  /** For denied: whether the other key is accepted or only pending (the minion is told which). */
  existingState?: 'accepted' | 'pending';
  presentedFingerprint: string;
  /** The writes this decision implies, in order; empty for a decision that stores nothing. */
  effects: KeyEffect[];
  /** Catalogue code for refusals beyond Salt's table (key type, pending-key limits). */
  code?: ErrorCode;
}

export interface AuthRequest {
  id: string;
  /** The key the minion proved it holds (from its TLS certificate), as a PEM public key. */
  publicKeyPem: string;
}

export interface AuthPolicy {
  /** Salt's auto_accept: every new key is accepted. */
  autoAccept: boolean;
  /** Salt's open_mode: accept anything and overwrite a stored key that differs. */
  openMode: boolean;
  autosign?: (id: string) => boolean;
  autoreject?: (id: string) => boolean;
  /** Salt's max_minions; 0 or absent means unlimited. */
  maxMinions?: number;
  connectedCount?: number;
  isConnected?: (id: string) => boolean;
  /**
   * Limits on keys waiting for an operator (threats.md #25, #33): called before a new pending or
   * denied entry would be written; returns why it may not be, or undefined when it may.
   */
  admitWaitingKey?: (id: string, fingerprint: string, state: 'pending' | 'denied') => string | undefined;
}

/**
 * Decides what to do with an authentication attempt, in Salt's order: invalid ID, full, open
 * mode, rejected (before accepted: a rejected key wins), accepted, then new or pending keys with
 * autoreject and autosign. A presented key that is not a public key throws PKI_KEY_INVALID.
 */
export function decideAuth(store: KeyView, req: AuthRequest, policy: AuthPolicy): AuthDecision {
  // Canonical SPKI PEM, so what lands on disk does not depend on how the caller spelled the key.
  const key = toPublicKey(req.publicKeyPem);
  const pem = key.export({ type: 'spki', format: 'pem' }) as string;
  const presented = fingerprint(pem);
  const effects: KeyEffect[] = [];
  const decision = (status: AuthStatus, reason: string, existing?: string): AuthDecision =>
    existing === undefined ? { status, reason, presentedFingerprint: presented, effects } : { status, reason, existingFingerprint: existing, presentedFingerprint: presented, effects };
  const write = (state: KeyState, id: string): void => void effects.push({ op: 'write', state, id, pem });
  // a denied key is kept for the operator unless this key already waits under too many IDs
  const keepDenied = (id: string): string => {
    const refused = policy.admitWaitingKey?.(id, presented, 'denied');
    if (refused !== undefined) return ` The key was not stored: ${refused}`;
    write('denied', id);
    return '';
  };

  // 1. Checked before anything touches the store: the ID becomes a file name.
  const problem = minionIdProblem(req.id);
  if (problem !== undefined) {
    const shown = typeof req.id === 'string' ? JSON.stringify(req.id.slice(0, 64)) : String(req.id);
    return decision('invalid_id', `Refused a minion with invalid ID ${shown}: ${problem}; no key was stored.`);
  }
  const id = req.id;

  // 1b. Only key types brine makes; checked before any table row can store the key.
  const badType = keyTypeProblem(key);
  if (badType !== undefined) {
    return { ...decision('rejected', `Refused ${id}: its key ${presented} is ${badType}; brine accepts only ${SUPPORTED_KEY_TYPES} keys, and no key was stored.`), code: 'KEY_TYPE_UNSUPPORTED' };
  }

  // 2. max_minions counts connected minions; one already connected may always come back.
  const max = policy.maxMinions ?? 0;
  if (max > 0 && (policy.connectedCount ?? 0) >= max && !(policy.isConnected?.(id) ?? false)) {
    return decision('full', `Refused ${id}: ${policy.connectedCount ?? 0} minions are connected and max_minions is ${max}; raise max_minions or remove unused keys.`);
  }

  const accepted = store.read('accepted', id);

  // 3. open_mode trusts everyone and replaces whatever was stored.
  if (policy.openMode) {
    const previous = accepted !== undefined && !sameKey(accepted, pem) ? fingerprint(accepted) : undefined;
    if (accepted === undefined || previous !== undefined) write('accepted', id);
    const note = previous === undefined ? '' : `, replacing the previously accepted key ${previous}`;
    return decision('accepted', `Accepted ${id} with key ${presented} because open_mode is on${note}.`, previous);
  }

  // 4. Rejected wins over accepted (Salt checks it first).
  const rejected = store.read('rejected', id);
  if (rejected !== undefined) {
    // say by whom: autoreject_file still matching the ID, or else an operator (brine key -r)
    const byWhom = policy.autoreject?.(id) ? 'by autoreject_file, which matches this ID' : "by an operator ('brine key -r')";
    return decision(
      'rejected',
      `Public key rejected for ${id} ${byWhom}. Key is present in rejection key dir; delete it with \`brine key -d ${id}\` to let this minion enrol again.`,
      fingerprint(rejected),
    );
  }

  // 5. A second key for an accepted ID is kept in denied for the operator, never trusted.
  if (accepted !== undefined) {
    const existing = fingerprint(accepted);
    if (sameKey(accepted, pem)) return decision('accepted', `Accepted ${id}: its key ${presented} is in the accepted keys.`, existing);
    const kept = keepDenied(id);
    return {
      ...decision(
        'denied',
        `ID ${id} is already accepted with key ${existing}; this minion presented ${presented}. Authentication attempt failed, the public keys did not match: another host may be using this ID, or this host was re-imaged (then delete the old key with \`brine key -d ${id}\`).${kept}`,
        existing,
      ),
      existingState: 'accepted',
    };
  }

  const autoreject = policy.autoreject?.(id) ?? false;
  const autosign = policy.autoAccept || (policy.autosign?.(id) ?? false);
  const pending = store.read('pending', id);

  // 6. A key never seen before.
  if (pending === undefined) {
    if (autoreject) {
      write('rejected', id);
      return decision('rejected', `Rejected new key ${presented} for ${id}: the ID matches autoreject_file.`);
    }
    if (!autosign) {
      const refused = policy.admitWaitingKey?.(id, presented, 'pending');
      if (refused !== undefined) return { ...decision('full', `Refused new key ${presented} for ${id}: ${refused}`), code: 'AUTH_PENDING_LIMIT' };
      write('pending', id);
      return decision('pending', `New public key ${presented} for ${id} placed in pending; accept it with \`brine key -a ${id}\` after checking the fingerprint on the minion.`);
    }
    write('accepted', id);
    return decision('accepted', `Accepted new key ${presented} for ${id} automatically (${policy.autoAccept ? 'auto_accept is on' : 'the ID matches autosign_file'}).`);
  }

  // 7. A key already waiting in pending.
  const existing = fingerprint(pending);
  if (autoreject) {
    effects.push({ op: 'move', id, from: 'pending', to: 'rejected' });
    return decision('rejected', `Rejected the pending key ${existing} for ${id}: the ID matches autoreject_file.`, existing);
  }
  if (!sameKey(pending, pem)) {
    const kept = keepDenied(id);
    return {
      ...decision('denied', `ID ${id} already has key ${existing} in pending; this minion presented ${presented}. Two hosts may be using this ID; check before accepting either.${kept}`, existing),
      existingState: 'pending',
    };
  }
  if (!autosign) {
    return decision('pending', `Authentication failed from host ${id}, the key ${presented} is in pending and needs to be accepted with \`brine key -a ${id}\`.`, existing);
  }
  // 8. Accept path: the pending copy is replaced by the accepted one.
  write('accepted', id);
  effects.push({ op: 'remove', id, state: 'pending' });
  return decision('accepted', `Accepted pending key ${presented} for ${id} automatically (${policy.autoAccept ? 'auto_accept is on' : 'the ID matches autosign_file'}).`, existing);
}
