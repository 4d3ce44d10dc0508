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
//   brine.req.<m>.event     events a minion fires (event.send, beacons): one master fires each
//   brine.job.<m>           jobs and find_job to one minion
//   brine.inbox.<m>.m       replies to one minion
//   stream BRINE            brine.ret.> and brine.jobs.>, read by every master (brine-stream.ts)
//
// A message's minion is the subject token the server let it publish (minion users may publish
// only their own subjects), never a field of the payload.

import { jetstream, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Clock } from '../util/clock.js';
import { BrineError, toBrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { decodeMessage, MINION_MESSAGES, PROTOCOL_VERSIONS, type MasterMessage, type MinionMessage, type Return } from '../protocol/index.js';
import { type AccountKeys, masterUserJwt } from './authority.js';
import { consumeBrineStream, ensureBrineStream, JOB_SUBJECT_PREFIX, type PublishedJob, readPublishedJob, STREAM, type StreamReturnSource, streamReturnSource } from './brine-stream.js';
import type { JetStreamWaitOptions } from './jetstream-wait.js';
import { nkeyAuthenticator, connectAsMaster } from './master-connection.js';
import type { NkeySigner } from './nkeys.js';
import { natsPingSettings } from './ping-settings.js';
import { NatsSessionChannel } from './session-channel.js';
import { serveSignin, type SigninDecision, type VerifiedSignin } from './signin.js';
import { FAST_RETURN_TOKEN, MINION_INBOX_SUFFIX, minionIdOfToken, minionSubjects, SUBJECT_ROOT } from './subjects.js';
import { JOB_HEADERS, payloadDigest, signJob } from './job-signature.js';

/** Masters answer file and pillar requests in one queue group, sign-ins too (signin.ts). */
const MASTER_QUEUE = 'brine-masters';
/** A job record is offered to JetStream this many times, a second apart. */
const JOB_RECORD_ATTEMPTS = 60;

export interface NatsMasterHubHooks {
  /** A minion was heard from with no channel open: the master makes its session on it. */
  onChannel(channel: NatsSessionChannel): void;
  /** The accepted key of an ID, if any: a NATS session is that key's (the servers checked it). */
  acceptedKey(id: string): { pem: string; fingerprint: string } | undefined;
  /** The key store's decision for a sign-in request (as for a TLS hello), from `source` (the server-reported address). */
  signIn(req: VerifiedSignin, source: string | undefined): SigninDecision;
  onReturn(source: StreamReturnSource, ret: Return): void;
  /** A job published by any master (this one included): kept in this master's job cache. */
  onJobRecord(record: PublishedJob): void;
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
        `cannot connect to the NATS servers ${opts.servers.join(', ')} as this master: ${errorMessage(err)} (are they running with the configuration from \`brine nats server-config\`, listing this master's key?)`,
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
    this.replicasValue = await ensureBrineStream(nc, opts, this.jetStreamWait(), this.logger);
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
    // an event is fired once, by one master (each master's bus is its own, as with returns)
    this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.req.*.event`, { queue: MASTER_QUEUE, callback: (_e, m) => this.fromMinion(m, 2) }));
    this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.evt.*.${FAST_RETURN_TOKEN}`, { callback: (_e, m) => this.fastReturn(m) }));
    await nc.flush();
    await this.startConsumer();
    void this.watchStatus();
  }

  /** How JetStream is waited for at start: until it answers, or this hub stops. */
  private jetStreamWait(): JetStreamWaitOptions {
    return { clock: this.clock, logger: this.logger, stopped: () => this.stopped };
  }

  private async startConsumer(): Promise<void> {
    const { reading } = await consumeBrineStream(
      this.nc,
      this.js,
      { durable: this.opts.durable, heartbeatTimeoutMs: this.opts.heartbeatTimeoutMs, stopped: () => this.stopped, handle: (m) => this.fromStream(m) },
      this.jetStreamWait(),
      this.logger,
    );
    this.consuming = reading;
  }

  private fromStream(m: JsMsg): void {
    const tokens = m.subject.split('.');
    if (tokens[1] === 'jobs') {
      this.hooks.onJobRecord(readPublishedJob(m));
      m.ack();
      return;
    }
    // brine.ret.<m>.<jid>
    const id = minionIdOfToken(tokens[2] ?? '');
    const ret = this.decode(m.subject, m.data);
    if (ret.t !== 'return' || ret.jid !== tokens[3]) throw new BrineError('MESSAGE_INVALID', `the ${STREAM} stream held a ${ret.t} from ${id} on ${m.subject}`);
    this.hooks.onReturn(streamReturnSource(m, id), ret);
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
      case 'event_reply':
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
      this.logger.warn({ subject, err: errorMessage(err) }, `publishing to NATS failed: ${errorMessage(err)}`);
      return false;
    }
  }

  /**
   * Puts a published job's record into the stream, so every master keeps it (before its
   * returns). While JetStream cannot take it (a leader election, no quorum) it is tried again
   * every second for a minute; the message id keeps a record that did arrive from being stored twice.
   */
  publishJobRecord(record: PublishedJob, attempt = 1): void {
    if (this.stopped) return;
    this.js.publish(`${JOB_SUBJECT_PREFIX}.${record.jid}`, JSON.stringify(record), { msgID: `job/${record.jid}` }).catch((err: unknown) => {
      if (this.stopped) return;
      if (attempt < JOB_RECORD_ATTEMPTS) {
        this.clock.setTimeout(() => this.publishJobRecord(record, attempt + 1), 1000);
        if (attempt === 1) this.logger.info({ jid: record.jid, err: errorMessage(err) }, `JetStream did not take the record of job ${record.jid} yet (${errorMessage(err)}); trying again`);
        return;
      }
      this.logger.warn(
        { jid: record.jid, code: 'NATS_UNAVAILABLE', err: errorMessage(err) },
        `job ${record.jid} was sent, but its record did not reach JetStream within ${JOB_RECORD_ATTEMPTS} s (${errorMessage(err)}): the other masters will not store its returns`,
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
