// The master's TLS ticket keys (issue 12): derived from its private key, so they are the same
// after a restart (minions resume their sessions) and different for any other key (a re-keyed
// master or an impostor cannot resume a session sealed under the old key: the minion's pin then
// sees the new key on the full handshake that follows).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { TICKET_KEYS_BYTES, ticketKeysFor } from '../../../src/pki/index.js';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

test('the same key gives the same ticket keys (across restarts); another key other ones', () => {
  const key = pem();
  const keys = ticketKeysFor(key);
  assert.equal(keys.length, TICKET_KEYS_BYTES);
  assert.deepEqual(ticketKeysFor(key), keys);
  assert.notDeepEqual(ticketKeysFor(pem()), keys);
  // not the key material itself
  assert.equal(key.includes(keys.toString('base64')), false);
});
