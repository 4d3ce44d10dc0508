// Pre-auth refusals are logged in summary (issue 8 point 4), the per-source sign-in rate
// (point 2, threats.md #25) and the per-session message rate (point 3, threats.md #26), all on
// a fake clock.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/util/clock.js';
import type { Logger } from '../../../src/util/logger.js';
import { AuthAdmission } from '../../../src/master/admission.js';
import { MessageRateLimiter } from '../../../src/master/message-rate.js';
import { RefusalLog } from '../../../src/master/refusal-log.js';

function recordingLogger(): { logger: Logger; lines: Array<{ fields: Record<string, unknown>; msg: string }> } {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const logger = { warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }) } as unknown as Logger;
  return { logger, lines };
}

test('a flood of 5000 refusals from one address is a handful of lines that name it, with counts per reason', () => {
  const clock = new FakeClock();
  const { logger, lines } = recordingLogger();
  const log = new RefusalLog(logger, clock, { intervalMs: 60_000, fullLinesPerSource: 3 });
  let full = 0;
  for (let i = 0; i < 5000; i++) log.note('192.0.2.7', i % 2 ? 'busy' : 'handshake_timeout', () => full++);
  assert.equal(full, 3);
  // summaries at 10, 100 and 1000 counted refusals
  assert.deepEqual(
    lines.map((l) => l.fields.refused),
    [10, 100, 1000],
  );
  clock.advance(60_000);
  assert.equal(lines.length, 4, 'one more summary when the interval ends');
  const last = lines.at(-1)!;
  assert.match(last.msg, /^refused 4997 more connection attempts from 192\.0\.2\.7 before authentication in the last 60 s \(busy 2499, handshake_timeout 2498\)/);
  assert.equal(last.fields.source, '192.0.2.7');
  // a new interval: full lines again, and nothing to report for a quiet interval
  log.note('192.0.2.7', 'busy', () => full++);
  assert.equal(full, 4);
  clock.advance(60_000);
  assert.equal(lines.length, 4);
  log.stop();
});

test("a noisy reason does not hide a rare one: the first refusal of each reason gets its line past the address's budget", () => {
  const clock = new FakeClock();
  const { logger } = recordingLogger();
  const log = new RefusalLog(logger, clock, { intervalMs: 60_000, fullLinesPerSource: 3 });
  const full: string[] = [];
  // pending minions behind one address retrying use up its budget
  for (let i = 0; i < 50; i++) log.note('192.0.2.9', 'KEY_PENDING', () => full.push('KEY_PENDING'));
  assert.deepEqual(full, ['KEY_PENDING', 'KEY_PENDING', 'KEY_PENDING']);
  // then a second machine presents an accepted ID from the same address: logged in full, once
  log.note('192.0.2.9', 'KEY_MISMATCH', () => full.push('KEY_MISMATCH'));
  log.note('192.0.2.9', 'KEY_MISMATCH', () => full.push('KEY_MISMATCH'));
  assert.deepEqual(full.slice(3), ['KEY_MISMATCH']);
  log.stop();
});

test('a spray of addresses is bounded too: full lines in total, the rest counted as other addresses', () => {
  const clock = new FakeClock();
  const { logger, lines } = recordingLogger();
  const log = new RefusalLog(logger, clock, { fullLinesPerSource: 5, fullLinesTotal: 10, maxSources: 50 });
  let full = 0;
  for (let i = 0; i < 1000; i++) log.note(`198.51.100.${i % 250}`, 'tls_error', () => full++);
  assert.equal(full, 10);
  log.stop();
  assert.ok(lines.length <= 50 + 5, `${lines.length} summary lines`);
  assert.ok(lines.some((l) => l.fields.source === 'other addresses'));
});

