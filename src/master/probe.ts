// `brine doctor`'s question to the master, "what would you do with this key?", answered from the
// same pure decision as a real sign-in; its effects are reported, never applied.
//
// What a probe may learn: a probe is quiet (no event, no key stored, one info log line), so it
// must not be an oracle for which IDs exist or which keys they have. The master tells a probe
// the state of the presented key only when it already holds that key for the ID (accepted,
// pending, rejected or denied): the peer proved it holds the private key, so this is its own
// record. Any other key gets one neutral answer, the same whether the ID is unknown, pending or
// accepted with another key, and no fingerprint but its own and the master's.

import { decideAuth, statesWritten, type AuthPolicy, type AuthRequest, type DeniedKey, type KeyState, type KeyView } from '../pki/index.js';
import { verdictFor } from './auth-messages.js';
import type { AuthVerdict } from './minion-session.js';

export interface ProbeVerdict extends AuthVerdict {
  /** Key-store states a real sign-in would have written to (none were); empty when not told. */
  wouldWrite: KeyState[];
}

/** The key store as a probe reads it: key files and the denied keys of an ID. */
export interface ProbeKeyView extends KeyView {
  deniedKeys(id: string): DeniedKey[];
  fingerprintOf(state: KeyState, id: string): string | undefined;
}

/**
 * The verdict a real sign-in with this ID and key would get now, limited to what the peer may
 * know (see above), with messages worded for a probe where they differ.
 */
export function probeAuth(keys: ProbeKeyView, req: AuthRequest, policy: AuthPolicy, masterFingerprint: string): ProbeVerdict {
  const decision = decideAuth(keys, req, policy);
  const presented = decision.presentedFingerprint;
  const shown = req.id.length > 64 ? `${req.id.slice(0, 64)}...` : req.id;
  // refusals that say nothing about the keys stored for the ID
  if (decision.status === 'invalid_id' || (decision.status === 'full' && decision.code === undefined) || decision.code === 'KEY_TYPE_UNSUPPORTED') {
    return { ...verdictFor(decision, req.id, masterFingerprint), wouldWrite: [] };
  }
  if (!holdsKey(keys, req.id, presented)) {
    return {
      status: 'pending',
      message: `The master has not seen this minion's key (${presented}) yet; when the minion signs in it goes to pending (or is denied if the ID already has another key: a probe is told only about keys the master already holds for this ID). On the master, check it with 'brine key -f ${shown}' and accept it with 'brine key -a ${shown}'. The master's fingerprint is ${masterFingerprint}.`,
      wouldWrite: [],
    };
  }
  const wouldWrite = statesWritten(decision.effects);
  if (decision.status === 'accepted' && wouldWrite.includes('accepted')) {
    return { status: 'accepted', message: `Not accepted yet, but the master will accept it at sign-in: ${decision.reason}`, wouldWrite };
  }
  if (decision.status === 'denied') {
    // its own key was denied before; the other key's fingerprint is not the peer's to learn
    return {
      status: 'denied',
      message: `The master has a different key for ID '${shown}'; this minion's key (${presented}) is among its denied keys. If this host was re-imaged, run 'brine key --replace ${shown} --finger ${presented}' on the master and restart this minion; if it is a different machine, give it its own 'id:' in the minion config.`,
      wouldWrite,
    };
  }
  return { ...verdictFor(decision, req.id, masterFingerprint), wouldWrite };
}

/** The master holds exactly this key for the ID, in some state. */
function holdsKey(keys: ProbeKeyView, id: string, fp: string): boolean {
  for (const state of ['accepted', 'pending', 'rejected'] as const) if (keys.fingerprintOf(state, id) === fp) return true;
  return keys.deniedKeys(id).some((k) => k.fingerprint === fp);
}
