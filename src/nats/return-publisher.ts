// How a NATS minion's returns reach the masters: a fast copy on core NATS that every master
// stores at once, and the durable copy in JetStream (brine.ret.<m>.<jid>, message id <jid>/<id>)
// whose acknowledgement is the `ack` the return queue waits for, so a return leaves the minion's
// disk only once JetStream has it. A copy JetStream did not take is published again after
// heartbeat_interval while the link is ready.

import type { JetStreamClient } from '@nats-io/jetstream';
import type { Clock, TimerHandle } from '../util/clock.js';
import { toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { Return } from '../protocol/index.js';
import { FAST_RETURN_TOKEN, type minionSubjects } from './subjects.js';

/** What the publisher needs of its link. */
export interface ReturnPublisherHost {
  /** Publishes on core NATS; false when it could not. */
  publish(subject: string, message: object): boolean;
  /** JetStream stored the return of `jid`. */
  stored(jid: string): void;
  ready(): boolean;
  stopped(): boolean;
}

export interface ReturnPublisherOptions {
  id: string;
  subjects: ReturnType<typeof minionSubjects>;
  /** How long JetStream may take to acknowledge a return. */
  timeoutMs: number;
  /** The wait before a return JetStream did not take is published again. */
  retryMs: number;
}

export class NatsReturnPublisher {
  private js: JetStreamClient | undefined;
  /** Returns on their way to JetStream (by jid), and those to publish again after a failure. */
  private readonly inFlight = new Set<string>();
  private readonly unsent = new Map<string, Return>();
  private retryTimer: TimerHandle | undefined;

  constructor(
    private readonly opts: ReturnPublisherOptions,
    private readonly host: ReturnPublisherHost,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The JetStream client of the session now up; undefined between sessions. */
  attach(js: JetStreamClient | undefined): void {
    this.js = js;
  }

  /** To JetStream, deduplicated by jid and ID; the host hears `stored` when JetStream has it. */
  send(ret: Return): void {
    const js = this.js;
    if (js === undefined || this.inFlight.has(ret.jid)) return;
    this.inFlight.add(ret.jid);
    this.unsent.delete(ret.jid);
    // the fast path: every master hears the return at once on core NATS and answers the CLI with
    // it, also while JetStream elects a leader; the stream's copy below is the durable one
    this.host.publish(`${this.opts.subjects.evt}.${FAST_RETURN_TOKEN}`, ret);
    js.publish(`${this.opts.subjects.ret}.${ret.jid}`, JSON.stringify(ret), { msgID: `${ret.jid}/${this.opts.id}`, timeout: this.opts.timeoutMs }).then(
      () => {
        this.inFlight.delete(ret.jid);
        this.host.stored(ret.jid);
      },
      (err: unknown) => {
        this.inFlight.delete(ret.jid);
        if (this.host.stopped()) return;
        // no quorum, no stream or a lost connection: kept (on disk too) and published again
        this.unsent.set(ret.jid, ret);
        const why = toBrineError(err).message;
        this.logger.warn({ jid: ret.jid, code: 'NATS_UNAVAILABLE', err: why }, `JetStream did not acknowledge the return of job ${ret.jid} (${why}); it stays queued and is sent again`);
        this.scheduleRetry();
      },
    );
  }

  stop(): void {
    this.retryTimer?.cancel();
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.host.ready()) return;
      for (const ret of [...this.unsent.values()]) this.send(ret);
    }, this.opts.retryMs);
  }
}
