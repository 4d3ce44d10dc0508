// The master's TLS ticket keys (issue 12): kept in pki_dir with mode 0600 so that minions resume
// their sessions across a master restart; renewed when older than the tickets' lifetime or when
// the file is damaged or readable by others.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadOrCreateTicketKeys, TICKET_KEYS_BYTES, TICKET_LIFETIME_S, ticketKeysPath } from '../../../src/pki/index.js';

function pkiDir(t: import('node:test').TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-tickets-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('made once with mode 0600 and the same keys after a restart', (t) => {
  const dir = pkiDir(t);
  const keys = loadOrCreateTicketKeys(dir);
  assert.equal(keys.length, TICKET_KEYS_BYTES);
  assert.equal(fs.statSync(ticketKeysPath(dir)).mode & 0o777, 0o600);
  assert.deepEqual(loadOrCreateTicketKeys(dir), keys);
});

test('renewed when older than the ticket lifetime, damaged, or readable by others', (t) => {
  const dir = pkiDir(t);
  const keys = loadOrCreateTicketKeys(dir);
  const later = Date.now() + (TICKET_LIFETIME_S + 60) * 1000;
  const renewed = loadOrCreateTicketKeys(dir, later);
  assert.notDeepEqual(renewed, keys, 'older than the lifetime');
  fs.writeFileSync(ticketKeysPath(dir), 'not hex\n', { mode: 0o600 });
  const fromDamaged = loadOrCreateTicketKeys(dir);
  assert.equal(fromDamaged.length, TICKET_KEYS_BYTES);
  fs.chmodSync(ticketKeysPath(dir), 0o644);
  assert.notDeepEqual(loadOrCreateTicketKeys(dir), fromDamaged, 'a file others can read is not trusted');
  assert.equal(fs.statSync(ticketKeysPath(dir)).mode & 0o777, 0o600);
});
