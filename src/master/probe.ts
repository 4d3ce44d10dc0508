// `brine doctor`'s question to the master, "what would you do with this key?", answered from the
// same decision table as a real sign-in but read-only: no key file is written, moved or removed.

import { KeyStore, decideAuth, type AuthPolicy, type AuthRequest, type KeyState } from '../pki/index.js';
import { verdictFor } from './auth-messages.js';
import type { AuthVerdict } from './minion-session.js';

/** A view of the key store whose writes only record what a real sign-in would have written. */
class ReadOnlyKeyStore extends KeyStore {
  readonly wouldWrite: KeyState[] = [];

  override ensureLayout(): void {}

  override write(state: KeyState): void {
    this.wouldWrite.push(state);
  }

  override move(_id: string, _from: KeyState, to: KeyState): void {
    this.wouldWrite.push(to);
  }

  override remove(): KeyState[] {
    return [];
  }
}

export interface ProbeVerdict extends AuthVerdict {
  /** Key-store states a real sign-in would have written to (none were). */
  wouldWrite: KeyState[];
}

/**
 * The verdict a real sign-in with this ID and key would get now, with messages worded for a probe
 * where they differ (a key the master has not seen yet is not "in pending").
 */
export function probeAuth(pkiDir: string, req: AuthRequest, policy: AuthPolicy, masterFingerprint: string): ProbeVerdict {
  const store = new ReadOnlyKeyStore(pkiDir);
  const decision = decideAuth(store, req, policy);
  const verdict = verdictFor(decision, req.id, masterFingerprint);
  const wouldWrite = [...store.wouldWrite];
  const shown = req.id.length > 64 ? `${req.id.slice(0, 64)}...` : req.id;
  if (decision.status === 'pending' && wouldWrite.includes('pending')) {
    return {
      status: 'pending',
      message: `The master has not seen this minion's key (${decision.presentedFingerprint}) yet; when the minion signs in it goes to pending. On the master, check it with 'brine key -f ${shown}' and accept it with 'brine key -a ${shown}'. The master's fingerprint is ${masterFingerprint}.`,
      wouldWrite,
    };
  }
  if (decision.status === 'accepted' && wouldWrite.includes('accepted')) {
    return { status: 'accepted', message: `Not accepted yet, but the master will accept it at sign-in: ${decision.reason}`, wouldWrite };
  }
  return { ...verdict, wouldWrite };
}
