// The master's key store in Salt's pki_dir layout: one file per minion ID in the directory of its
// state, holding the minion's public key PEM. Every ID is checked before any path is built.

import { constants, mkdirSync, openSync, readdirSync, readFileSync, closeSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BrineError, errorMessage, errnoCode } from '../util/errors.js';
import { assertValidMinionId, minionIdProblem } from '../util/minion-id.js';
import { fsyncDirectory, writeFileAtomicSync } from '../util/atomic-write.js';
import { DeniedKeyHistory, type DeniedKey } from './denied-keys.js';
import { fingerprint, spkiPemFingerprint, toPublicKey } from './fingerprint.js';

export type KeyState = 'accepted' | 'pending' | 'rejected' | 'denied';

/** All states, in the order Salt's salt-key reasons about them. */
export const KEY_STATES: readonly KeyState[] = ['accepted', 'pending', 'rejected', 'denied'];

/** Salt's directory names, so an operator's tools and habits keep working. */
export const KEY_STATE_DIRS: ReadonlyMap<KeyState, string> = new Map<KeyState, string>([
  ['accepted', 'minions'],
  ['pending', 'minions_pre'],
  ['rejected', 'minions_rejected'],
  ['denied', 'minions_denied'],
]);

const DIR_MODE = 0o700;
const KEY_FILE_MODE = 0o644;

/** Same key text after Salt's normalisation (trim, unify line endings), or same key material. */
export function sameKey(a: string, b: string): boolean {
  if (normalizeKeyText(a) === normalizeKeyText(b)) return true;
  // Two PEM spellings of one key (PKCS#1 vs SPKI, other line wrapping) are still one key.
  try {
    return fingerprint(a) === fingerprint(b);
  } catch {
    return false;
  }
}

function normalizeKeyText(pem: string): string {
  return pem.replace(/\r\n?/g, '\n').trim();
}

/** A directory's identity and last change, and how long before now that change was. */
interface DirStamp {
  ino: bigint;
  mtimeNs: bigint;
  ageNs: bigint;
}

/** Any file system's mtime clock ticks faster than this (ext4 and tmpfs: a jiffy, FAT: 2 s is not a key store). */
const SETTLED_DIR_NS = 1_000_000_000n;

function dirStamp(dir: string): DirStamp | undefined {
  try {
    const st = statSync(dir, { bigint: true });
    return { ino: st.ino, mtimeNs: st.mtimeNs, ageNs: BigInt(Date.now()) * 1_000_000n - st.mtimeNs };
  } catch {
    return undefined;
  }
}

export class KeyStore {
  private readonly deniedHistory: DeniedKeyHistory;
  /** The last listing of each state's directory, with the directory's stamp when it was read. */
  private readonly listings = new Map<KeyState, { stamp: DirStamp; ids: readonly string[] }>();

  constructor(readonly pkiDir: string) {
    this.deniedHistory = new DeniedKeyHistory(this.dirFor('denied'));
  }

  /** Creates pki_dir and the four state directories (0700 where created). */
  ensureLayout(): void {
    for (const dir of [this.pkiDir, ...KEY_STATE_DIRS.values()]) {
      const path = dir === this.pkiDir ? dir : join(this.pkiDir, dir);
      try {
        mkdirSync(path, { recursive: true, mode: DIR_MODE });
      } catch (err) {
        throw new BrineError('PKI_UNWRITABLE', `cannot create key directory ${path}: ${errorMessage(err)}. Make pki_dir writable by the user running the master, or point pki_dir elsewhere`, {
          cause: err,
          details: { path },
        });
      }
    }
  }

  /** The stored key text, or undefined when the ID has no key in that state. */
  read(state: KeyState, id: string): string | undefined {
    const path = this.pathFor(state, id);
    let fd: number;
    try {
      // O_NOFOLLOW: a symlink planted in the store must not make us read a file outside it.
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw new BrineError('PKI_KEY_INVALID', `cannot read key file ${path}: ${errorMessage(err)}; remove or fix it (it must be a regular file)`, { cause: err, details: { path } });
    }
    try {
      return readFileSync(fd, 'utf8');
    } catch (err) {
      throw new BrineError('PKI_KEY_INVALID', `cannot read key file ${path}: ${errorMessage(err)}; remove or fix it`, { cause: err, details: { path } });
    } finally {
      closeSync(fd);
    }
  }

