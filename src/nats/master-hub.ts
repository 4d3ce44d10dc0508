// A master's side of `transport: nats`: one connection to the cluster as this master, serving
// everything the TLS listener serves on the built-in transport. Each minion it hears from gets a
// NatsSessionChannel, a Channel like a TLS connection's, so the master's MinionSession (hello,
// heartbeats and their timeout, rate limit, requests) and everything above it are unchanged.
//
//   brine.signin            sign-in requests from pending keys (queue group: decided once)
//   brine.hb.<m>            hello, heartbeats, grains, job_status, bye: every master hears them,
//                           so every master knows who is connected and who went silent
//   brine.req.<m>.file|pillar  requests answered by one master (queue group)
//   brine.req.<m>.mine      mine requests reach every master (each keeps the mine)
//   brine.job.<m>           jobs and find_job to one minion
//   brine.inbox.<m>.m       replies to one minion
//   stream BRINE            brine.ret.> (returns, deduplicated by <jid>/<id>) and brine.jobs.>
//                           (each published job's record): every master reads all of it with a
//                           durable consumer of its own, so each job cache holds every job and
//                           return, and a master that was down catches up where it stopped.
//
// A message's minion is the subject token the server let it publish (minion users may publish
// only their own subjects), never a field of the payload.

import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient, type JsMsg, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type Msg, nanos, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Clock } from '../util/clock.js';
import { TokenBucket } from '../util/token-bucket.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { decodeMessage, MINION_MESSAGES, PROTOCOL_VERSIONS, type Channel, type ChannelClose, type CloseReason, type MasterMessage, type MinionMessage, type Return } from '../protocol/index.js';
import type { JobRecord } from '../jobs/index.js';
import { type AccountKeys, masterUserJwt } from './authority.js';
import { type JetStreamWaitOptions, waitForJetStream } from './jetstream-wait.js';
import { nkeyAuthenticator, connectAsMaster } from './master-connection.js';
import type { NkeySigner } from './nkeys.js';
import { serveSignin, type SigninDecision, type VerifiedSignin } from './signin.js';
import { minionIdOfToken, minionSubjects, SUBJECT_ROOT } from './subjects.js';
import { JOB_HEADERS, payloadDigest, signJob } from './job-signature.js';
import { FAST_RETURN_TOKEN, MINION_INBOX_SUFFIX, natsPingSettings } from './minion-link.js';

export const STREAM = 'BRINE';
const RETURN_SUBJECTS = `${SUBJECT_ROOT}.ret.>`;
const JOB_SUBJECTS = `${SUBJECT_ROOT}.jobs.>`;
/** Masters answer file and pillar requests in one queue group, sign-ins too (signin.ts). */
const MASTER_QUEUE = 'brine-masters';
/** A return published again within this window (a lost acknowledgement) is stored once. */
const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** A return whose job record has not arrived yet is redelivered after this long, this many times. */
const UNKNOWN_JOB_RETRY_MS = 1000;
const UNKNOWN_JOB_RETRIES = 30;
/** A job record is offered to JetStream this many times, a second apart. */
const JOB_RECORD_ATTEMPTS = 60;

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

export interface NatsMasterHubHooks {
  /** A minion was heard from with no channel open: the master makes its session on it. */
  onChannel(channel: NatsSessionChannel): void;
  /** The accepted key of an ID, if any: a NATS session is that key's (the servers checked it). */
  acceptedKey(id: string): { pem: string; fingerprint: string } | undefined;
  /** The key store's decision for a sign-in request (as for a TLS hello), from `source` (the server-reported address). */
  signIn(req: VerifiedSignin, source: string | undefined): SigninDecision;
  onReturn(source: StreamReturnSource, ret: Return): void;
  /** A job published by any master (this one included): kept in this master's job cache. */
  onJobRecord(record: JobRecord & { sentTo: string[] }): void;
}

export interface NatsMasterHubOptions {
  servers: string[];
  tlsCaFile?: string;
  signer: NkeySigner;
  accounts: AccountKeys;
  /** This master's name on the servers (its id). */
  name: string;
  /** The durable consumer of this master (stable across restarts). */
  durable: string;
  /** JetStream replicas; 0 = 3 on a cluster, 1 on a single server. */
  replicas: number;
  /** How long the stream keeps returns and job records (a master down longer misses them). */
  maxAgeMs: number;
  maxFrame: number;
  heartbeatTimeoutMs: number;
  /** minion_msg_rate/minion_msg_burst for the fast copies of returns (the stream's copy still counts). */
  fastReturnRate?: { ratePerSecond: number; burst: number };
}

