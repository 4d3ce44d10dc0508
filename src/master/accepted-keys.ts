// The master's one index of accepted keys: the fingerprint of each minions/ID file, re-read only
// when the file's inode, mtime or size changes. The sign-in fast path, the session reconcile and
// the minion data cache all ask it, instead of each keeping its own cache of file stamps.
//
// Matching a presented key is the hot path (every sign-in, e.g. 10,000 after a master restart):
// it hashes the file's SPKI DER without parsing the key (spkiPemFingerprint), and parses it only
// when that does not match, so a key file written in some other form still matches its key.

import { minionIdProblem } from '../util/minion-id.js';
import type { KeyStore } from '../pki/index.js';

interface Entry {
  stamp: string;
  /** Hash of the file's DER as written; undefined when the file is not a plain SPKI PEM. */
  quick: string | undefined;
  /** The parsed key's fingerprint, once asked for (null: not computed yet). */
  full: string | undefined | null;
}

export class AcceptedKeyIndex {
  private readonly byId = new Map<string, Entry>();

  constructor(private readonly keys: KeyStore) {}

  /** Fingerprint of the ID's accepted key, or undefined when it has none (or an unreadable one). */
  fingerprintOf(id: string): string | undefined {
    const entry = this.entryOf(id);
    if (entry === undefined) return undefined;
    if (entry.full === null) {
      try {
        entry.full = this.keys.fingerprintOf('accepted', id);
      } catch {
        entry.full = undefined; // a damaged key file accepts nobody; the full table reports it
      }
    }
    return entry.full;
  }

  /** True when the ID's accepted key is the one with this fingerprint. */
  matches(id: string, fingerprint: string): boolean {
    const entry = this.entryOf(id);
    if (entry === undefined) return false;
    return entry.quick === fingerprint || this.fingerprintOf(id) === fingerprint;
  }

  /**
   * True when Salt's decision table would certainly answer "accepted": a valid ID, no rejected
   * key (rejected wins over accepted), and the accepted key is the one presented. Anything else
   * goes through the full table.
   */
  isAccepted(id: string, presentedFingerprint: string): boolean {
    if (minionIdProblem(id) !== undefined) return false;
    if (this.keys.stampOf('rejected', id) !== undefined) return false;
    return this.matches(id, presentedFingerprint);
  }

  private entryOf(id: string): Entry | undefined {
    if (minionIdProblem(id) !== undefined) return undefined;
    const stamp = this.keys.stampOf('accepted', id);
    if (stamp === undefined) {
      this.byId.delete(id);
      return undefined;
    }
    let entry = this.byId.get(id);
    if (entry?.stamp !== stamp) {
      let quick: string | undefined;
      try {
        quick = this.keys.quickFingerprintOf('accepted', id);
      } catch {
        quick = undefined;
      }
      entry = { stamp, quick, full: null };
      this.byId.set(id, entry);
    }
    return entry;
  }
}
