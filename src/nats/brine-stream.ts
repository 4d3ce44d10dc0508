// The JetStream stream BRINE that every master reads: brine.ret.> (returns, deduplicated by
// <jid>/<id>) and brine.jobs.> (each published job's record). Each master reads all of it with a
// durable consumer of its own, so each job cache holds every job and return, and a master that
// was down catches up where it stopped. This module makes or finds the stream and the consumer,
// and declares what the stream carries; NatsMasterHub (master-hub.ts) handles each message.

import { AckPolicy, DeliverPolicy, type JetStreamClient, jetstreamManager, type JsMsg, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { type CloseReason, s } from '../protocol/index.js';
import type { JobRecord } from '../jobs/index.js';
import { type JetStreamWaitOptions, waitForJetStream } from './jetstream-wait.js';
import { readShape } from './json-shape.js';
import { SUBJECT_ROOT } from './subjects.js';

export const STREAM = 'BRINE';
const RETURN_SUBJECTS = `${SUBJECT_ROOT}.ret.>`;
export const JOB_SUBJECT_PREFIX = `${SUBJECT_ROOT}.jobs`;
/** A return published again within this window (a lost acknowledgement) is stored once. */
const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** A return whose job record has not arrived yet is redelivered after this long, this many times. */
const UNKNOWN_JOB_RETRY_MS = 1000;
const UNKNOWN_JOB_RETRIES = 30;

/** Where a return came from and how it is acknowledged: the JetStream message behind it. */
export interface StreamReturnSource {
  readonly id: string;
  readonly remoteAddress: string;
  sendAck(jid: string): void;
  close(reason: CloseReason, error?: Error): void;
  /** The return's job is not known yet (its record may still be on its way): redeliver later. */
  retryLater(): boolean;
  /** A fast copy: refusals are left to the durable copy (logged once, there). */
  transient?: boolean;
}

/** A published job as the stream carries it: the job cache's record and the minions it went to. */
export type PublishedJob = JobRecord & { sentTo: string[] };

const ids = s.array(s.string());
const PUBLISHED_JOB = s.object({
  jid: s.string(),
  fun: s.string(),
  arg: s.array(s.json()),
  kwarg: s.record(s.json()),
  tgt: s.union<string | string[]>(s.string(), ids),
  tgtType: s.string(),
  user: s.string(),
  minions: ids,
  startedAt: s.number(),
  schedule: s.optional(s.string()),
  sentTo: ids,
});

/** A job record from the stream (MESSAGE_INVALID when it is not one). */
export function readPublishedJob(m: Pick<JsMsg, 'subject' | 'data'>): PublishedJob {
  return readShape(PUBLISHED_JOB, m.data, `job record on ${m.subject}`);
}

/** The source of a return read from the stream: acknowledged, refused or redelivered through `m`. */
export function streamReturnSource(m: JsMsg, id: string): StreamReturnSource {
  return {
    id,
    remoteAddress: `nats:${id}`,
    sendAck: () => m.ack(),
    close: () => m.term(),
    retryLater: () => {
      if (m.info.deliveryCount >= UNKNOWN_JOB_RETRIES) return false;
      m.nak(UNKNOWN_JOB_RETRY_MS);
      return true;
    },
  };
}

export interface BrineStreamOptions {
  /** JetStream replicas; 0 = 3 on a cluster, 1 on a single server. */
  replicas: number;
  /** How long the stream keeps returns and job records (a master down longer misses them). */
  maxAgeMs: number;
  maxFrame: number;
}

/**
 * Makes the stream (the first master) or finds it (the others); resolves to its replicas. Waits
 * while the cluster has no JetStream leader (a master may start before a majority of the servers).
 */
export async function ensureBrineStream(nc: NatsConnection, opts: BrineStreamOptions, wait: JetStreamWaitOptions, logger: Logger): Promise<number> {
  const base = {
    name: STREAM,
    subjects: [RETURN_SUBJECTS, `${JOB_SUBJECT_PREFIX}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    max_age: nanos(opts.maxAgeMs),
    max_msg_size: opts.maxFrame,
  };
  const tries = opts.replicas > 0 ? [opts.replicas] : [3, 1];
  return waitForJetStream(
    `make or find the JetStream stream ${STREAM}`,
    async () => {
      // the manager asks JetStream for the account's info first: that too needs a leader
      const jsm = await jetstreamManager(nc, { timeout: 5000 });
      try {
        const info = await jsm.streams.info(STREAM);
        logger.debug({ replicas: info.config.num_replicas }, `JetStream stream ${STREAM} exists`);
        return info.config.num_replicas;
      } catch {}
      let last: unknown;
      for (const num_replicas of tries) {
        try {
          await jsm.streams.add({ ...base, num_replicas });
          logger.info({ replicas: num_replicas }, `made the JetStream stream ${STREAM} (${num_replicas} replica${num_replicas === 1 ? '' : 's'})`);
          return num_replicas;
        } catch (err) {
          last = err;
          // one copy only where the servers are not a cluster; any other failure (a server
          // that has not loaded the account yet, no leader) is tried again with the same count
          if (!/non-clustered|replicas > 1 not supported/i.test(toBrineError(err).message)) break;
        }
      }
      throw last;
    },
    wait,
  );
}

export interface BrineConsumerOptions {
  /** The durable consumer of this master (stable across restarts). */
  durable: string;
  heartbeatTimeoutMs: number;
  /** True once the master stops: reading ends. */
  stopped(): boolean;
  /** One message of the stream; a throw is logged and the message terminated. */
  handle(m: JsMsg): void;
}

/**
 * Makes or finds this master's durable consumer and starts reading the stream; resolves once
 * reading has begun, to `reading`, which settles when reading ends (wrapped: a promise resolved
 * with a promise would wait for it).
 */
export async function consumeBrineStream(nc: NatsConnection, js: JetStreamClient, opts: BrineConsumerOptions, wait: JetStreamWaitOptions, logger: Logger): Promise<{ reading: Promise<void> }> {
  const name = opts.durable;
  const consumer = await waitForJetStream(
    `make or find this master's consumer ${name} of the stream ${STREAM}`,
    async () => {
      const jsm = await jetstreamManager(nc, { timeout: 5000 });
      try {
        await jsm.consumers.info(STREAM, name);
      } catch {
        await jsm.consumers.add(STREAM, {
          durable_name: name,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          ack_wait: nanos(30_000),
          max_ack_pending: 20_000,
        });
      }
      return js.consumers.get(STREAM, name);
    },
    wait,
  );
  // each pull lasts at most heartbeat_timeout: after a server or leader is lost, a pull the
  // cluster forgot is noticed by its missed idle heartbeats (half of that) and made again,
  // instead of after the client's 30 s default
  const expires = Math.min(30_000, Math.max(1000, opts.heartbeatTimeoutMs));
  const messages = await consumer.consume({ max_messages: 1000, expires });
  void (async () => {
    for await (const st of messages.status()) {
      if (opts.stopped()) return;
      if (st.type === 'heartbeats_missed' || st.type === 'consumer_not_found' || st.type === 'stream_not_found' || st.type === 'consumer_deleted') {
        logger.warn({ code: 'NATS_UNAVAILABLE', status: st.type }, `reading the ${STREAM} stream: ${st.type}; asking again`);
      }
    }
  })();
  const reading = (async () => {
    for await (const m of messages) {
      if (opts.stopped()) break;
      try {
        opts.handle(m);
      } catch (err) {
        const e = toBrineError(err);
        logger.error({ err: e, subject: m.subject }, `a message of the ${STREAM} stream could not be handled: ${e.message}`);
        m.term();
      }
    }
  })();
  return { reading };
}