export class NatsMasterHub {
  private readonly channels = new Map<string, NatsSessionChannel>();
  private readonly subs: Subscription[] = [];
  private stopped = false;
  private consuming: Promise<void> | undefined;
  private js!: JetStreamClient;
  private replicasValue = 1;
  /** Fast copies of returns ignored (no session, or over the rate): their stream copies still count. */
  fastDropped = 0;
  /** Encoded jobs by message object (text and digest): one encoding for a job sent to 10,000 minions. */
  private readonly encoded = new WeakMap<object, { text: string; digest?: string }>();

  private constructor(
    readonly nc: NatsConnection,
    private readonly opts: NatsMasterHubOptions,
    private readonly hooks: NatsMasterHubHooks,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  static async start(opts: NatsMasterHubOptions, hooks: NatsMasterHubHooks, clock: Clock, logger: Logger): Promise<NatsMasterHub> {
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: opts.servers,
        authenticator: nkeyAuthenticator(opts.signer, masterUserJwt(opts.signer, opts.accounts, opts.name)),
        name: `brine-master ${opts.name}`,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        timeout: 5000,
        ...natsPingSettings(opts.heartbeatTimeoutMs),
        ...(opts.tlsCaFile === undefined ? {} : { tls: { caFile: opts.tlsCaFile } }),
      });
    } catch (err) {
      throw new BrineError(
        'NATS_UNAVAILABLE',
        `cannot connect to the NATS servers ${opts.servers.join(', ')} as this master: ${(err as Error).message} (are they running with the configuration from \`brine nats server-config\`, listing this master's key?)`,
        { cause: err },
      );
    }
    const hub = new NatsMasterHub(nc, opts, hooks, clock, logger);
    try {
      await hub.open();
    } catch (err) {
      await hub.stop();
      throw err;
    }
    return hub;
  }

  private async open(): Promise<void> {
    const { nc, opts, hooks } = this;
    this.js = jetstream(nc, { timeout: 5000 });
    await this.ensureStream();
    this.subs.push(
      serveSignin(nc, opts.signer, opts.accounts, (req, source) => hooks.signIn(req, source), {
        // a second ahead: a key revoked and accepted again within one second gets a valid JWT
        issuedAt: () => Math.floor(this.clock.now() / 1000) + 1,
        onRefused: (err) => this.logger.info({ code: err.code }, `refused a NATS sign-in request: ${err.message}`),
      }),
    );
    this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.hb.*`, { callback: (_e, m) => this.fromMinion(m, 2) }));
    this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.req.*.file`, { queue: MASTER_QUEUE, callback: (_e, m) => this.fromMinion(m, 2) }));
    this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.req.*.pillar`, { queue: MASTER_QUEUE, callback: (_e, m) => this.fromMinion(m, 2) }));
    this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.req.*.mine`, { callback: (_e, m) => this.fromMinion(m, 2) }));
    this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.evt.*.${FAST_RETURN_TOKEN}`, { callback: (_e, m) => this.fastReturn(m) }));
    await nc.flush();
    await this.startConsumer();
    void this.watchStatus();
  }

  /** How JetStream is waited for at start: until it answers, or this hub stops. */
  private jetStreamWait(): JetStreamWaitOptions {
    return { clock: this.clock, logger: this.logger, stopped: () => this.stopped };
  }

  /**
   * The stream every master reads; made by the first master, checked by the others. Waits while
   * the cluster has no JetStream leader (a master may start before a majority of the servers).
   */
  private async ensureStream(): Promise<void> {
    const base = {
      name: STREAM,
      subjects: [RETURN_SUBJECTS, JOB_SUBJECTS],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      max_age: nanos(this.opts.maxAgeMs),
      max_msg_size: this.opts.maxFrame,
    };
    const tries = this.opts.replicas > 0 ? [this.opts.replicas] : [3, 1];
    await waitForJetStream(
      `make or find the JetStream stream ${STREAM}`,
      async () => {
        // the manager asks JetStream for the account's info first: that too needs a leader
        const jsm = await jetstreamManager(this.nc, { timeout: 5000 });
        try {
          const info = await jsm.streams.info(STREAM);
          this.replicasValue = info.config.num_replicas;
          this.logger.debug({ replicas: info.config.num_replicas }, `JetStream stream ${STREAM} exists`);
          return;
        } catch {}
        let last: unknown;
        for (const num_replicas of tries) {
          try {
            await jsm.streams.add({ ...base, num_replicas });
            this.replicasValue = num_replicas;
            this.logger.info({ replicas: num_replicas }, `made the JetStream stream ${STREAM} (${num_replicas} replica${num_replicas === 1 ? '' : 's'})`);
            return;
          } catch (err) {
            last = err;
            // one copy only where the servers are not a cluster; any other failure (a server
            // that has not loaded the account yet, no leader) is tried again with the same count
            if (!/non-clustered|replicas > 1 not supported/i.test((err as Error).message)) break;
          }
        }
        throw last;
      },
      this.jetStreamWait(),
    );
  }

  private async startConsumer(): Promise<void> {
    const name = this.opts.durable;
    const consumer = await waitForJetStream(
      `make or find this master's consumer ${name} of the stream ${STREAM}`,
      async () => {
        const jsm = await jetstreamManager(this.nc, { timeout: 5000 });
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
        return this.js.consumers.get(STREAM, name);
      },
      this.jetStreamWait(),
    );
    // each pull lasts at most heartbeat_timeout: after a server or leader is lost, a pull the
    // cluster forgot is noticed by its missed idle heartbeats (half of that) and made again,
    // instead of after the client's 30 s default
    const expires = Math.min(30_000, Math.max(1000, this.opts.heartbeatTimeoutMs));
    const messages = await consumer.consume({ max_messages: 1000, expires });
    void (async () => {
      for await (const s of messages.status()) {
        if (this.stopped) return;
        if (s.type === 'heartbeats_missed' || s.type === 'consumer_not_found' || s.type === 'stream_not_found' || s.type === 'consumer_deleted') {
          this.logger.warn({ code: 'NATS_UNAVAILABLE', status: s.type }, `reading the ${STREAM} stream: ${s.type}; asking again`);
        }
      }
    })();
    this.consuming = (async () => {
      for await (const m of messages) {
        if (this.stopped) break;
        try {
          this.fromStream(m);
        } catch (err) {
          const e = toBrineError(err);
          this.logger.error({ err: e, subject: m.subject }, `a message of the ${STREAM} stream could not be handled: ${e.message}`);
          m.term();
        }
      }
    })();
  }

  private fromStream(m: JsMsg): void {
    const tokens = m.subject.split('.');
    if (tokens[1] === 'jobs') {
      const record = JSON.parse(m.string()) as JobRecord & { sentTo: string[] };
      this.hooks.onJobRecord(record);
      m.ack();
      return;
    }
    // brine.ret.<m>.<jid>
    const id = minionIdOfToken(tokens[2] ?? '');
    const ret = this.decode(m.subject, m.data);
    if (ret.t !== 'return' || ret.jid !== tokens[3]) throw new BrineError('MESSAGE_INVALID', `the ${STREAM} stream held a ${ret.t} from ${id} on ${m.subject}`);
    const source: StreamReturnSource = {
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
    this.hooks.onReturn(source, ret);
  }

  /**
   * A return's fast copy on core NATS: stored now (the CLI waiting for it gets it without waiting
   * for JetStream), acknowledged to nobody; the stream's copy of the same return follows, is
   * found already stored, and acknowledged. Refused copies are left to the stream's copy, which
   * logs the refusal once.
   */
  private fastReturn(m: Msg): void {
    if (this.stopped) return;
    let ret: MinionMessage;
    try {
      // only from a minion this master has a session with, at the session's message rate, checked
      // before the copy is read: a minion flooding fast copies costs a token bucket, not a parse
      // and a lookup each (threats.md #26); the durable copy in the stream is what counts
      const channel = this.channels.get(minionIdOfToken(m.subject.split('.')[2] ?? ''));
      if (channel === undefined || !channel.takeFast(this.opts.fastReturnRate, this.clock)) {
        this.fastDropped++;
        return;
      }
      ret = this.decode(m.subject, m.data);
      if (ret.t !== 'return' || ret.schedule !== undefined) return;
      const id = channel.id;
      this.hooks.onReturn({ id, remoteAddress: `nats:${id}`, sendAck: () => {}, close: () => {}, retryLater: () => true, transient: true }, ret);
    } catch {
      // a malformed copy: its stream copy is refused and logged
    }
  }

  /** A minion's message, within max_frame_size and the protocol's schemas (coded errors otherwise). */
  private decode(subject: string, data: Uint8Array): MinionMessage {
    if (data.length > this.opts.maxFrame) throw new BrineError('FRAME_TOO_LARGE', `${data.length} bytes on ${subject.slice(0, 300)}, over max_frame_size (${this.opts.maxFrame})`);
    return decodeMessage<MinionMessage>(data, MINION_MESSAGES);
  }

  /** A message from the minion whose token is subject token `at`. */
  private fromMinion(m: Msg, at: number): void {
    if (this.stopped) return;
    let id: string;
    let message: MinionMessage;
    try {
      id = minionIdOfToken(m.subject.split('.')[at] ?? '');
      message = this.decode(m.subject, m.data);
    } catch (err) {
      const e = toBrineError(err);
      this.logger.warn({ subject: m.subject.slice(0, 300), code: e.code }, `ignored a message on ${m.subject.slice(0, 300)}: ${e.message}`);
      return;
    }
    let channel = this.channels.get(id);
    if (channel !== undefined && message.t === 'hello') {
      // the minion connected again (another server, a restart): a new session replaces the old,
      // as a reconnect does on the built-in transport
      channel.close('replaced');
      channel = undefined;
    }
    if (channel === undefined) {
      if (message.t === 'bye') return;
      const key = this.hooks.acceptedKey(id);
      if (key === undefined) return; // no accepted key: its credentials are revoked or on their way to be
      channel = new NatsSessionChannel(this, id, key);
      this.channels.set(id, channel);
      this.hooks.onChannel(channel);
      // a master that starts (or restarts) joins minions already connected: their heartbeat
      // stands for the hello they sent before this master was there
      if (message.t !== 'hello') channel.deliver({ t: 'hello', versions: [...PROTOCOL_VERSIONS], id, agent: 'brine (nats)' });
    }
    channel.deliver(message);
  }

  /** Sends to one minion: jobs on its job subject, replies on its inbox. */
  sendTo(id: string, message: MasterMessage): boolean {
    if (this.stopped) return false;
    const s = minionSubjects(id);
    switch (message.t) {
      case 'job':
      case 'find_job':
        // signed for this minion by this master: the minion runs nothing else (threats.md #41)
        return this.publish(s.job, message, id);
      case 'file_reply':
      case 'pillar_reply':
      case 'mine_reply':
        return this.publish(`${s.inbox}.${MINION_INBOX_SUFFIX}`, message);
      default:
        // auth, pong, ack and bye: the NATS connection itself carries what they do here
        return true;
    }
  }

  /** Publishes `message`; with `signFor`, signed for that minion (one Ed25519 signature each). */
  private publish(subject: string, message: object, signFor?: string): boolean {
    let enc = this.encoded.get(message);
    if (enc === undefined) {
      enc = { text: JSON.stringify(message) };
      if (Object.isFrozen(message)) this.encoded.set(message, enc);
    }
    try {
      if (signFor === undefined) {
        this.nc.publish(subject, enc.text);
        return true;
      }
      enc.digest ??= payloadDigest(enc.text);
      const sig = signJob(this.opts.signer, signFor, enc.digest, this.clock.now());
      const h = natsHeaders();
      h.set(JOB_HEADERS.master, sig.master);
      h.set(JOB_HEADERS.issued, String(sig.issuedMs));
      h.set(JOB_HEADERS.expires, String(sig.expiresMs));
      h.set(JOB_HEADERS.sig, sig.sig);
      this.nc.publish(subject, enc.text, { headers: h });
      return true;
    } catch (err) {
      this.logger.warn({ subject, err: (err as Error).message }, `publishing to NATS failed: ${(err as Error).message}`);
      return false;
    }
  }

  /**
   * Puts a published job's record into the stream, so every master keeps it (before its
   * returns). While JetStream cannot take it (a leader election, no quorum) it is tried again
   * every second for a minute; the message id keeps a record that did arrive from being stored twice.
   */
  publishJobRecord(record: JobRecord & { sentTo: string[] }, attempt = 1): void {
    if (this.stopped) return;
    this.js.publish(`${SUBJECT_ROOT}.jobs.${record.jid}`, JSON.stringify(record), { msgID: `job/${record.jid}` }).catch((err: unknown) => {
      if (this.stopped) return;
      if (attempt < JOB_RECORD_ATTEMPTS) {
        this.clock.setTimeout(() => this.publishJobRecord(record, attempt + 1), 1000);
        if (attempt === 1) this.logger.info({ jid: record.jid, err: (err as Error).message }, `JetStream did not take the record of job ${record.jid} yet (${(err as Error).message}); trying again`);
        return;
      }
      this.logger.warn(
        { jid: record.jid, code: 'NATS_UNAVAILABLE', err: (err as Error).message },
        `job ${record.jid} was sent, but its record did not reach JetStream within ${JOB_RECORD_ATTEMPTS} s (${(err as Error).message}): the other masters will not store its returns`,
      );
    });
  }

  /** Runs `fn` on a connection as this master in SYS (account updates: revocations), then closes it. */
  async withSystemConnection<T>(fn: (sys: NatsConnection, signer: NkeySigner, brineAccount: string) => Promise<T>): Promise<T> {
    const sys = await connectAsMaster(this.opts.servers, this.opts.signer, this.opts.accounts, 'sys', `brine-master ${this.opts.name} (keys)`);
    try {
      return await fn(sys, this.opts.signer, this.opts.accounts.brine);
    } finally {
      await sys.close();
    }
  }

  /** JetStream replicas of the stream (the key bucket uses as many). */
  get replicas(): number {
    return this.replicasValue;
  }

  /** Channels open now (one per minion heard from and not yet timed out). */
  get channelCount(): number {
    return this.channels.size;
  }

  forget(channel: NatsSessionChannel): void {
    if (this.channels.get(channel.id) === channel) this.channels.delete(channel.id);
  }

  private async watchStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (this.stopped) return;
      if (s.type === 'disconnect') this.logger.warn({ code: 'NATS_UNAVAILABLE' }, 'lost the NATS server; reconnecting to another server of the cluster');
      else if (s.type === 'reconnect') this.logger.info({ server: this.nc.getServer() }, `reconnected to NATS server ${this.nc.getServer()}`);
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const ch of [...this.channels.values()]) ch.close('shutdown');
    try {
      await this.nc.drain();
    } catch {
      await this.nc.close().catch(() => {});
    }
    await this.consuming?.catch(() => {});
  }
}

