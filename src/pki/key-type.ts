// Which key types brine trusts: only the ones it makes itself (Ed25519, and EC P-256 with a named
// curve). Anything else (RSA of any size, RSA-PSS, Ed448, other curves, explicit EC parameters)
// is refused before a key file is written, so odd or weak keys never enter the key store.

import type { KeyObject } from 'node:crypto';

/** SPKI DER prefix of an EC P-256 key with the named-curve OID (id-ecPublicKey + prime256v1). */
const P256_NAMED_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
const P256_SPKI_LENGTH = 91;

export const SUPPORTED_KEY_TYPES = 'Ed25519 or EC P-256 (named curve)';

/** Undefined for a key type brine accepts; otherwise what the key is, for the refusal message. */
export function keyTypeProblem(key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return undefined;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve !== 'prime256v1') return `an EC key on curve ${curve ?? 'unknown'}`;
    // Node reports explicit parameters that happen to equal P-256 as 'prime256v1' too; only the
    // encoding tells them apart, and explicit parameters are what curve-substitution attacks use.
    const der = key.export({ type: 'spki', format: 'der' });
    if (der.length !== P256_SPKI_LENGTH || !der.subarray(0, P256_NAMED_SPKI_PREFIX.length).equals(P256_NAMED_SPKI_PREFIX)) return 'an EC key with explicit curve parameters';
    return undefined;
  }
  if (type === 'rsa' || type === 'rsa-pss') {
    const bits = key.asymmetricKeyDetails?.modulusLength;
    return `an ${type === 'rsa' ? 'RSA' : 'RSA-PSS'} key${bits === undefined ? '' : ` of ${bits} bits`}`;
  }
  return `a key of type ${type ?? 'unknown'}`;
}
