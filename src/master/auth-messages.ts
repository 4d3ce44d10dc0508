// What the master tells a minion (and logs) for each authentication outcome. Every refusal says
// why and what to run, so "rejected" never comes without a reason.

import type { AuthDecision } from '../pki/index.js';
import type { AuthVerdict } from './minion-session.js';

export function verdictFor(decision: AuthDecision, id: string, masterFingerprint: string): AuthVerdict {
  const shown = id.length > 64 ? `${id.slice(0, 64)}...` : id;
  switch (decision.status) {
    case 'accepted':
      return { status: 'accepted', message: 'accepted' };
    case 'pending':
      return {
        status: 'pending',
        message: `The master has this minion's key (${decision.presentedFingerprint}) in pending. On the master, check it with 'brine key -f ${shown}' and accept it with 'brine key -a ${shown}'. The master's fingerprint is ${masterFingerprint}.`,
      };
    case 'rejected':
      if (decision.code === 'KEY_TYPE_UNSUPPORTED') {
        return {
          status: 'rejected',
          code: decision.code,
          message: `${decision.reason} brine minions make Ed25519 keys: move minion.pem aside in the minion's pki_dir and restart it, then accept the new key on the master.`,
        };
      }
      return {
        status: 'rejected',
        message: `The master has rejected this minion's key (${decision.presentedFingerprint}): ${decision.reason} To repair: on the master delete the key with 'brine key -d ${shown}' and restart this minion, or accept it with 'brine key -a ${shown} --include-rejected'.`,
      };
    case 'denied':
      if (decision.existingState === 'pending') {
        // only pending: nothing is accepted for this ID yet, and the minion must not be told so
        return {
          status: 'denied',
          message: `The master already has a different key pending for ID '${shown}' (pending: ${decision.existingFingerprint ?? 'unknown'}; this minion: ${decision.presentedFingerprint}); two hosts may be using this ID. On the master, check both with 'brine key -f ${shown}' and delete the wrong one with 'brine key -d ${shown}'; if this is a different machine, give it its own 'id:' in the minion config.`,
        };
      }
      return {
        status: 'denied',
        message: `The master already has a different key accepted for ID '${shown}' (accepted: ${decision.existingFingerprint ?? 'unknown'}; this minion: ${decision.presentedFingerprint}). If this host was re-imaged, run 'brine key --replace ${shown} --finger ${decision.presentedFingerprint}' on the master (it accepts this key in place of the old one) and restart this minion; if it is a different machine, give it its own 'id:' in the minion config.`,
      };
    case 'invalid_id':
      return { status: 'invalid_id', message: `${decision.reason} Set 'id:' in the minion config to a valid, unique name.` };
    case 'full':
      if (decision.code === 'AUTH_PENDING_LIMIT') {
        return { status: 'full', code: decision.code, message: `${decision.reason} This minion tries again after acceptance_wait_time.` };
      }
      return { status: 'full', message: `${decision.reason} Raise max_minions on the master or delete unused keys.` };
  }
}
