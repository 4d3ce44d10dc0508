// waitForJetStream (src/nats/jetstream-wait.ts) on a fake clock: a master's start-up waits
// while the NATS cluster has no JetStream leader, with a coded warning repeated at most every
// warnEveryMs, and gives up only for failures that waiting cannot cure. Issue 21 point 11.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitForJetStream } from '../../../src/nats/jetstream-wait.js';
import { FakeClock } from '../../../src/util/clock.js';
import { isBrineError } from '../../../src/util/errors.js';
import { createLogger } from '../../../src/util/logger.js';

function capture() {
  const lines: Array<{ level: number; msg: string; code?: string }> = [];
  const logger = createLogger({ name: 'test', level: 'debug', format: 'json', write: (l) => lines.push(JSON.parse(l)) });
  return { lines, logger };
}

const tick = () => new Promise((r) => setImmediate(r));

/** Lets the pending attempt settle, then moves the fake clock past the next retry. */
async function step(clock: FakeClock, ms: number): Promise<void> {
  await tick();
  await tick();
  clock.advance(ms);
  await tick();
}

const BACKOFF = { baseMs: 1000, maxMs: 1000, randomize: false };

describe('waitForJetStream', () => {
  it('retries while there is no JetStream leader, warns with NATS_UNAVAILABLE at most every warnEveryMs, and returns once JetStream answers', async () => {
    const clock = new FakeClock();
    const { lines, logger } = capture();
    let calls = 0;
    const result = waitForJetStream(
      'make or find the JetStream stream BRINE',
      async () => {
        calls++;
        if (calls < 12) throw new Error('TimeoutError: timeout');
        return 'ready';
      },
      { clock, logger, stopped: () => false, backoff: BACKOFF, warnEveryMs: 5000 },
    );
    for (let i = 0; i < 11; i++) await step(clock, 1000);
    assert.equal(await result, 'ready');
    assert.equal(calls, 12);
    const warnings = lines.filter((l) => l.code === 'NATS_UNAVAILABLE');
    // at 0, 5 and 10 s of an 11 s wait
    assert.equal(warnings.length, 3, JSON.stringify(warnings));
    assert.match(warnings[0]!.msg, /cannot make or find the JetStream stream BRINE yet: no JetStream leader yet \(TimeoutError: timeout\); .*majority of the NATS servers.*\/jsz/);
    assert.ok(lines.some((l) => /JetStream answers now/.test(l.msg)));
  });

  it('gives up at once with NATS_UNAVAILABLE when JetStream is not enabled for the account', async () => {
    const clock = new FakeClock();
    const { logger } = capture();
    await assert.rejects(
      waitForJetStream(
        'make or find the JetStream stream BRINE',
        async () => {
          throw new Error('JetStream not enabled for account');
        },
        { clock, logger, stopped: () => false },
      ),
      (err: unknown) => isBrineError(err) && err.code === 'NATS_UNAVAILABLE' && /brine nats server-config/.test(err.message),
    );
  });

  it('ends with NATS_UNAVAILABLE when the caller stops while waiting', async () => {
    const clock = new FakeClock();
    const { logger } = capture();
    let stopped = false;
    const result = waitForJetStream(
      'make or find the JetStream stream BRINE',
      async () => {
        throw new Error('timeout');
      },
      { clock, logger, stopped: () => stopped, backoff: BACKOFF },
    );
    const refused = assert.rejects(result, (err: unknown) => isBrineError(err) && err.code === 'NATS_UNAVAILABLE' && /stopped while waiting/.test(err.message));
    await step(clock, 1000);
    stopped = true;
    await step(clock, 1000);
    await refused;
  });
});
