// The sign-in request and answer over NATS (src/nats/signin.ts): what a master accepts as proof
// that a minion holds the key it names, and what a minion accepts as its credentials.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { checkSigninAnswer, minionUserJwt, NkeySigner, SIGNIN_MAX_SKEW_MS, signinRequest, verifySigninRequest } from '../../../src/nats/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const minion = NkeySigner.fromSeed(randomBytes(32));
const attacker = NkeySigner.fromSeed(randomBytes(32));
const master = NkeySigner.fromSeed(randomBytes(32));
const accounts = { brine: NkeySigner.fromSeed(randomBytes(32)).publicKey('account'), enrol: 'A', sys: 'A' };
const NOW = 1_800_000_000_000;

const rewrite = (data: Uint8Array, change: (r: Record<string, unknown>) => void): Uint8Array => {
  const r = JSON.parse(Buffer.from(data).toString()) as Record<string, unknown>;
  change(r);
  return Buffer.from(JSON.stringify(r));
};

describe('sign-in request', () => {
  it('a request signed by the key it names verifies, and gives the key as the key store keeps it', () => {
    const v = verifySigninRequest(signinRequest('web1.example.com', minion, NOW), NOW + 1000);
    assert.equal(v.id, 'web1.example.com');
    assert.equal(v.userKey, minion.publicKey('user'));
    assert.deepEqual(v.raw, minion.raw);
    assert.match(v.publicKeyPem, /^-----BEGIN PUBLIC KEY-----/);
  });

  it("refuses a request naming someone else's key (signed by another), or another ID than signed", () => {
    const forged = rewrite(signinRequest('web1', attacker, NOW), (r) => {
      r.key = minion.publicKey('user');
    });
    assert.throws(
      () => verifySigninRequest(forged, NOW),
      (e) => isBrineError(e, 'MESSAGE_INVALID') && /signature/.test(e.message),
    );
    const renamed = rewrite(signinRequest('web1', minion, NOW), (r) => {
      r.id = 'web2';
    });
    assert.throws(
      () => verifySigninRequest(renamed, NOW),
      (e) => isBrineError(e, 'MESSAGE_INVALID') && /signature/.test(e.message),
    );
  });

  it('refuses a replay outside the time window, bad IDs, wrong versions, non-user keys and oversize requests', () => {
    assert.throws(
      () => verifySigninRequest(signinRequest('web1', minion, NOW), NOW + SIGNIN_MAX_SKEW_MS + 1),
      (e) => isBrineError(e, 'MESSAGE_INVALID') && /5 minutes/.test(e.message),
    );
    assert.throws(
      () => verifySigninRequest(signinRequest('../etc', minion, NOW), NOW),
      (e) => isBrineError(e, 'INVALID_ID'),
    );
    assert.throws(
      () => verifySigninRequest(signinRequest('localhost', minion, NOW), NOW),
      (e) => isBrineError(e, 'INVALID_ID'),
    );
    const v2 = rewrite(signinRequest('web1', minion, NOW), (r) => {
      r.v = 2;
    });
    assert.throws(
      () => verifySigninRequest(v2, NOW),
      (e) => isBrineError(e, 'MESSAGE_INVALID') && /version/.test(e.message),
    );
    const account = rewrite(signinRequest('web1', minion, NOW), (r) => {
      r.key = minion.publicKey('account');
    });
    assert.throws(
      () => verifySigninRequest(account, NOW),
      (e) => isBrineError(e, 'MESSAGE_INVALID') && /user nkey/.test(e.message),
    );
    assert.throws(
      () => verifySigninRequest(Buffer.alloc(4096, 0x20), NOW),
      (e) => isBrineError(e, 'MESSAGE_INVALID') && /at most/.test(e.message),
    );
    for (const junk of ['', 'null', '[]', '{"v":1}', '{"v":1,"id":"a","key":"U","ts":"1","sig":"x"}']) {
      assert.throws(
        () => verifySigninRequest(Buffer.from(junk), NOW),
        (e) => isBrineError(e, 'MESSAGE_INVALID'),
        junk,
      );
    }
  });
});

describe('sign-in answer', () => {
  const answer = (jwt: string): Uint8Array => Buffer.from(JSON.stringify({ status: 'accepted', jwt }));

  it('accepts a JWT for this key and ID issued by a trusted master', () => {
    const a = checkSigninAnswer(answer(minionUserJwt(master, accounts, 'web1', minion.raw)), 'web1', minion, accounts, [master.raw]);
    assert.equal(a.status, 'accepted');
  });

  it('passes other statuses through', () => {
    assert.deepEqual(checkSigninAnswer(Buffer.from('{"status":"pending"}'), 'web1', minion, accounts, [master.raw]), { status: 'pending' });
  });

  it('refuses a JWT from an untrusted issuer, or for another key, ID or account', () => {
    assert.throws(
      () => checkSigninAnswer(answer(minionUserJwt(attacker, accounts, 'web1', minion.raw)), 'web1', minion, accounts, [master.raw]),
      (e) => isBrineError(e, 'MASTER_KEY_CHANGED'),
    );
    assert.throws(
      () => checkSigninAnswer(answer(minionUserJwt(master, accounts, 'web1', attacker.raw)), 'web1', minion, accounts, [master.raw]),
      (e) => isBrineError(e, 'NATS_JWT_INVALID'),
    );
    assert.throws(
      () => checkSigninAnswer(answer(minionUserJwt(master, accounts, 'web2', minion.raw)), 'web1', minion, accounts, [master.raw]),
      (e) => isBrineError(e, 'NATS_JWT_INVALID'),
    );
    const other = { ...accounts, brine: NkeySigner.fromSeed(randomBytes(32)).publicKey('account') };
    assert.throws(
      () => checkSigninAnswer(answer(minionUserJwt(master, other, 'web1', minion.raw)), 'web1', minion, accounts, [master.raw]),
      (e) => isBrineError(e, 'NATS_JWT_INVALID'),
    );
    assert.throws(
      () => checkSigninAnswer(Buffer.from('{"status":"accepted"}'), 'web1', minion, accounts, [master.raw]),
      (e) => isBrineError(e, 'MESSAGE_INVALID'),
    );
  });
});
