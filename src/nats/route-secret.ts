// The password every server of a NATS cluster presents on its routes (threats.md #41): without
// it, anyone who reaches a cluster port could introduce itself as a server and receive or inject
// every account's messages. Made once from node:crypto's CSPRNG and kept in a 0600 file that is
// copied to wherever `brine nats server-config` runs for another server of the same cluster.
// It is never logged; it appears only in the server configuration that needs it.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { BrineError, errnoCode } from '../util/errors.js';

/** The file's name in the operator directory (`<pki_dir>/nats`) when --cluster-password-file is not given. */
export const ROUTE_SECRET_FILE = 'route-password';

/** The user name routes present with the password (the password is the secret, not the name). */
export const ROUTE_USER = 'brine-route';

/**
 * URL-safe and quote-free, so it can sit in a nats-route:// URL and a quoted config string as it
 * is; at least 32 characters so a hand-made one is not guessable either.
 */
export const ROUTE_SECRET = /^[A-Za-z0-9_-]{32,256}$/;

function invalid(path: string, why: string): BrineError {
  return new BrineError(
    'NATS_ROUTE_SECRET_INVALID',
    `${path} ${why}: it must hold one line of 32 to 256 letters, digits, '-' or '_' (remove it to have brine make a new one, then copy it to every server of the cluster)`,
  );
}

/** Reads the route password from `path`, or makes one there (0600) if the file does not exist. */
export function loadOrCreateRouteSecret(path: string): { password: string; created: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw new BrineError('CONFIG_NOT_FOUND', `cannot read the route password file ${path}`, { cause: err });
    const password = randomBytes(32).toString('base64url');
    try {
      writeFileAtomicSync(path, `${password}\n`, 0o600);
    } catch (werr) {
      throw new BrineError('PKI_UNWRITABLE', `cannot write the route password file ${path}`, { cause: werr });
    }
    return { password, created: true };
  }
  const password = text.trim();
  if (!ROUTE_SECRET.test(password)) throw invalid(path, password === '' ? 'is empty' : 'is not a route password brine can use');
  return { password, created: false };
}
