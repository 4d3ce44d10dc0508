// A master's own connections to the NATS servers: as itself in BRINE (jobs, returns, sign-in)
// or in SYS (account lookups and updates). It proves its key by signing the server's nonce with
// it; the user JWT is one it issues to itself as a signing key of that account.

import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BrineError, errorMessage } from '../util/errors.js';
import { type AccountKeys, masterSystemUserJwt, masterUserJwt } from './authority.js';
import type { NkeySigner } from './nkeys.js';

const CONNECT_TIMEOUT_MS = 5000;

/** An authenticator that signs the server's nonce with `signer`: the key never leaves it. */
export function nkeyAuthenticator(signer: NkeySigner, jwt: string) {
  return (nonce?: string) => ({ jwt, nkey: signer.publicKey('user'), sig: signer.sign(Buffer.from(nonce ?? '')).toString('base64url') });
}

export async function connectAsMaster(servers: readonly string[], master: NkeySigner, accounts: AccountKeys, account: 'brine' | 'sys', name: string): Promise<NatsConnection> {
  const jwt = account === 'brine' ? masterUserJwt(master, accounts, name) : masterSystemUserJwt(master, accounts, name);
  try {
    return await connect({ servers: [...servers], authenticator: nkeyAuthenticator(master, jwt), name, reconnect: false, timeout: CONNECT_TIMEOUT_MS });
  } catch (err) {
    throw new BrineError(
      'NATS_CLAIMS_UPDATE_FAILED',
      `cannot connect to the NATS servers ${servers.join(', ')} as this master in ${account.toUpperCase()}: ${errorMessage(err)} (is this master's key among the account's signing keys?)`,
      { cause: err },
    );
  }
}
