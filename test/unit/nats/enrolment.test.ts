// The minion's enrolment file (what it trusts before it knows any master over NATS) and the NATS
// ping settings derived from heartbeat_timeout.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkEnrolment, enrolUserJwt, makeEnrolment, natsPingSettings, NkeySigner, readEnrolment, trustedMasterKeys } from '../../../src/nats/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const signer = (): NkeySigner => NkeySigner.fromKey(generateKeyPairSync('ed25519').privateKey);

function sample() {
  const master = signer();
  const accounts = { brine: signer().publicKey('account'), enrol: signer().publicKey('account'), sys: signer().publicKey('account') };
  const raw = trustedMasterKeys({ v: 1, enrolJwt: '', brineAccount: accounts.brine, masters: [master.publicKey('account')] });
  return makeEnrolment(enrolUserJwt(master, accounts, signer().publicKey('user')), accounts.brine, raw);
}

describe('nats enrolment file', () => {
  it('round-trips through a file and names the trusted masters', () => {
    const e = sample();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-enrol-'));
    try {
      const file = path.join(dir, 'e.json');
      fs.writeFileSync(file, JSON.stringify(e));
      assert.deepEqual(readEnrolment(file), e);
      assert.equal(trustedMasterKeys(e)[0]?.length, 32);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a missing, malformed or incomplete file with NATS_ENROLMENT_INVALID and says what to run', () => {
    const e = sample();
    const bad: unknown[] = [null, [], { ...e, v: 2 }, { ...e, masters: [] }, { ...e, brineAccount: 'Uxyz' }, { ...e, masters: [e.brineAccount.replace(/^A/, 'U')] }, { ...e, enrolJwt: 'a.b.c' }];
    for (const value of bad) {
      assert.throws(
        () => checkEnrolment(value, 'f.json'),
        (err: unknown) => isBrineError(err, 'NATS_ENROLMENT_INVALID') && /brine nats enrolment/.test((err as Error).message),
        JSON.stringify(value),
      );
    }
    assert.throws(
      () => readEnrolment('/nonexistent/enrolment.json'),
      (err: unknown) => isBrineError(err, 'NATS_ENROLMENT_INVALID') && /ENOENT/.test((err as Error).message),
    );
  });
});

describe('NATS pings from heartbeat_timeout', () => {
  it('notices a silent server within heartbeat_timeout, never with the client default of minutes', () => {
    for (const timeoutMs of [1500, 3000, 30_000, 60_000]) {
      const { pingInterval, maxPingOut } = natsPingSettings(timeoutMs);
      // nats.js gives up when maxPingOut pings are out at a check; a check runs every interval
      assert.ok((maxPingOut + 2) * pingInterval <= timeoutMs, `${timeoutMs}: ${pingInterval} x ${maxPingOut}`);
      assert.ok(pingInterval >= timeoutMs / 5, 'not needlessly chatty');
    }
  });
});
