// Trust in each master's key, one pin per master: `master_finger` (one fingerprint or a list)
// is checked before anything is trusted, a master's key is pinned in
// pki_dir/masters/<host>_<port>.pub once that master has accepted this minion, and a changed key
// is refused with both fingerprints and the way to re-trust. Masters of one minion may have
// different key pairs (independently set-up multi-master).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { fingerprint, normalizeFingerprint } from '../pki/fingerprint.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { MASTER_PIN_DIR, pinFileName } from '../pki/master-pin-file.js';

/** The single pin of brine before per-master pins; migrated at minion start. */
export const MASTER_PIN_FILE = 'minion_master.pub';
export { MASTER_PIN_DIR, pinFileName };

export interface MasterRef {
  host: string;
  port: number;
}

export interface PresentedKey {
  fingerprint: string;
  publicKeyPem: string;
}

/**
 * How far a master's key is trusted: `pinned` (it matches this master's pin, or master_finger
 * lists it) or `unpinned` (first contact: trusted for the attempt, pinned only once it accepts).
 */
export type MasterTrust = 'pinned' | 'unpinned';

/** master_finger as a list of normalised fingerprints ('' and [] mean unset). */
export function masterFingers(setting: string | readonly string[] | undefined): { raw: string[]; normalized: Array<string | undefined> } {
  const raw = (Array.isArray(setting) ? setting : [setting ?? '']).map((s) => String(s).trim()).filter((s) => s !== '');
  return { raw, normalized: raw.map((s) => normalizeFingerprint(s)) };
}

export class MasterPins {
  readonly dir: string;
  readonly legacyFile: string;
  private readonly fingers: ReturnType<typeof masterFingers>;

  constructor(
    readonly pkiDir: string,
    masterFinger: string | readonly string[] | undefined,
  ) {
    this.dir = path.join(pkiDir, MASTER_PIN_DIR);
    this.legacyFile = path.join(pkiDir, MASTER_PIN_FILE);
    this.fingers = masterFingers(masterFinger);
  }

  fileFor(m: MasterRef): string {
    return path.join(this.dir, pinFileName(m));
  }

  /** The pinned fingerprint for this master: its own pin, else a not yet migrated single pin. */
  pinnedFingerprint(m: MasterRef): string | undefined {
    return readFingerprint(this.fileFor(m)) ?? readFingerprint(this.legacyFile);
  }

  /** Where the pin that applies to this master lives (for messages). */
  pinFileOf(m: MasterRef): string {
    const own = this.fileFor(m);
    return fs.existsSync(own) || !fs.existsSync(this.legacyFile) ? own : this.legacyFile;
  }

  /**
   * Migration from the single minion_master.pub: every master had to share that key, so it
   * becomes the pin of every configured master that has none, and the old file is removed.
   */
  migrateLegacy(masters: readonly MasterRef[], logger?: Logger): void {
    let pem: string;
    try {
      pem = fs.readFileSync(this.legacyFile, 'utf8');
    } catch {
      return;
    }
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o755 });
    for (const m of masters) if (!fs.existsSync(this.fileFor(m))) writeFileAtomicSync(this.fileFor(m), pem, 0o644);
    fs.rmSync(this.legacyFile, { force: true });
    logger?.info({ from: this.legacyFile, to: this.dir }, `moved the master key pin ${this.legacyFile} to one pin per master in ${this.dir}`);
  }

  /**
   * Throws MASTER_FINGER_MISMATCH or MASTER_KEY_CHANGED unless the presented key may be used for
   * this master. Writes nothing: a first-contact key is pinned by confirm() once it accepts us.
   */
  check(master: PresentedKey, m: MasterRef): MasterTrust {
    const where = `${m.host}:${m.port}`;
    const pinned = this.fingers.raw.length > 0 ? undefined : this.pinnedFingerprint(m);
    const decision = masterKeyDecision(master.fingerprint, this.fingers, pinned);
    if (this.fingers.raw.length > 0) {
      if (decision === 'finger_mismatch') {
        const listed = this.fingers.raw.join(', ');
        throw new BrineError(
          'MASTER_FINGER_MISMATCH',
          `master ${where} presented key ${master.fingerprint}, but master_finger is ${listed}. Compare with 'brine key -F master' on that master; refusing it and retrying with backoff.`,
        );
      }
      // the operator named this key: it is trusted even over an older pin
      return 'pinned';
    }
    if (decision === 'unpinned') return 'unpinned';
    if (decision === 'changed') {
      const file = this.pinFileOf(m);
      throw new BrineError(
        'MASTER_KEY_CHANGED',
        `The master key has changed: ${where} presented ${master.fingerprint}, but this minion pinned ${pinned} in ${file}. If the master was legitimately re-keyed, delete ${file} (or add the new fingerprint to master_finger); otherwise the master may have been subverted. This master is refused and retried with backoff.`,
      );
    }
    return 'pinned';
  }

  /** This master accepted us: its key becomes (or stays) its pin. */
  confirm(master: PresentedKey, m: MasterRef): void {
    const file = this.fileFor(m);
    if (readFingerprint(file) === master.fingerprint) return;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o755 });
    writeFileAtomicSync(file, master.publicKeyPem, 0o644);
  }
}

function readFingerprint(file: string): string | undefined {
  try {
    return fingerprint(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** What the minion makes of a master's key; `brine doctor` words the same decision (minion-verdicts.ts). */
export type MasterKeyDecision = 'finger_listed' | 'finger_mismatch' | 'unpinned' | 'changed' | 'pinned';

/**
 * The trust decision for a presented master key, with no I/O: master_finger first (a listed key
 * is trusted even over an older pin), then the pin of that master, else not pinned yet.
 */
export function masterKeyDecision(presented: string, fingers: { raw: readonly string[]; normalized: ReadonlyArray<string | undefined> }, pinned: string | undefined): MasterKeyDecision {
  if (fingers.raw.length > 0) return fingers.normalized.includes(presented) ? 'finger_listed' : 'finger_mismatch';
  if (pinned === undefined) return 'unpinned';
  return pinned === presented ? 'pinned' : 'changed';
}