/**
 * One minion as a master sees it over NATS: the Channel its MinionSession talks through. It has
 * no socket: messages arrive by subject, and closing it (a heartbeat timeout, a deleted key)
 * forgets the minion until it is heard from again.
 */
export class NatsSessionChannel implements Channel<MinionMessage, MasterMessage> {
  private closedValue = false;
  private fastBucket: TokenBucket | undefined;
  private readonly messageFns: Array<(m: MinionMessage) => void> = [];
  private readonly closeFns: Array<(info: ChannelClose) => void> = [];
  readonly remoteAddress: string;
  readonly peerFingerprint: string;
  readonly peerPublicKeyPem: string;

  constructor(
    private readonly hub: NatsMasterHub,
    readonly id: string,
    key: { pem: string; fingerprint: string },
  ) {
    this.remoteAddress = `nats:${id}`;
    this.peerFingerprint = key.fingerprint;
    this.peerPublicKeyPem = key.pem;
  }

  get closed(): boolean {
    return this.closedValue;
  }

  /** A fast copy of a return may be taken now (the minion is within its message rate). */
  takeFast(rate: { ratePerSecond: number; burst: number } | undefined, clock: Clock): boolean {
    if (rate === undefined || rate.ratePerSecond <= 0) return true;
    this.fastBucket ??= new TokenBucket(clock, rate.ratePerSecond, Math.max(1, rate.burst));
    return this.fastBucket.take();
  }

  deliver(message: MinionMessage): void {
    if (this.closedValue) return;
    for (const fn of this.messageFns) fn(message);
    if (message.t === 'bye') this.end({ reason: message.reason === 'shutdown' ? 'shutdown' : 'peer_closed', local: false });
  }

  send(message: MasterMessage): boolean {
    if (this.closedValue) return false;
    return this.hub.sendTo(this.id, message);
  }

  close(reason: CloseReason, error?: BrineError | Error): void {
    this.end({ reason, local: true, ...(error === undefined ? {} : { error }) });
  }

  private end(info: ChannelClose): void {
    if (this.closedValue) return;
    this.closedValue = true;
    this.hub.forget(this);
    for (const fn of this.closeFns) fn(info);
  }

  onMessage(fn: (message: MinionMessage) => void): void {
    this.messageFns.push(fn);
  }

  onClose(fn: (info: ChannelClose) => void): void {
    this.closeFns.push(fn);
  }

  setMaxFrame(): void {
    // the hub checks the size of every message against max_frame_size
  }
}
