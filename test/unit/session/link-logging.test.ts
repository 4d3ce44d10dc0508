// MasterLink's connection-problem logging (issue 3 item 2): with every master down the link
// logs each (master, reason) once per outage, not once per attempt, even when a failover list
// makes consecutive attempts alternate between masters; a success starts a new outage.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MasterLink, MasterPool, type LinkOptions, type MasterEndpoint } from '../../../src/session/index.js';
import { BrineError } from '../../../src/util/errors.js';
import { createLogger } from '../../../src/util/logger.js';
import { CONN_OPTS, FakeChannel, FakeDeps, auth, flush } from './fakes.js';

const M1: MasterEndpoint = { host: 'm1', port: 4501 };
const M2: MasterEndpoint = { host: 'm2', port: 4502 };

const LINK_OPTS: LinkOptions = {
  backoff: { baseMs: 100, maxMs: 500, randomize: false },
  acceptanceWaitMs: 1_000,
  acceptanceWaitMaxMs: 0,
  rejectedRetry: false,
};

interface Line {
  level: number;
  msg: string;
  master?: string;
  reason?: string;
}

class LoggingDeps extends FakeDeps {
  readonly lines: Line[] = [];
  override readonly logger = createLogger({ name: 'test', level: 'debug', format: 'json', write: (l) => this.lines.push(JSON.parse(l) as Line) });

  /** Lines at info or above (what an operator sees by default). */
  get visible(): Line[] {
    return this.lines.filter((l) => l.level >= 30);
  }
}

function link(deps: LoggingDeps): { link: MasterLink; retries: number[] } {
  const retries: number[] = [];
  const pool = new MasterPool([M1, M2], { failover: true, randomMaster: false, failback: false });
  return { link: new MasterLink(pool, deps, CONN_OPTS, LINK_OPTS, { onRetryScheduled: (d) => retries.push(d) }, () => 0.5), retries };
}

/** Fails the newest dial (with a reset before or during TLS, as a closing peer does), then waits out the retry delay. */
async function failNext(deps: LoggingDeps, retries: number[], i: number): Promise<void> {
  const dial = deps.dials.at(-1)!;
  dial.result.reject(i % 3 === 0 ? new BrineError('TLS_ERROR', 'TLS handshake failed: read ECONNRESET') : new Error(`connect ECONNRESET (attempt ${i})`));
  await flush();
  deps.clock.advance(retries.at(-1)!);
  await flush();
}

test('with every master down, each (master, reason) is logged once, however many attempts', async () => {
  const deps = new LoggingDeps({ autoDial: false });
  const { link: l, retries } = link(deps);
  l.start();
  await flush();
  for (let i = 0; i < 24; i++) await failNext(deps, retries, i);
  assert.equal(deps.dials.length, 25, 'it kept retrying');
  assert.equal(l.state, 'connecting');

  const warns = deps.visible.filter((x) => x.msg.startsWith('Cannot connect to master'));
  assert.deepEqual(warns.map((x) => `${x.master} ${x.reason}`).sort(), ['m1:4501 connect_failed', 'm1:4501 tls_error', 'm2:4502 connect_failed', 'm2:4502 tls_error']);
  const steps = deps.visible.filter((x) => x.msg.includes('trying the next master'));
  assert.ok(steps.length >= 1 && steps.length <= 2, `failover steps logged: ${steps.length}`);
  assert.equal(deps.visible.length, warns.length + steps.length);
  assert.ok(deps.lines.filter((x) => x.msg === 'still unable to connect').length >= 18, 'the repeats are at debug level');
});

test('a success starts a new outage: the loss and the next failures are logged again', async () => {
  const deps = new LoggingDeps({ autoDial: false });
  const { link: l, retries } = link(deps);
  l.start();
  await flush();
  for (let i = 1; i <= 4; i++) await failNext(deps, retries, i);
  const before = deps.visible.length;

  const dial = deps.dials.at(-1)!;
  dial.onTcpConnected();
  const ch = new FakeChannel();
  dial.result.resolve(ch);
  await flush();
  ch.deliver(auth('accepted'));
  assert.equal(l.state, 'ready');
  ch.drop('reset');
  await flush();
  const lost = deps.visible.slice(before).filter((x) => x.msg.includes('lost (reset)'));
  assert.equal(lost.length, 1);

  deps.clock.advance(retries.at(-1)!);
  await flush();
  await failNext(deps, retries, 1);
  await failNext(deps, retries, 2);
  const again = deps.visible.slice(before).filter((x) => x.msg.startsWith('Cannot connect to master'));
  assert.equal(again.length, 2, 'both masters failing after the success are news again');
  l.stop();
});
