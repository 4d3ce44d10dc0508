// gpg_keydir and gpg_decrypt_must_succeed as the gpg renderer takes them, from a master's or a
// masterless minion's configuration: the key directory defaults to <config_dir>/gpgkeys (Salt).

import * as path from 'node:path';
import { GpgCache, type GpgOptions } from '../render/index.js';

export { GpgCache, type GpgOptions };
import { treeStamp } from './source.js';

export interface GpgConfig {
  config_dir?: unknown;
  gpg_keydir?: unknown;
  gpg_decrypt_must_succeed?: unknown;
}

export function gpgOptionsOf(opts: GpgConfig, onUndecrypted?: (what: string) => void, cache?: GpgCache): GpgOptions {
  const keydir = typeof opts.gpg_keydir === 'string' && opts.gpg_keydir !== '' ? opts.gpg_keydir : path.join(typeof opts.config_dir === 'string' ? opts.config_dir : '/etc/brine', 'gpgkeys');
  return { keydir, mustSucceed: opts.gpg_decrypt_must_succeed !== false, ...(onUndecrypted ? { onUndecrypted } : {}), ...(cache ? { cache } : {}) };
}

/**
 * Changes when a secret key is added to or removed from the key directory (GnuPG 2.1+ keeps one
 * file per key in private-keys-v1.d), so that a pillar that failed to decrypt is rendered again.
 */
export function gpgKeysStamp(gpg: GpgOptions): string {
  return treeStamp([path.join(gpg.keydir, 'private-keys-v1.d')]);
}
