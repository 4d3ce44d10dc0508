// The master key pin (master_finger, pin on first contact, refuse a changed key) and master
// endpoints. The ID algorithm is tested in minion-id*.test.ts.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { MasterPin, parseMasterEndpoint } from '../../../src/minion/index.js';
import { fingerprint } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-id-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('MasterPin', () => {
  const keyPem = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;

  it('pins on first contact and accepts the same key again', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const pem = keyPem();
    const pin = new MasterPin(dir, '');
    pin.check({ fingerprint: fingerprint(pem), publicKeyPem: pem }, 'm:4506');
    assert.equal(pin.pinnedFingerprint(), fingerprint(pem));
    pin.check({ fingerprint: fingerprint(pem), publicKeyPem: pem }, 'm:4506');
  });

  it('refuses a changed key with both fingerprints and the file to delete', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const first = keyPem();
    const second = keyPem();
    const pin = new MasterPin(dir, '');
    pin.check({ fingerprint: fingerprint(first), publicKeyPem: first }, 'm:4506');
    assert.throws(
      () => pin.check({ fingerprint: fingerprint(second), publicKeyPem: second }, 'm:4506'),
      (err) => isBrineError(err, 'MASTER_KEY_CHANGED') && err.message.includes(fingerprint(first)) && err.message.includes(fingerprint(second)) && err.message.includes('minion_master.pub'),
    );
    assert.equal(pin.pinnedFingerprint(), fingerprint(first), 'the pin is not overwritten');
  });

  it('checks master_finger before trusting anything, in any spelling', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const pem = keyPem();
    const fp = fingerprint(pem);
    new MasterPin(dir, fp.replace(/:/g, '').toUpperCase()).check({ fingerprint: fp, publicKeyPem: pem }, 'm');
    const other = fs.mkdtempSync(path.join(tmp, 'pin-'));
    assert.throws(() => new MasterPin(other, fingerprint(keyPem())).check({ fingerprint: fp, publicKeyPem: pem }, 'm'), (err) => isBrineError(err, 'MASTER_FINGER_MISMATCH'));
    assert.equal(fs.existsSync(path.join(other, 'minion_master.pub')), false, 'nothing pinned on a mismatch');
  });
});

describe('parseMasterEndpoint', () => {
  it('reads host, host:port and [v6]:port', () => {
    assert.deepEqual(parseMasterEndpoint('salt', 4506), { host: 'salt', port: 4506 });
    assert.deepEqual(parseMasterEndpoint('10.0.0.1:4510', 4506), { host: '10.0.0.1', port: 4510 });
    assert.deepEqual(parseMasterEndpoint('[::1]:4510', 4506), { host: '::1', port: 4510 });
    assert.deepEqual(parseMasterEndpoint('::1', 4506), { host: '::1', port: 4506 });
  });
});
