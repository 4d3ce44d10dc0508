// A stand-in for the network under NatsMinionLink, at nats.js's `connect` (the link's NatsDial):
// each dial waits until the test settles it (a connection, a refused server, refused
// credentials with nats.js's own typed error), and each connection emits the status events and
// the close the test asks for. The link code itself runs unchanged; the real nats.js against a
// real nats-server is covered by test/integration/link-contract.test.ts and nats-*.test.ts.

import type { NatsConnection, NodeConnectionOptions, Status } from '@nats-io/transport-node';
import { AuthorizationError, ConnectionError, TimeoutError } from '@nats-io/transport-node';
import { deferred, type Deferred } from '../session/fakes.js';

/** One fake connection: what the link calls, plus the test's levers. */
export class FakeNatsConnection {
  readonly options: { inboxPrefix?: string };
  readonly published: string[] = [];
  private readonly done = deferred<Error | undefined>();
  private ended = false;
  private readonly queue: Status[] = [];
  private wakeReader: (() => void) | undefined;
  /** The sign-in request's answer, settled by the test (sign-in connections only). */
  readonly signinAnswer = deferred<Uint8Array>();
  requested = false;

  constructor(readonly dialOpts: NodeConnectionOptions) {
    this.options = dialOpts.inboxPrefix === undefined ? {} : { inboxPrefix: dialOpts.inboxPrefix };
    // a connection never asked to sign in may still be closed (its answer rejected): not unhandled
    this.signinAnswer.promise.catch(() => undefined);
  }

  /** nats.js's request deadline passed: no master answered. */
  requestTimesOut(): void {
    this.signinAnswer.reject(new TimeoutError());
  }

  get signingIn(): boolean {
    return String(this.dialOpts.name).endsWith('(signing in)');
  }

  get isClosed(): boolean {
    return this.ended;
  }

  publish(subject: string): void {
    if (this.ended) throw new Error('closed');
    this.published.push(subject);
  }

  subscribe(): { unsubscribe(): void } {
    return { unsubscribe: () => undefined };
  }

  request(): Promise<{ data: Uint8Array }> {
    this.requested = true;
    return this.signinAnswer.promise.then((data) => ({ data }));
  }

  getServer(): string {
    return 'nats://127.0.0.1:4222';
  }

  closed(): Promise<Error | undefined> {
    return this.done.promise;
  }

  async drain(): Promise<void> {
    this.finish();
  }

  async close(): Promise<void> {
    this.finish();
  }

  async *status(): AsyncIterable<Status> {
    while (true) {
      const next = this.queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wakeReader = resolve;
      });
    }
  }

  /** nats.js reports a status change. */
  emit(status: Status): void {
    if (this.ended) return;
    this.queue.push(status);
    this.wake();
  }

  /** The connection closes for good (nats.js gave up), with the error it closed with. */
  finish(err?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.signinAnswer.reject(new TimeoutError());
    this.done.resolve(err);
    this.wake();
  }

  private wake(): void {
    const w = this.wakeReader;
    this.wakeReader = undefined;
    w?.();
  }
}

/** 'auth-timeout': the server's 'Authentication Timeout', which nats.js also types as an AuthorizationError. */
export type DialOutcome = 'ok' | 'refused' | 'auth' | 'auth-timeout';

/** Every dial the link made, each settled by the test (or at once, once `auto` is set). */
export class FakeNatsNetwork {
  readonly dials: Array<{ conn: FakeNatsConnection; result: Deferred<NatsConnection>; outcome: DialOutcome | undefined }> = [];
  /** Settle every new dial at once with this outcome (the healed network at the end of a run). */
  auto: DialOutcome | undefined;

  readonly dial = (opts: NodeConnectionOptions): Promise<NatsConnection> => {
    const conn = new FakeNatsConnection(opts);
    const entry: (typeof this.dials)[number] = { conn, result: deferred<NatsConnection>(), outcome: undefined };
    this.dials.push(entry);
    if (this.auto !== undefined) this.settle(entry, this.auto);
    return entry.result.promise;
  };

  /** The oldest dial still waiting for its answer. */
  pending(): (typeof this.dials)[number] | undefined {
    return this.dials.find((d) => d.outcome === undefined);
  }

  settle(entry: (typeof this.dials)[number], outcome: DialOutcome): void {
    if (entry.outcome !== undefined) return;
    entry.outcome = outcome;
    if (outcome === 'ok') entry.result.resolve(asNatsConnection(entry.conn));
    else if (outcome === 'auth') entry.result.reject(new AuthorizationError("'Authorization Violation'"));
    else if (outcome === 'auth-timeout') entry.result.reject(new AuthorizationError('Authentication Timeout'));
    else entry.result.reject(new ConnectionError('connection refused'));
  }

  /** Connections handed to the link and not closed yet. */
  open(): FakeNatsConnection[] {
    return this.dials.filter((d) => d.outcome === 'ok' && !d.conn.isClosed).map((d) => d.conn);
  }
}

/**
 * The fake has what NatsMinionLink and jetstream() use of a NatsConnection, not the whole
 * interface: the one cast at this test boundary.
 */
function asNatsConnection(conn: FakeNatsConnection): NatsConnection {
  return conn as unknown as NatsConnection;
}