  /** Every state in which this ID has a key (usually zero or one; denied may coexist). */
  states(id: string): KeyState[] {
    assertValidMinionId(id);
    return KEY_STATES.filter((state) => this.read(state, id) !== undefined);
  }

  /**
   * IDs with a key in `state`, sorted case-insensitively; dot-files and invalid names ignored.
   * A listing is reused while its directory is unchanged (same inode and mtime), so a master
   * with 10,000 keys does not read and sort the directory on every publish (issue 12).
   */
  list(state: KeyState): string[] {
    const dir = this.dirFor(state);
    // denied IDs also come from the denied-key history, which changes without the directory
    const cacheable = state !== 'denied';
    let stamp: DirStamp | undefined;
    if (cacheable) {
      stamp = dirStamp(dir);
      const cached = this.listings.get(state);
      if (stamp !== undefined && cached !== undefined && cached.stamp.ino === stamp.ino && cached.stamp.mtimeNs === stamp.mtimeNs) return [...cached.ids];
    }
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return [];
      throw new BrineError('PKI_KEY_INVALID', `cannot list key directory ${dir}: ${errorMessage(err)}`, { cause: err, details: { path: dir } });
    }
    if (state === 'denied') names = [...new Set([...names, ...this.deniedHistory.ids()])];
    // Salt sorts with key=str.lower; the tie-break keeps the order stable for IDs differing in case.
    const ids = names.filter((name) => !name.startsWith('.') && minionIdProblem(name) === undefined).sort((a, b) => compareStrings(a.toLowerCase(), b.toLowerCase()) || compareStrings(a, b));
    // Only a directory unchanged for a while before it was read may be trusted later: its mtime
    // has a coarse clock, so a change in the same tick as the read would leave the mtime as it was.
    if (stamp !== undefined && stamp.ageNs > SETTLED_DIR_NS) this.listings.set(state, { stamp, ids });
    else this.listings.delete(state);
    return [...ids];
  }

  listAll(): Record<KeyState, string[]> {
    return { accepted: this.list('accepted'), pending: this.list('pending'), rejected: this.list('rejected'), denied: this.list('denied') };
  }

  /** Stores a public key (atomically, mode 0644). Private keys and non-keys are refused. */
  write(state: KeyState, id: string, pem: string): void {
    const path = this.pathFor(state, id);
    assertPublicKeyPem(pem, id);
    try {
      mkdirSync(this.dirFor(state), { recursive: true, mode: DIR_MODE });
      writeFileAtomicSync(path, pem, KEY_FILE_MODE);
    } catch (err) {
      throw new BrineError('PKI_UNWRITABLE', `cannot write key file ${path}: ${errorMessage(err)}. Make pki_dir writable by the user running the master`, { cause: err, details: { path } });
    }
  }

  /**
   * Stores a key that was denied for `id`: Salt's minions_denied/ID holds the latest one, and every
   * distinct key is kept with its source address so an operator picks the right one (#31).
   */
  recordDenied(id: string, pem: string, source: { remote: string; at: number }): void {
    // A denied minion retries every acceptance_wait_time with the same key: when it is already the
    // latest one and was seen within the minute, nothing is rewritten (sign-in hot path, disk wear).
    const fp = fingerprint(pem);
    let latest: string | undefined;
    try {
      latest = this.fingerprintOf('denied', id);
    } catch {
      latest = undefined; // a damaged file is replaced below
    }
    if (latest === fp && this.deniedHistory.seenRecently(id, fp, source.at)) return;
    this.deniedHistory.record(id, pem, source);
    this.write('denied', id, pem);
  }

  /** Every distinct denied key for `id`, most recently seen first (a hand-planted file included). */
  deniedKeys(id: string): DeniedKey[] {
    const keys = this.deniedHistory.list(id);
    const salt = this.read('denied', id);
    if (salt !== undefined) {
      let fp: string | undefined;
      try {
        fp = fingerprint(salt);
      } catch {
        fp = undefined; // a damaged file is nobody's candidate
      }
      if (fp !== undefined && !keys.some((k) => k.fingerprint === fp)) keys.push({ fingerprint: fp, pem: salt });
    }
    return keys;
  }

  /** Forgets one denied key of `id`; minions_denied/ID then holds the newest one left, if any. */
  forgetDenied(id: string, fp: string): void {
    this.deniedHistory.forget(id, fp);
    if (this.fingerprintOf('denied', id) !== fp) return;
    const next = this.deniedHistory.list(id)[0];
    if (next === undefined) this.remove(id, 'denied');
    else this.write('denied', id, next.pem);
  }

  /** Moves a key between states with one rename (replacing any key already in `to`). */
  move(id: string, from: KeyState, to: KeyState): void {
    const src = this.pathFor(from, id);
    const dst = this.pathFor(to, id);
    if (from === to) return;
    if (this.read(from, id) === undefined) {
      throw new BrineError('KEY_NOT_FOUND', `minion ${id} has no ${from} key to move to ${to}; list the keys with \`brine key -L\``, { details: { id, state: from } });
    }
    try {
      mkdirSync(this.dirFor(to), { recursive: true, mode: DIR_MODE });
      renameSync(src, dst);
    } catch (err) {
      throw new BrineError('PKI_UNWRITABLE', `cannot move key of ${id} from ${src} to ${dst}: ${errorMessage(err)}. Make pki_dir writable by the user running the master`, {
        cause: err,
        details: { id },
      });
    }
    fsyncDirectory(this.dirFor(to));
  }

  /** Deletes the ID's key from `state`, or from every state; returns the states it was in. */
  remove(id: string, state?: KeyState): KeyState[] {
    assertValidMinionId(id);
    const removed: KeyState[] = [];
    if (state === undefined || state === 'denied') {
      if (this.deniedHistory.list(id).length > 0 && this.read('denied', id) === undefined) removed.push('denied');
      this.deniedHistory.forget(id);
    }
    for (const s of state === undefined ? KEY_STATES : [state]) {
      const path = this.pathFor(s, id);
      try {
        unlinkSync(path);
        if (!removed.includes(s)) removed.push(s);
        fsyncDirectory(this.dirFor(s));
      } catch (err) {
        const code = errnoCode(err);
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        throw new BrineError('PKI_UNWRITABLE', `cannot delete key file ${path}: ${errorMessage(err)}. Make pki_dir writable by the user running the master`, { cause: err, details: { id } });
      }
    }
    return removed;
  }

  /** Fingerprint of the stored key, or undefined when there is none. */
  fingerprintOf(state: KeyState, id: string): string | undefined {
    const pem = this.read(state, id);
    return pem === undefined ? undefined : fingerprint(pem);
  }

  /**
   * The hash of the stored key's DER without parsing it (a plain SPKI PEM, as brine writes them;
   * undefined for other forms): only for comparing with a fingerprint known to be real, since a
   * damaged file gives a hash no real key has.
   */
  quickFingerprintOf(state: KeyState, id: string): string | undefined {
    const pem = this.read(state, id);
    return pem === undefined ? undefined : spkiPemFingerprint(pem);
  }

  /** inode, mtime and size of the ID's key file in a state: changes whenever the file does. */
  stampOf(state: KeyState, id: string): string | undefined {
    try {
      const st = statSync(this.pathFor(state, id));
      return `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch {
      return undefined;
    }
  }

  /**
   * One stamp for all of the ID's key files and its denied-key history: unchanged stamp, unchanged
   * keys. Lets a scan of 10,000 IDs (the NATS key bucket's, issue 13) stat files instead of reading them.
   */
  idStamp(id: string): string {
    const parts = KEY_STATES.map((state) => {
      // no exception for the usual missing file: a thrown ENOENT costs more than the stat
      const st = statSync(this.pathFor(state, id), { throwIfNoEntry: false });
      return st === undefined ? '-' : `${st.ino}:${st.mtimeMs}:${st.size}`;
    });
    return `${parts.join('|')}|${this.deniedHistory.stampOf(id) ?? '-'}`;
  }

  /** The only place a file path is built from an ID: the ID is validated first. */
  private pathFor(state: KeyState, id: string): string {
    assertValidMinionId(id);
    return join(this.dirFor(state), id);
  }

  private dirFor(state: KeyState): string {
    const dir = KEY_STATE_DIRS.get(state);
    if (dir === undefined) throw new BrineError('INTERNAL', `unknown key state ${JSON.stringify(state)}`);
    return join(this.pkiDir, dir);
  }
}

function assertPublicKeyPem(pem: string, id: string): void {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    throw new BrineError('PKI_KEY_INVALID', `refusing to store a private key as the key of minion ${id}; the key store holds public keys only`, { details: { id } });
  }
  toPublicKey(pem); // throws PKI_KEY_INVALID for anything that is not a key or certificate
  if (pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new BrineError('PKI_KEY_INVALID', `refusing to store a certificate as the key of minion ${id}; store its SPKI public key PEM`, { details: { id } });
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
