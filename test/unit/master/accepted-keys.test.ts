// The sign-in fast path must agree with Salt's decision table: it may only say "accepted" where
// the table would, and it notices a key file replaced behind its back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { AcceptedKeyIndex } from '../../../src/master/accepted-keys.js';
import { KeyStore, decideAuth, fingerprint } from '../../../src/pki/index.js';

const newKey = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;

test('agrees with decideAuth on every layout, and sees a replaced key file', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-fast-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = new KeyStore(dir);
  store.ensureLayout();
  const cache = new AcceptedKeyIndex(store);
  const k1 = newKey();
  const k2 = newKey();
  const policy = { autoAccept: false, openMode: false };
  const agree = (id: string, pem: string) => {
    const fast = cache.isAccepted(id, fingerprint(pem));
    if (fast) assert.equal(decideAuth(store, { id, publicKeyPem: pem }, policy).status, 'accepted', `fast path said accepted for ${id}`);
    return fast;
  };
  store.write('accepted', 'web1', k1);
  assert.equal(agree('web1', k1), true);
  assert.equal(agree('web1', k2), false, 'another key for an accepted ID is not accepted');
  store.write('rejected', 'web1', k1);
  assert.equal(agree('web1', k1), false, 'a rejected key wins over the accepted one');
  store.remove('web1', 'rejected');
  assert.equal(agree('web1', k1), true);
  // a re-image: the denied key replaces the accepted one (a new file under the same name)
  store.write('denied', 'web1', k2);
  store.move('web1', 'denied', 'accepted');
  assert.equal(agree('web1', k1), false, 'the old key is no longer accepted');
  assert.equal(agree('web1', k2), true);
  store.remove('web1');
  assert.equal(agree('web1', k2), false, 'a deleted key');
  store.write('pending', 'web2', k1);
  assert.equal(agree('web2', k1), false, 'pending is not accepted');
  assert.equal(cache.isAccepted('../x', fingerprint(k1)), false, 'an invalid ID never takes the fast path');
});
