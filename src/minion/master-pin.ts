// Trust in the master's key: `master_finger` is checked before anything is trusted, the key is
// pinned in pki_dir/minion_master.pub on first contact, and a changed key is refused with both
// fingerprints and the way to re-trust.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError } from '../util/errors.js';
import { fingerprint, normalizeFingerprint, writeFileAtomicSync } from '../pki/index.js';

export const MASTER_PIN_FILE = 'minion_master.pub';

export class MasterPin {
  readonly file: string;

  constructor(
    pkiDir: string,
    private readonly masterFinger: string,
  ) {
    this.file = path.join(pkiDir, MASTER_PIN_FILE);
  }

  pinnedFingerprint(): string | undefined {
    try {
      return fingerprint(fs.readFileSync(this.file, 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** Throws unless the presented master key may be trusted; pins it on first contact. */
  check(master: { fingerprint: string; publicKeyPem: string }, where: string): void {
    if (this.masterFinger) {
      const want = normalizeFingerprint(this.masterFinger);
      if (want !== master.fingerprint) {
        throw new BrineError('MASTER_FINGER_MISMATCH', `master ${where} presented key ${master.fingerprint}, but master_finger is ${this.masterFinger}. Compare with 'brine key -F master' on the master; refusing to connect.`);
      }
    }
    const pinned = this.pinnedFingerprint();
    if (pinned === undefined) {
      writeFileAtomicSync(this.file, master.publicKeyPem, 0o644);
      return;
    }
    if (pinned !== master.fingerprint) {
      throw new BrineError(
        'MASTER_KEY_CHANGED',
        `The master key has changed: ${where} presented ${master.fingerprint}, but this minion pinned ${pinned} in ${this.file}. If the master was legitimately re-keyed, delete ${this.file} and restart the minion (or set master_finger to the new fingerprint); otherwise the master may have been subverted.`,
      );
    }
  }
}
