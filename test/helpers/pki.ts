// Key facts tests compare against what brine prints, computed independently with node:crypto.

import { createHash, createPublicKey } from 'node:crypto';

/** SHA-256 of a public key's SPKI DER as colon-separated hex pairs (`brine key -F`'s form). */
export function fingerprintOf(pem: string): string {
  const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').match(/../g)!.join(':');
}
