// The master's one index of accepted keys: the fingerprint of each minions/ID file, re-read only
// when the file's inode, mtime or size changes. The sign-in fast path, the session reconcile and
// the minion data cache all ask it, instead of each keeping its own cache of file stamps.

import { minionIdProblem } from '../util/minion-id.js';
import type { KeyStore } from '../pki/index.js';

export class AcceptedKeyIndex {
  private readonly byId = new Map<string, { stamp: string; fingerprint: string | undefined }>();

  constructor(private readonly keys: KeyStore) {}

  /** Fingerprint of the ID's accepted key, or undefined when it has none (or an unreadable one). */
  fingerprintOf(id: string): string | undefined {
    if (minionIdProblem(id) !== undefined) return undefined;
    const stamp = this.keys.stampOf('accepted', id);
    if (stamp === undefined) {
      this.byId.delete(id);
      return undefined;
    }
    let entry = this.byId.get(id);
    if (entry?.stamp !== stamp) {
      let fp: string | undefined;
      try {
        fp = this.keys.fingerprintOf('accepted', id);
      } catch {
        fp = undefined; // a damaged key file accepts nobody; the full table reports it
      }
      entry = { stamp, fingerprint: fp };
      this.byId.set(id, entry);
    }
    return entry.fingerprint;
  }

  /**
   * True when Salt's decision table would certainly answer "accepted": a valid ID, no rejected
   * key (rejected wins over accepted), and the accepted key is the one presented. Anything else
   * goes through the full table.
   */
  isAccepted(id: string, presentedFingerprint: string): boolean {
    if (minionIdProblem(id) !== undefined) return false;
    if (this.keys.stampOf('rejected', id) !== undefined) return false;
    return this.fingerprintOf(id) === presentedFingerprint;
  }
}