test('one source over auth_rate_per_source is turned away without spending the global rate', () => {
  const clock = new FakeClock();
  const a = new AuthAdmission(clock, 40, () => 0, 10);
  let flooder = 0;
  for (let i = 0; i < 1000; i++) if (a.tryAdmit('192.0.2.66')) flooder++;
  assert.equal(flooder, 10);
  assert.equal(a.admit('192.0.2.66'), 'source');
  let others = 0;
  for (let i = 0; i < 30; i++) if (a.tryAdmit(`10.0.0.${i}`)) others++;
  assert.equal(others, 30, 'the other 30 of auth_rate are still there');
  assert.equal(a.admit('10.0.0.99'), 'global');
  // malformed hellos charge the source: after a second of refill it is still over
  clock.advance(1000);
  for (let i = 0; i < 20; i++) a.charge('192.0.2.66');
  assert.equal(a.admit('192.0.2.66'), 'source');
  assert.ok(a.sourceRetryAfterSeconds('192.0.2.66') >= 1.5, 'told to wait until it has a token again');
});

test('message rate: the grace is counted from the first drop, wherever in a second it falls', () => {
  for (const offset of [0, 1, 500, 999]) {
    const clock = new FakeClock();
    clock.advance(offset);
    const limiter = new MessageRateLimiter(clock, { ratePerSecond: 100, burst: 200, graceSeconds: 2 });
    for (let i = 0; i < 200; i++) limiter.check();
    assert.equal(limiter.check(), 'drop');
    const firstDrop = clock.monotonic();
    let disconnectAt: number | undefined;
    for (let ms = 0; ms < 4000 && disconnectAt === undefined; ms += 10) {
      clock.advance(10);
      for (let i = 0; i < 10; i++) if (limiter.check() === 'disconnect') disconnectAt ??= clock.monotonic();
    }
    assert.ok(disconnectAt !== undefined, `offset ${offset}: disconnected`);
    assert.ok(disconnectAt - firstDrop >= 2000 && disconnectAt - firstDrop <= 2010, `offset ${offset}: after ${disconnectAt - firstDrop} ms over the limit`);
  }
});

test('message rate: a burst passes, a sustained excess is dropped, then disconnected after the grace seconds', () => {
  const clock = new FakeClock();
  const limiter = new MessageRateLimiter(clock, { ratePerSecond: 100, burst: 200, graceSeconds: 2 });
  for (let i = 0; i < 200; i++) assert.equal(limiter.check(), 'ok');
  assert.equal(limiter.check(), 'drop');
  const verdicts: string[] = [];
  // 1000 messages per second for 4 s, in 10 ms steps
  for (let ms = 0; ms < 4000 && !verdicts.includes('disconnect'); ms += 10) {
    clock.advance(10);
    for (let i = 0; i < 10; i++) verdicts.push(limiter.check());
  }
  assert.ok(verdicts.includes('disconnect'));
  const admitted = verdicts.filter((v) => v === 'ok').length;
  assert.ok(admitted > 150 && admitted < 350, `about 100/s admitted: ${admitted}`);
  assert.ok(limiter.dropped > 1500, `${limiter.dropped} dropped`);

  // a legitimate burst above the rate, then quiet: never disconnected
  const calm = new MessageRateLimiter(clock, { ratePerSecond: 100, burst: 200, graceSeconds: 2 });
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < 250; i++) assert.notEqual(calm.check(), 'disconnect');
    clock.advance(3000);
  }
});

test('a fleet told busy once each after a restart is one summary line, not one per address', () => {
  const clock = new FakeClock();
  const { logger, lines } = recordingLogger();
  const log = new RefusalLog(logger, clock, { fullLinesTotal: 50 });
  let full = 0;
  for (let i = 0; i < 3000; i++) log.note(`10.1.${Math.floor(i / 250)}.${i % 250}`, 'busy', () => full++);
  assert.equal(full, 50);
  clock.advance(60_000);
  // beyond the 1000 tracked addresses: one bucket, summarised at 10, 100, 1000 and at the end
  const end = lines.filter((l) => l.fields.seconds === 60);
  assert.ok(lines.length <= 6, lines.map((l) => l.msg).join('\n'));
  assert.deepEqual(
    end.map((l) => l.fields.refused).sort((a, b) => Number(a) - Number(b)),
    [950, 2000],
  );
  assert.match(
    lines.find((l) => l.fields.sources !== undefined)!.msg,
    /^refused 950 more connection attempts from 950 addresses \(fewer than 10 each\) before authentication in the last 60 s \(busy 950\)$/,
  );
  log.stop();
});
