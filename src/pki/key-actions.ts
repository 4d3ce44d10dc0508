// The key moves `brine key` and the REST API's wheel key.* share: selecting keys by glob,
// capturing the key a move means (its text and fingerprint, so the key confirmed is the key
// written, threats.md #31), choosing among an ID's denied keys, and settling the move.

import { BrineError } from '../util/errors.js';
import { printable } from '../util/printable.js';
import type { DeniedKey } from './denied-keys.js';
import { fingerprint, normalizeFingerprint } from './fingerprint.js';
import { fnmatch } from './fnmatch.js';
import type { KeyState, KeyStore } from './key-store.js';

/** Comma-separated globs, as salt-key takes them. */
export function matchesGlobs(globs: string, id: string): boolean {
  return globs.split(',').some((g) => g.trim() !== '' && fnmatch(id, g.trim()));
}

export function selectKeys(store: KeyStore, states: readonly KeyState[], globs: string): Map<KeyState, string[]> {
  const out = new Map<KeyState, string[]>();
  for (const state of states) {
    const ids = store.list(state).filter((id) => matchesGlobs(globs, id));
    if (ids.length > 0) out.set(state, ids);
  }
  return out;
}

/** A denied key as listed: its fingerprint and where it came from. */
export function deniedLine(id: string, k: DeniedKey): string {
  const from = k.remote === undefined ? '' : `  (from ${printable(k.remote)}${k.lastSeen === undefined ? '' : `, last seen ${new Date(k.lastSeen).toISOString()}`})`;
  return `${printable(id)}:  ${k.fingerprint}${from}`;
}

/** A key chosen for a move, captured when it was shown: the confirmed key is the one written. */
export interface ChosenKey {
  state: KeyState;
  id: string;
  pem: string;
  fingerprint: string;
  /** For a denied key: where it came from, to show. */
  denied?: DeniedKey;
}

/**
 * The denied key of `id` the operator means: the one named by `finger`, else the only one seen.
 * Several keys and no finger is KEY_AMBIGUOUS: one of them may be an impostor's.
 */
export function chooseDenied(store: KeyStore, id: string, finger: string | undefined): DeniedKey {
  const keys = store.deniedKeys(id);
  if (keys.length === 0) throw new BrineError('KEY_NOT_FOUND', `no denied key for '${id}'; see 'brine key -L'`);
  if (finger !== undefined) {
    const fp = normalizeFingerprint(finger);
    if (fp === undefined) throw new BrineError('USAGE', `--finger '${finger}' is not a fingerprint: give the 64 hex digits (colons optional) shown by 'brine key -f ${id}'`);
    const found = keys.find((k) => k.fingerprint === fp);
    if (!found) throw new BrineError('KEY_NOT_FOUND', `no denied key for '${id}' has fingerprint ${fp}; its denied keys are:\n${keys.map((k) => deniedLine(id, k)).join('\n')}`);
    return found;
  }
  if (keys.length > 1) {
    throw new BrineError(
      'KEY_AMBIGUOUS',
      `${keys.length} different keys tried to sign in as '${id}'; nothing was changed. Check the fingerprint on the host itself ('brine key -f' there, or its minion.pub) and name it with --finger:\n${keys.map((k) => deniedLine(id, k)).join('\n')}`,
    );
  }
  return keys[0]!;
}

export function captureKey(store: KeyStore, state: KeyState, id: string, finger: string | undefined): ChosenKey | undefined {
  if (state === 'denied') {
    const k = chooseDenied(store, id, finger);
    return { state, id, pem: k.pem, fingerprint: k.fingerprint, denied: k };
  }
  const pem = store.read(state, id);
  return pem === undefined ? undefined : { state, id, pem, fingerprint: fingerprint(pem) };
}

/**
 * Puts the confirmed key into `to` (its text as shown, whatever the source file holds now) and
 * removes it from where it was only if that file still holds the same key.
 */
export function settleKey(store: KeyStore, c: ChosenKey, to: KeyState): void {
  store.write(to, c.id, c.pem);
  if (c.state === 'denied') store.forgetDenied(c.id, c.fingerprint);
  else if (store.fingerprintOf(c.state, c.id) === c.fingerprint) store.remove(c.id, c.state);
}
