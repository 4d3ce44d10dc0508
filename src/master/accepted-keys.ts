// The common sign-in, a minion whose key is already accepted, answered from a cache of accepted
// key fingerprints checked against each file's inode, mtime and size, instead of parsing two
// PEM keys through the whole decision table (which matters when thousands reconnect at once).

import { minionIdProblem } from '../util/minion-id.js';
import type { KeyStore } from '../pki/index.js';

export class AcceptedKeyCache {
  private readonly byId = new Map<string, { stamp: string; fingerprint: string | undefined }>();

  constructor(private readonly keys: KeyStore) {}

  /**
   * True when Salt's decision table would certainly answer "accepted": a valid ID, no rejected
   * key (rejected wins over accepted), and the accepted key is the one presented. Anything else
   * goes through the full table.
   */
  isAccepted(id: string, presentedFingerprint: string): boolean {
    if (minionIdProblem(id) !== undefined) return false;
    if (this.keys.stampOf('rejected', id) !== undefined) return false;
    const stamp = this.keys.stampOf('accepted', id);
    if (stamp === undefined) {
      this.byId.delete(id);
      return false;
    }
    let entry = this.byId.get(id);
    if (entry?.stamp !== stamp) {
      entry = { stamp, fingerprint: this.keys.fingerprintOf('accepted', id) };
      this.byId.set(id, entry);
    }
    return entry.fingerprint === presentedFingerprint;
  }
}
