// brine's nkey and JWT code (src/nats, on @nats-io/nkeys and @nats-io/jwt) against the official
// library's KeyPair API, still an independent oracle for signatures (brine signs with node:crypto),
// plus published vectors for the checksum and base32.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as official from '@nats-io/nkeys';
import {
  base32Decode,
  base32Encode,
  crc16,
  decodeJwt,
  decodePublicNkey,
  decodeSeed,
  encodeJwt,
  encodePublicNkey,
  encodeSeed,
  minionUserJwt,
  NkeySigner,
  verifyNkeySignature,
} from '../../../src/nats/index.js';
import { isBrineError } from '../../../src/util/errors.js';

describe('nkeys', () => {
  it('CRC16 is XMODEM (the published check value of "123456789" is 0x31C3)', () => {
    assert.equal(crc16(Buffer.from('123456789')), 0x31c3);
    assert.equal(crc16(Buffer.alloc(0)), 0);
  });

  it('base32 matches RFC 4648 vectors without padding and round-trips', () => {
    assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
    assert.equal(base32Encode(Buffer.from('f')), 'MY');
    for (let n = 0; n < 40; n++) {
      const b = randomBytes(n);
      assert.deepEqual(base32Decode(base32Encode(b)), b);
    }
  });

  it('a seed gives the same public nkeys and seed text as the official library, in every role', () => {
    for (let i = 0; i < 20; i++) {
      const raw = randomBytes(32);
      const signer = NkeySigner.fromSeed(raw);
      for (const [role, letter] of [
        ['user', 'U'],
        ['account', 'A'],
        ['operator', 'O'],
      ] as const) {
        const seed = encodeSeed(role, raw);
        assert.equal(seed.slice(0, 2), `S${letter}`);
        const kp = official.fromSeed(Buffer.from(seed));
        assert.equal(signer.publicKey(role), kp.getPublicKey());
        assert.equal(encodePublicNkey(role, signer.raw), kp.getPublicKey());
        assert.deepEqual(decodeSeed(seed), { role, seed: raw });
        assert.deepEqual(decodePublicNkey(kp.getPublicKey()), { role, raw: signer.raw });
        const data = randomBytes(50);
        assert.ok(kp.verify(data, signer.sign(data)), 'the official library verifies our signature');
        assert.ok(verifyNkeySignature(kp.getPublicKey(), data, kp.sign(data)), 'we verify the official signature');
      }
    }
  });

  it('the official library reads a seed we export from a brine key (the seed is the PKCS#8 private key)', () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    const signer = NkeySigner.fromKey(key);
    const kp = official.fromSeed(Buffer.from(encodeSeed('user', signer.seed())));
    assert.equal(kp.getPublicKey(), signer.publicKey('user'));
  });

  it('a changed character fails the checksum with NATS_KEY_INVALID', () => {
    const pub = NkeySigner.fromSeed(randomBytes(32)).publicKey('user');
    const flipped = `${pub.slice(0, 10)}${pub[10] === 'A' ? 'B' : 'A'}${pub.slice(11)}`;
    assert.throws(
      () => decodePublicNkey(flipped),
      (e) => isBrineError(e, 'NATS_KEY_INVALID') && /checksum/.test(e.message),
    );
    assert.throws(
      () => decodePublicNkey('not-base32!'),
      (e) => isBrineError(e, 'NATS_KEY_INVALID'),
    );
    assert.throws(
      () => decodeSeed(pub),
      (e) => isBrineError(e, 'NATS_KEY_INVALID'),
    );
  });

  it('an EC P-256 brine key cannot be an nkey: NATS_KEY_UNSUPPORTED', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    assert.throws(
      () => NkeySigner.fromKey(ec),
      (e) => isBrineError(e, 'NATS_KEY_UNSUPPORTED'),
    );
  });
});

describe('NATS JWTs', () => {
  const master = NkeySigner.fromSeed(randomBytes(32));
  const minion = NkeySigner.fromSeed(randomBytes(32));
  const accounts = { brine: NkeySigner.fromSeed(randomBytes(32)).publicKey('account'), enrol: 'A', sys: 'A' };

  it('a minion JWT verifies with the official library and carries its own subjects', () => {
    const jwt = minionUserJwt(master, accounts, 'web1.example.com', minion.raw, { iat: 1_700_000_000 });
    const [h, c, s] = jwt.split('.') as [string, string, string];
    assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url').toString()), { typ: 'JWT', alg: 'ed25519-nkey' });
    const kp = official.fromPublic(master.publicKey('account'));
    assert.ok(kp.verify(Buffer.from(`${h}.${c}`), Buffer.from(s, 'base64url')));
    const claims = decodeJwt(jwt);
    assert.equal(claims.sub, minion.publicKey('user'));
    assert.equal(claims.iss, master.publicKey('account'));
    assert.equal(claims.iat, 1_700_000_000);
    assert.equal(claims.name, 'web1.example.com');
    assert.deepEqual(claims.nats, {
      type: 'user',
      version: 2,
      subs: -1,
      data: -1,
      payload: -1,
      issuer_account: accounts.brine,
      pub: { allow: ['brine.ret.web1~example~com.>', 'brine.evt.web1~example~com.>', 'brine.req.web1~example~com.>', 'brine.hb.web1~example~com'] },
      sub: { allow: ['brine.job.web1~example~com', 'brine.inbox.web1~example~com.>'] },
    });
    assert.match(claims.jti ?? '', /^[A-Z2-7]{52}$/);
  });

  it('a JWT whose claims or signature were changed does not verify: NATS_JWT_INVALID', () => {
    const jwt = minionUserJwt(master, accounts, 'web1', minion.raw);
    const [h, c, s] = jwt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
    claims.nats.sub.allow = ['>'];
    const widened = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    assert.throws(
      () => decodeJwt(widened),
      (e) => isBrineError(e, 'NATS_JWT_INVALID') && /signature/.test(e.message),
    );
    const otherSig = minion.sign(Buffer.from(`${h}.${c}`)).toString('base64url');
    assert.throws(
      () => decodeJwt(`${h}.${c}.${otherSig}`),
      (e) => isBrineError(e, 'NATS_JWT_INVALID'),
    );
    assert.throws(
      () => decodeJwt('a.b'),
      (e) => isBrineError(e, 'NATS_JWT_INVALID'),
    );
  });

  it('refuses to sign claims whose issuer is not the signer', () => {
    assert.throws(
      () => encodeJwt({ iat: 1, iss: master.publicKey('account'), sub: minion.publicKey('user'), name: 'x', nats: { type: 'user', version: 2, subs: -1, data: -1, payload: -1 } }, minion),
      (e) => isBrineError(e, 'NATS_KEY_INVALID'),
    );
  });

  it('minion IDs with dots become one subject token; an invalid ID is INVALID_ID', () => {
    assert.throws(
      () => minionUserJwt(master, accounts, 'a>b', minion.raw),
      (e) => isBrineError(e, 'INVALID_ID'),
    );
    assert.throws(
      () => minionUserJwt(master, accounts, 'a*', minion.raw),
      (e) => isBrineError(e, 'INVALID_ID'),
    );
    assert.throws(
      () => minionUserJwt(master, accounts, 'a b', minion.raw),
      (e) => isBrineError(e, 'INVALID_ID'),
    );
  });
});
