// The per-master key pins (master_finger, pin once a master accepts, refuse a changed key) and master
// endpoints. The ID algorithm is tested in minion-id*.test.ts.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { MasterPins, parseMasterEndpoint, pinFileName } from '../../../src/minion/index.js';
import { fingerprint } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-id-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('MasterPins', () => {
  const keyPem = () => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const key = (pem: string) => ({ fingerprint: fingerprint(pem), publicKeyPem: pem });
  const M1 = { host: 'm1', port: 4506 };
  const M2 = { host: 'm2', port: 4506 };

  it('first contact is unpinned and writes nothing; confirm() pins, and the same key is then pinned', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const pem = keyPem();
    const pins = new MasterPins(dir, '');
    assert.equal(pins.check(key(pem), M1), 'unpinned');
    assert.equal(pins.pinnedFingerprint(M1), undefined, 'a key is not pinned before the master accepted us');
    pins.confirm(key(pem), M1);
    assert.equal(pins.pinnedFingerprint(M1), fingerprint(pem));
    assert.equal(pins.check(key(pem), M1), 'pinned');
    assert.equal(fs.existsSync(path.join(dir, 'masters', 'm1_4506.pub')), true);
  });

  it('pins each master separately: a second master with its own key is its own first contact', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const one = keyPem();
    const two = keyPem();
    const pins = new MasterPins(dir, '');
    pins.confirm(key(one), M1);
    assert.equal(pins.check(key(two), M2), 'unpinned');
    pins.confirm(key(two), M2);
    assert.equal(pins.check(key(one), M1), 'pinned');
    assert.equal(pins.check(key(two), M2), 'pinned');
    assert.throws(
      () => pins.check(key(one), M2),
      (err) => isBrineError(err, 'MASTER_KEY_CHANGED'),
    );
  });

  it('refuses a changed key with both fingerprints and the file to delete', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const first = keyPem();
    const second = keyPem();
    const pins = new MasterPins(dir, '');
    pins.confirm(key(first), M1);
    assert.throws(
      () => pins.check(key(second), M1),
      (err) =>
        isBrineError(err, 'MASTER_KEY_CHANGED') && err.message.includes(fingerprint(first)) && err.message.includes(fingerprint(second)) && err.message.includes(path.join('masters', 'm1_4506.pub')),
    );
    assert.equal(pins.pinnedFingerprint(M1), fingerprint(first), 'the pin is not overwritten');
  });

  it('checks master_finger (one or a list, any spelling) before trusting anything; a listed key is trusted over an older pin', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const pem = keyPem();
    const fp = fingerprint(pem);
    assert.equal(new MasterPins(dir, fp.replace(/:/g, '').toUpperCase()).check(key(pem), M1), 'pinned');
    const other = fs.mkdtempSync(path.join(tmp, 'pin-'));
    assert.throws(
      () => new MasterPins(other, fingerprint(keyPem())).check(key(pem), M1),
      (err) => isBrineError(err, 'MASTER_FINGER_MISMATCH'),
    );
    assert.equal(fs.existsSync(path.join(other, 'masters')), false, 'nothing pinned on a mismatch');
    const old = keyPem();
    const listed = new MasterPins(other, [fingerprint(keyPem()), fp]);
    listed.confirm(key(old), M1);
    assert.equal(listed.check(key(pem), M1), 'pinned');
    listed.confirm(key(pem), M1);
    assert.equal(listed.pinnedFingerprint(M1), fp, 'the listed key replaced the old pin');
  });

  it('migrates the single minion_master.pub to a pin per configured master, then removes it', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'pin-'));
    const pem = keyPem();
    fs.writeFileSync(path.join(dir, 'minion_master.pub'), pem);
    const pins = new MasterPins(dir, '');
    // before the migration (brine doctor reads only) the old pin applies to every master
    assert.equal(pins.pinnedFingerprint(M2), fingerprint(pem));
    pins.migrateLegacy([M1, M2]);
    assert.equal(fs.existsSync(path.join(dir, 'minion_master.pub')), false);
    assert.equal(pins.check(key(pem), M1), 'pinned');
    assert.equal(pins.check(key(pem), M2), 'pinned');
    assert.throws(
      () => pins.check(key(keyPem()), M2),
      (err) => isBrineError(err, 'MASTER_KEY_CHANGED'),
    );
  });

  it('makes a safe file name of any configured address', () => {
    assert.equal(pinFileName({ host: '::1', port: 4506 }), '%3a%3a1_4506.pub');
    assert.equal(pinFileName({ host: '../x', port: 1 }), '..%2fx_1.pub');
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
