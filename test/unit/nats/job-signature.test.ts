// Jobs signed by a master on NATS (src/nats/job-signature.ts, src/nats/job-gate.ts; threats.md
// #41): what verifies, what is refused and why, and the gate's replay memory and log budget,
// with a fake clock.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  JOB_CLOCK_SKEW_MS,
  JOB_HEADERS,
  JOB_SIGNATURE_TTL_MS,
  type JobSignature,
  LOG_EVERY_MS,
  NkeySigner,
  payloadDigest,
  readJobSignature,
  requesterAddress,
  SignedJobGate,
  signJob,
  verifyJob,
} from '../../../src/nats/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

const master = NkeySigner.fromSeed(randomBytes(32));
const stranger = NkeySigner.fromSeed(randomBytes(32));
const trusted = new Set([master.publicKey('account')]);
const NOW = 1_800_000_000_000;
const payload = Buffer.from(JSON.stringify({ t: 'job', jid: '20270115080000000001', fun: 'cmd.run', arg: ['id'], kwarg: {}, tgt: 'web1', tgtType: 'glob' }));

const fields = (sig: JobSignature) => ({ master: sig.master, issued: String(sig.issuedMs), expires: String(sig.expiresMs), sig: sig.sig });
const headerOf = (sig: JobSignature) => (name: string) => {
  const f = fields(sig);
  return name === JOB_HEADERS.master ? f.master : name === JOB_HEADERS.issued ? f.issued : name === JOB_HEADERS.expires ? f.expires : name === JOB_HEADERS.sig ? f.sig : '';
};

describe('job signature', () => {
  it('a job signed for this minion by a trusted master verifies; unsigned, foreign, altered or for another minion does not', () => {
    const sig = signJob(master, 'web1', payloadDigest(payload), NOW);
    assert.equal(sig.expiresMs - sig.issuedMs, JOB_SIGNATURE_TTL_MS);
    assert.deepEqual(verifyJob(fields(sig), payload, 'web1', trusted, NOW + 1000), { ok: true, master: master.publicKey('account'), expiresMs: sig.expiresMs });
    assert.deepEqual(verifyJob(undefined, payload, 'web1', trusted, NOW), { ok: false, reason: 'unsigned' });
    assert.equal(
      verifyJob(
        readJobSignature(() => ''),
        payload,
        'web1',
        trusted,
        NOW,
      ).ok,
      false,
    );
    const foreign = signJob(stranger, 'web1', payloadDigest(payload), NOW);
    assert.equal((verifyJob(fields(foreign), payload, 'web1', trusted, NOW) as { reason: string }).reason, 'untrusted_master');
    // the foreign key claiming to be the master: its signature does not verify for the master's key
    assert.equal((verifyJob({ ...fields(foreign), master: master.publicKey('account') }, payload, 'web1', trusted, NOW) as { reason: string }).reason, 'bad_signature');
    const altered = Buffer.from(payload.toString().replace('"id"', '"rm -rf /"'));
    assert.equal((verifyJob(fields(sig), altered, 'web1', trusted, NOW) as { reason: string }).reason, 'bad_signature');
    assert.equal((verifyJob(fields(sig), payload, 'web2', trusted, NOW) as { reason: string }).reason, 'bad_signature');
    assert.equal((verifyJob({ ...fields(sig), expires: String(sig.expiresMs + 1) }, payload, 'web1', trusted, NOW) as { reason: string }).reason, 'bad_signature');
    assert.equal((verifyJob({ ...fields(sig), issued: 'soon' }, payload, 'web1', trusted, NOW) as { reason: string }).reason, 'malformed');
  });

  it('a job is refused once its lifetime (plus the clock skew) is over, or when issued too far in the future', () => {
    const sig = signJob(master, 'web1', payloadDigest(payload), NOW);
    assert.equal(verifyJob(fields(sig), payload, 'web1', trusted, sig.expiresMs + JOB_CLOCK_SKEW_MS).ok, true);
    assert.equal((verifyJob(fields(sig), payload, 'web1', trusted, sig.expiresMs + JOB_CLOCK_SKEW_MS + 1) as { reason: string }).reason, 'expired');
    assert.equal((verifyJob(fields(sig), payload, 'web1', trusted, NOW - JOB_CLOCK_SKEW_MS - 1) as { reason: string }).reason, 'not_yet_valid');
  });
});

describe('SignedJobGate', () => {
  const setup = () => {
    const clock = new FakeClock(NOW);
    const lines: string[] = [];
    const logger = createLogger({ name: 'test', level: 'info', format: 'json', write: (l) => lines.push(l) });
    return { clock, lines, gate: new SignedJobGate('web1', [master.publicKey('account')], clock, logger) };
  };

  it('drops forged jobs with a counter per reason and one log line per source a minute', () => {
    const { clock, lines, gate } = setup();
    for (let i = 0; i < 50; i++) assert.equal(gate.check(() => '', payload).ok, false);
    for (let i = 0; i < 50; i++) assert.equal(gate.check(headerOf(signJob(stranger, 'web1', payloadDigest(payload), NOW)), payload).ok, false);
    assert.equal(gate.refused.unsigned, 50);
    assert.equal(gate.refused.untrusted_master, 50);
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.match(lines[0]!, /JOB_SIGNATURE_INVALID/);
    assert.match(lines[0]!, /no master signature/);
    clock.advance(LOG_EVERY_MS);
    gate.check(() => '', payload);
    assert.equal(lines.length, 3);
    assert.match(lines[2]!, /49 more from this source dropped/);
  });

  it('runs a signed jid once while its signature is valid', () => {
    const { clock, gate } = setup();
    const sig = signJob(master, 'web1', payloadDigest(payload), NOW);
    const v = gate.check(headerOf(sig), payload);
    assert.ok(v.ok);
    assert.equal(gate.firstRun('20270115080000000001', v.master, v.expiresMs), true);
    assert.equal(gate.firstRun('20270115080000000001', v.master, v.expiresMs), false);
    assert.equal(gate.refused.replayed, 1);
    // long after, the signature itself has expired: the memory may forget the jid
    clock.advance(JOB_SIGNATURE_TTL_MS + 2 * JOB_CLOCK_SKEW_MS);
    assert.equal(gate.check(headerOf(sig), payload).ok, false);
    assert.equal(gate.refused.expired, 1);
  });
});

describe('requesterAddress', () => {
  it("takes the client's host from the server's Nats-Request-Info, and nothing else", () => {
    assert.equal(requesterAddress(JSON.stringify({ host: '127.0.0.2', id: 10, acc: 'A' })), '127.0.0.2');
    assert.equal(requesterAddress(JSON.stringify({ host: '::1' })), '::1');
    assert.equal(requesterAddress(JSON.stringify({ host: 'nats' })), undefined);
    assert.equal(requesterAddress(JSON.stringify({ host: '1234' })), undefined);
    assert.equal(requesterAddress('not json'), undefined);
    assert.equal(requesterAddress(undefined), undefined);
  });
});
