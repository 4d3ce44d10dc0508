// Which user nkeys a change of accepted keys revokes (src/nats/revocation-sync.ts), and the check
// that decides whether a revocation is still missing from an account. Issue 13.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { missingRevocations, NkeySigner, revocationsForKeyChanges, userNkeyOfPem } from '../../../src/nats/index.js';
import type { AccountNats, Claims } from '../../../src/nats/jwt.js';
import { isBrineError } from '../../../src/util/errors.js';

function ed(): { pem: string; user: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { pem: publicKey.export({ type: 'spki', format: 'pem' }) as string, user: NkeySigner.fromKey(privateKey).publicKey('user') };
}
const ecPem = (): string => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('revocationsForKeyChanges', () => {
  it('revokes deleted, rejected and replaced keys, and nothing for unchanged or new ones', () => {
    const [kept, gone, old, fresh, added] = [ed(), ed(), ed(), ed(), ed()];
    const plan = revocationsForKeyChanges(
      new Map([
        ['kept', kept.pem],
        ['gone', gone.pem],
        ['swapped', old.pem],
      ]),
      { kept: `${kept.pem}\n`, swapped: fresh.pem, added: added.pem },
    );
    assert.deepEqual(plan.revoke.sort(), [gone.user, old.user].sort());
    assert.deepEqual(plan.skipped, []);
  });

  it('skips an EC P-256 key with NATS_KEY_UNSUPPORTED and a warning', () => {
    const warnings: unknown[] = [];
    const logger = { warn: (obj: unknown) => warnings.push(obj) } as never;
    const plan = revocationsForKeyChanges({ ec1: ecPem(), ed1: ed().pem }, {}, logger);
    assert.equal(plan.revoke.length, 1);
    assert.deepEqual(
      plan.skipped.map((s) => [s.id, s.code]),
      [['ec1', 'NATS_KEY_UNSUPPORTED']],
    );
    assert.deepEqual(warnings, [{ code: 'NATS_KEY_UNSUPPORTED', id: 'ec1' }]);
  });

  it('userNkeyOfPem spells the key as the minion’s own signer does', () => {
    const k = ed();
    assert.equal(userNkeyOfPem(k.pem), k.user);
    assert.throws(
      () => userNkeyOfPem(ecPem()),
      (err: unknown) => isBrineError(err, 'NATS_KEY_UNSUPPORTED'),
    );
  });
});

describe('missingRevocations', () => {
  it('counts a revocation older than ours as missing (a key revoked before, accepted again since)', () => {
    const claims = { iat: 100, iss: 'O', sub: 'A', name: 'BRINE', nats: { type: 'account', version: 2, limits: {}, revocations: { U1: 100, U2: 50 } } } as unknown as Claims<AccountNats>;
    assert.deepEqual(missingRevocations(claims, ['U1', 'U2', 'U3'], 100), ['U2', 'U3']);
  });
});
