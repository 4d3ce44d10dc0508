// Public surface of src/pki: node identity, fingerprints, the master's key store, Salt's auth
// decision table and the autosign/autoreject match files.

export { loadOrCreateIdentity, type Identity, type IdentityOptions } from './identity.js';
export { certificateKeyFromDer, fingerprint, isFingerprint, normalizeFingerprint, spkiPemFingerprint, toPublicKey } from './fingerprint.js';
export { KeyStore, KEY_STATES, KEY_STATE_DIRS, sameKey, type KeyState } from './key-store.js';
export { decideAuth, type AuthDecision, type AuthPolicy, type AuthRequest, type AuthStatus, type KeyEffect, type KeyView } from './auth-decision.js';
export { applyKeyEffects, statesWritten } from './key-effects.js';
export { DENIED_KEYS_PER_ID, DENIED_REFRESH_MS, type DeniedKey } from './denied-keys.js';
export { keyTypeProblem, SUPPORTED_KEY_TYPES } from './key-type.js';
export { loadMatchFile, matchFileLines, type MatchFileOptions } from './autosign.js';
export { compileExpr, exprMatch, fnmatch, globToRegExp } from './fnmatch.js';
export { createSelfSignedCert, certificateProblem, CERT_VALIDITY_YEARS } from './certificate.js';
// one helper for every layer (src/util/atomic-write.ts); re-exported for pki's users
export { writeFileAtomicSync } from '../util/atomic-write.js';
export { matchesGlobs, selectKeys, deniedLine, chooseDenied, captureKey, settleKey, type ChosenKey } from './key-actions.js';
export { TICKET_KEYS_BYTES, TICKET_LIFETIME_S, ticketKeysFor } from './ticket-keys.js';
