// What a NATS minion does with a sign-in answer (src/nats/signin-verdict.ts; threats.md #42):
// busy and full are waits, a refusal before any master accepted this minion is untrusted (never
// the end), and only a refusal after acceptance may end it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { judgeSigninAnswer } from '../../../src/nats/index.js';

const before = { id: 'web1', everAccepted: false, rejectedRetry: false };
const after = { ...before, everAccepted: true };

describe('judgeSigninAnswer', () => {
  it('busy waits the retryAfter the master gave; full and pending wait for acceptance, with the reason', () => {
    assert.deepEqual(judgeSigninAnswer({ status: 'busy', retryAfter: 3, message: 'over auth_rate_per_source' }, before), {
      kind: 'wait',
      wait: { ms: 3000 },
      level: 'info',
      code: 'AUTH_BUSY',
      message: 'the masters are busy with sign-ins (over auth_rate_per_source)',
    });
    const full = judgeSigninAnswer({ status: 'full', code: 'AUTH_PENDING_LIMIT', message: '3 keys from 127.0.0.2 are already pending' }, after);
    assert.equal(full.kind, 'wait');
    assert.equal(full.kind === 'wait' && full.wait, 'acceptance');
    assert.equal(full.kind === 'wait' && full.code, 'AUTH_PENDING_LIMIT');
    assert.match(full.kind === 'wait' ? full.message : '', /127\.0\.0\.2/);
    assert.equal(judgeSigninAnswer({ status: 'pending' }, before).kind, 'wait');
    assert.equal(judgeSigninAnswer({ status: 'error', code: 'MESSAGE_INVALID' }, before).kind, 'wait');
  });

  it('a refusal before any master accepted this minion is untrusted, with what to check; after, it ends the minion unless rejected_retry', () => {
    for (const status of ['rejected', 'denied', 'invalid_id'] as const) {
      const v = judgeSigninAnswer({ status }, before);
      assert.equal(v.kind, 'untrusted', status);
      assert.match(v.kind === 'untrusted' ? v.error.message : '', /brine key -f web1/);
    }
    const denied = judgeSigninAnswer({ status: 'denied' }, after);
    assert.equal(denied.kind, 'refused');
    assert.equal(denied.kind === 'refused' && denied.error.code, 'AUTH_DENIED');
    assert.equal(denied.kind === 'refused' && denied.retry, false);
    const retried = judgeSigninAnswer({ status: 'rejected' }, { ...after, rejectedRetry: true });
    assert.equal(retried.kind === 'refused' && retried.retry, true);
    assert.equal(judgeSigninAnswer({ status: 'invalid_id' }, { ...after, rejectedRetry: true }).kind === 'refused', true);
  });
});
