// The minion's ID sources (config, cache, host names with Salt's localhost filter) and the
// master key pin (master_finger, pin on first contact, refuse a changed key).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { resolveMinionId, MasterPin, parseMasterEndpoint, type IdSources } from '../../../src/minion/index.js';
import { fingerprint } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-id-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function sources(hostname: string, files: Record<string, string> = {}): IdSources {
  return { hostname: () => hostname, readFile: (f) => files[f] };
}

describe('resolveMinionId', () => {
  it('uses the configured id as is, without caching', () => {
    const cacheFile = path.join(tmp, 'a', 'minion_id');
    const r = resolveMinionId({ configuredId: 'Web1', cacheFile, caching: true, lowercase: true, sources: sources('host') });
    assert.deepEqual(r, { id: 'Web1', source: 'config' });
    assert.equal(fs.existsSync(cacheFile), false);
  });

  it('prefers the cached id (first line, BOM stripped) and ignores a cached "localhost"', () => {
    const cacheFile = path.join(tmp, 'minion_id');
    const withCache = sources('host', { [cacheFile]: '\uFEFFcached-id  \nsecond line\n' });
    assert.deepEqual(resolveMinionId({ configuredId: '', cacheFile, caching: true, lowercase: false, sources: withCache }), { id: 'cached-id', source: 'cache' });
    const localhost = sources('realhost', { [cacheFile]: 'localhost\n' });
    assert.equal(resolveMinionId({ configuredId: '', cacheFile: path.join(tmp, 'b', 'minion_id'), caching: true, lowercase: false, sources: localhost }).id, 'realhost');
  });

  it('filters localhost-like host names and falls back to /etc/hostname, then "localhost"', () => {
    const cacheFile = path.join(tmp, 'c', 'minion_id');
    const r = resolveMinionId({ configuredId: '', cacheFile, caching: false, lowercase: false, sources: sources('localhost.localdomain', { '/etc/hostname': 'box7\n' }) });
    assert.deepEqual(r, { id: 'box7', source: 'etc_hostname' });
    const none = resolveMinionId({ configuredId: '', cacheFile, caching: false, lowercase: false, sources: sources('localhost', {}) });
    assert.deepEqual(none, { id: 'localhost', source: 'fallback' });
  });

  it('caches a generated id and lower-cases it when asked', () => {
    const cacheFile = path.join(tmp, 'd', 'minion_id');
    const r = resolveMinionId({ configuredId: '', cacheFile, caching: true, lowercase: true, sources: sources('MyHost.Example.COM') });
    assert.equal(r.id, 'myhost.example.com');
    assert.equal(r.source, 'fqdn');
    assert.equal(fs.readFileSync(cacheFile, 'utf8'), 'myhost.example.com\n');
  });
});

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
