// The fast copies of returns a master takes on core NATS (brine.evt.<m>.ret) are bounded by the
// minion's message rate (minion_msg_rate/minion_msg_burst), per session: a flooding minion costs
// the master a token bucket, not a parse and a job-cache lookup per message.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/util/clock.js';
import { NatsSessionChannel } from '../../../src/nats/index.js';
import type { SessionChannelHost } from '../../../src/nats/session-channel.js';

const hub: SessionChannelHost = { forget() {}, sendTo: () => true };

describe('fast return copies at the message rate', () => {
  it('takes a burst, then the rate, per session; a session of its own starts full', () => {
    const clock = new FakeClock();
    const rate = { ratePerSecond: 2, burst: 3 };
    const a = new NatsSessionChannel(hub, 'a', { pem: '', fingerprint: 'fa' });
    const taken = [1, 2, 3, 4].map(() => a.takeFast(rate, clock));
    assert.deepEqual(taken, [true, true, true, false]);
    clock.advance(500);
    assert.equal(a.takeFast(rate, clock), true, 'one token after half a second at 2/s');
    assert.equal(a.takeFast(rate, clock), false);
    const b = new NatsSessionChannel(hub, 'b', { pem: '', fingerprint: 'fb' });
    assert.equal(b.takeFast(rate, clock), true, "another minion's flood does not spend b's budget");
  });

  it('no rate set (or 0) takes every copy', () => {
    const clock = new FakeClock();
    const a = new NatsSessionChannel(hub, 'a', { pem: '', fingerprint: 'fa' });
    for (let i = 0; i < 100; i++) assert.equal(a.takeFast(undefined, clock), true);
    for (let i = 0; i < 100; i++) assert.equal(a.takeFast({ ratePerSecond: 0, burst: 0 }, clock), true);
  });
});
