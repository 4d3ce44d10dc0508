// Shared fixtures for the pki tests: temp directories that clean themselves up, and key pairs.

import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, lstatSync } from 'node:fs';
import { join, relative } from 'node:path';

export { tempDir } from '../../helpers/paths.js';

/** A fresh Ed25519 public key as SPKI PEM. */
export function newPublicKeyPem(): string {
  return generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
}

/** Every path under root (relative), including dot-files: to prove nothing was created. */
export function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      out.push(relative(root, path));
      if (lstatSync(path).isDirectory()) walk(path);
    }
  };
  walk(root);
  return out.sort();
}
