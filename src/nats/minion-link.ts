// The minion's link to the masters when `transport: nats`: one NATS connection to the cluster
// instead of a TLS connection per master. It signs in through the ENROL account until a master
// gives it a user JWT, then connects as itself (its own key signs the server's nonce) with the
// ping interval derived from heartbeat_timeout, so a dead server or path is noticed in time and
// the client moves to another server of the cluster. It keeps the shape of MasterLink (send,
// ready, state, the same events), so the minion's job, return and request code does not care
// which transport carries it.
//
// What goes where (src/nats/subjects.ts): jobs and find_job arrive on brine.job.<m>; masters'
// replies (files, pillar, mine) on brine.inbox.<m>.m; hello, heartbeats, grains, job_status and
// bye go to every master on brine.hb.<m>; returns are published to JetStream on
// brine.ret.<m>.<jid> with the message id <jid>/<id>, and the stream's acknowledgement is the
// `ack` the return queue waits for: a return leaves the minion's disk only once JetStream has it.
// A copy also goes to every master on core NATS (brine.evt.<m>.ret), which they store at once.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import { connect, jwtAuthenticator, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { decodeMessage, MASTER_MESSAGES, PROTOCOL_VERSIONS, type MasterMessage, type MinionMessage, type Return } from '../protocol/index.js';
import { Backoff, type BackoffOptions } from '../session/backoff.js';
import type { LinkEvents, LinkState } from '../session/master-link.js';
import type { ConnectionState } from '../session/master-connection.js';
import { nkeyAuthenticator } from './master-connection.js';
import type { NkeySigner } from './nkeys.js';
import { checkSigninAnswer, signinRequest, type SigninAnswer } from './signin.js';
import { judgeSigninAnswer } from './signin-verdict.js';
import { type Enrolment, trustedMasterKeys } from './enrolment.js';
import { minionSubjects, SIGNIN_SUBJECT } from './subjects.js';
import { decodeJwt } from './jwt.js';
import { SignedJobGate } from './job-gate.js';

/** The event token of a return's fast copy (brine.evt.<m>.ret), beside its copy in the stream. */
export const FAST_RETURN_TOKEN = 'ret';

/** The subject suffix of the minion's inbox on which masters send it messages. */
export const MINION_INBOX_SUFFIX = 'm';

/** nats.js declares a connection stale after this many unanswered pings (checked each interval). */
const MAX_PINGS_OUT = 2;

export interface NatsMinionLinkOptions {
  id: string;
  agent: string;
  servers: string[];
  /** CA bundle to verify the servers with (TLS); undefined: as the URLs say. */
  tlsCaFile?: string;
  signer: NkeySigner;
  enrolment: Enrolment;
  /** Where the user JWT a master issued is kept between runs. */
  jwtFile: string;
  /**
   * Written once a master of the enrolment file has accepted this minion: until then a refusal
   * proves nothing (anyone with the public enrolment file can squat the ID first), so it is
   * retried with a CRITICAL line instead of ending the minion, as on TLS (threats.md #42).
   */
  acceptedFile: string;
  authTimeoutMs: number;
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  backoff: BackoffOptions;
  acceptanceWaitMs: number;
  acceptanceWaitMaxMs: number;
  rejectedRetry: boolean;
  untrustedMasterFatal: boolean;
  /** Returns queued on the minion, sent with each heartbeat. */
  returnsQueued(): number;
}

/**
 * nats.js checks every `pingInterval` and gives up when MAX_PINGS_OUT pings are unanswered at a
 * check: silence is noticed within (MAX_PINGS_OUT + 2) intervals at worst, which must fit in
 * heartbeat_timeout. NATS's own default (2 minutes, 2 pings out) would take up to 8 minutes.
 */
export function natsPingSettings(heartbeatTimeoutMs: number): { pingInterval: number; maxPingOut: number } {
  return { pingInterval: Math.max(100, Math.floor(heartbeatTimeoutMs / (MAX_PINGS_OUT + 2))), maxPingOut: MAX_PINGS_OUT };
}

/** The host and port of the first server, for status output (the link has no single master). */
function firstEndpoint(servers: readonly string[]): { host: string; port: number } {
  try {
    const u = new URL(servers[0] ?? 'nats://127.0.0.1:4222');
    return { host: u.hostname, port: Number(u.port || 4222) };
  } catch {
    return { host: servers[0] ?? 'nats', port: 4222 };
  }
}

const isAuthError = (err: unknown): boolean => /authori[sz]ation|authentication|revoked|expired/i.test(String((err as Error | undefined)?.message ?? err));

export class NatsMinionLink {
  private stateValue: LinkState = 'idle';
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private attemptCount = 0;
  private heartbeatTimer: TimerHandle | undefined;
  private retryTimer: TimerHandle | undefined;
  private wake: (() => void) | undefined;
  private seq = 0;
  private readyFlag = false;
  private server: string | undefined;
  private stale = false;
  /** Returns on their way to JetStream (by jid), and those to publish again after a failure. */
  private readonly inFlight = new Set<string>();
  private readonly unsent = new Map<string, Return>();
  private readonly backoff: Backoff;
  private acceptanceWait: number;
  private readonly subjects: ReturnType<typeof minionSubjects>;
  /** Jobs run only when signed for this minion by a master of the enrolment file. */
  private readonly jobGate: SignedJobGate;
  readonly endpoint: { host: string; port: number };

  constructor(
    private readonly opts: NatsMinionLinkOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly events: LinkEvents,
  ) {
    this.subjects = minionSubjects(opts.id);
    this.backoff = new Backoff(opts.backoff);
    this.acceptanceWait = opts.acceptanceWaitMs;
    this.endpoint = firstEndpoint(opts.servers);
    this.jobGate = new SignedJobGate(opts.id, opts.enrolment.masters, clock, logger);
  }

  /** Jobs dropped on the job subject (unsigned, untrusted, altered, expired, replayed), by reason. */
  get refusedJobs(): Readonly<SignedJobGate['refused']> {
    return this.jobGate.refused;
  }

  get state(): LinkState {
    return this.stateValue;
  }

  get ready(): boolean {
    return this.readyFlag;
  }

  get attempts(): number {
    return this.attemptCount;
  }

  /** What `brine doctor` shows of the connection: the NATS server in use. */
  get connection(): { state: ConnectionState; resolvedAddress?: string; masterFingerprint?: string; rttMs?: number } | undefined {
    if (this.nc === undefined) return undefined;
    return { state: this.readyFlag ? 'ready' : 'connecting', ...(this.server === undefined ? {} : { resolvedAddress: this.server }) };
  }

  /** Re-reads the state after an await (stop() may have run meanwhile). */
  private isStopped(): boolean {
    return this.stateValue === 'stopped';
  }

  start(): void {
    if (this.stateValue !== 'idle') return;
    this.stateValue = 'connecting';
    void this.loop();
  }

  stop(): void {
    if (this.stateValue === 'stopped') return;
    const wasReady = this.readyFlag;
    this.stateValue = 'stopped';
    this.readyFlag = false;
    this.heartbeatTimer?.cancel();
    this.retryTimer?.cancel();
    this.wake?.();
    const nc = this.nc;
    if (nc) {
      if (wasReady) this.publish(this.subjects.hb, { t: 'bye', reason: 'shutdown' });
      void nc.drain().catch(() => nc.close());
    }
  }

  /** Sends a message to the masters; false when not connected (the caller keeps it). */
  send(message: MinionMessage): boolean {
    if (!this.readyFlag || this.nc === undefined) return false;
    switch (message.t) {
      case 'return':
        this.publishReturn(message);
        return true;
      case 'file_list':
      case 'file_stat':
      case 'file_read':
        return this.publish(`${this.subjects.req}.file`, message);
      case 'pillar_request':
        return this.publish(`${this.subjects.req}.pillar`, message);
      case 'mine_send':
      case 'mine_get':
      case 'mine_delete':
      case 'mine_flush':
        return this.publish(`${this.subjects.req}.mine`, message);
      default:
        // hello, ping, grains, job_status, bye: every master hears them
        return this.publish(this.subjects.hb, message);
    }
  }

  private publish(subject: string, message: object): boolean {
    try {
      this.nc?.publish(subject, JSON.stringify(message));
      return true;
    } catch (err) {
      this.logger.debug({ err: (err as Error).message, subject }, 'publishing to NATS failed');
      return false;
    }
  }

  /** To JetStream, deduplicated by jid and ID; acknowledged to the return queue when stored. */
  private publishReturn(ret: Return): void {
    const js = this.js;
    if (js === undefined || this.inFlight.has(ret.jid)) return;
    this.inFlight.add(ret.jid);
    this.unsent.delete(ret.jid);
    // the fast path: every master hears the return at once on core NATS and answers the CLI with
    // it, also while JetStream elects a leader; the stream's copy below is the durable one
    this.publish(`${this.subjects.evt}.${FAST_RETURN_TOKEN}`, ret);
    js.publish(`${this.subjects.ret}.${ret.jid}`, JSON.stringify(ret), { msgID: `${ret.jid}/${this.opts.id}`, timeout: this.opts.authTimeoutMs }).then(
      () => {
        this.inFlight.delete(ret.jid);
        this.events.onMessage?.({ t: 'ack', jid: ret.jid });
      },
      (err: unknown) => {
        this.inFlight.delete(ret.jid);
        if (this.isStopped()) return;
        // no quorum, no stream or a lost connection: kept (on disk too) and published again
        this.unsent.set(ret.jid, ret);
        this.logger.warn(
          { jid: ret.jid, code: 'NATS_UNAVAILABLE', err: (err as Error).message },
          `JetStream did not acknowledge the return of job ${ret.jid} (${(err as Error).message}); it stays queued and is sent again`,
        );
        this.scheduleRetry();
      },
    );
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.readyFlag) return;
      for (const ret of [...this.unsent.values()]) this.publishReturn(ret);
    }, this.opts.heartbeatIntervalMs);
  }

  private async loop(): Promise<void> {
    while (!this.isStopped()) {
      this.attemptCount++;
      let delay: number;
      try {
        delay = await this.attempt();
      } catch (err) {
        const e = toBrineError(err);
        if (this.isStopped()) return;
        if (e.code === 'MASTER_KEY_CHANGED' || e.code === 'NATS_JWT_INVALID') {
          this.events.onUntrustedMaster?.(this.endpoint, e);
          if (this.opts.untrustedMasterFatal) return this.fatal(e);
          this.logger.fatal({ code: e.code }, `refusing a sign-in answer: ${e.message}`);
        } else {
          this.logger.warn({ code: e.code, servers: this.opts.servers }, `NATS: ${e.message}`);
        }
        delay = this.backoff.next();
      }
      if (this.isStopped()) return;
      this.stateValue = 'waiting';
      await new Promise<void>((resolve) => {
        const t = this.clock.setTimeout(resolve, delay);
        this.wake = () => {
          t.cancel();
          resolve();
        };
      });
      this.wake = undefined;
      if (this.isStopped()) return;
      this.stateValue = 'connecting';
    }
  }

  /** One sign-in and/or session; resolves to the wait before the next one. */
  private async attempt(): Promise<number> {
    let jwt = this.savedJwt();
    if (jwt === undefined) {
      const answer = await this.signIn();
      if (answer.status !== 'accepted') return this.refused(answer);
      jwt = answer.jwt as string;
      writeFileAtomicSync(this.opts.jwtFile, jwt, 0o600);
      this.acceptanceWait = this.opts.acceptanceWaitMs;
    }
    this.markAccepted(jwt);
    const ended = await this.session(jwt);
    if (ended === 'auth') {
      // revoked (key deleted, rejected or replaced) or issued by a master no longer trusted: ask again
      this.logger.warn({ code: 'AUTH_REJECTED' }, "the NATS servers no longer accept this minion's credentials (its key was deleted, rejected or replaced on the master); signing in again");
      rmSync(this.opts.jwtFile, { force: true });
      return 0;
    }
    return this.backoff.next();
  }

  private savedJwt(): string | undefined {
    let text: string;
    try {
      text = readFileSync(this.opts.jwtFile, 'utf8').trim();
    } catch {
      return undefined;
    }
    try {
      // one the minion checked when it got it; a file mangled since is dropped
      const claims = decodeJwt(text);
      if (claims.sub === this.opts.signer.publicKey('user') && claims.name === this.opts.id) return text;
    } catch {}
    rmSync(this.opts.jwtFile, { force: true });
    return undefined;
  }

  private tlsOptions(): { tls?: { caFile: string } } {
    return this.opts.tlsCaFile === undefined ? {} : { tls: { caFile: this.opts.tlsCaFile } };
  }

  /** Asks the masters to sign in, as a pending key may: through ENROL, with a bearer JWT. */
  private async signIn(): Promise<SigninAnswer> {
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: this.opts.servers,
        authenticator: jwtAuthenticator(this.opts.enrolment.enrolJwt),
        name: `${this.opts.id} (signing in)`,
        reconnect: false,
        timeout: this.opts.authTimeoutMs,
        ...this.tlsOptions(),
      });
    } catch (err) {
      throw new BrineError('NATS_UNAVAILABLE', `cannot reach a NATS server of ${this.opts.servers.join(', ')} to sign in: ${(err as Error).message}`, { cause: err });
    }
    try {
      const reply = await nc.request(SIGNIN_SUBJECT, signinRequest(this.opts.id, this.opts.signer, this.clock.now()), { timeout: this.opts.authTimeoutMs });
      return checkSigninAnswer(reply.data, this.opts.id, this.opts.signer, { brine: this.opts.enrolment.brineAccount }, trustedMasterKeys(this.opts.enrolment));
    } catch (err) {
      if (err instanceof BrineError) throw err;
      throw new BrineError(
        'NATS_UNAVAILABLE',
        `no master answered the sign-in request within ${this.opts.authTimeoutMs} ms (${(err as Error).message}); are the masters running with transport: nats?`,
        { cause: err },
      );
    } finally {
      await nc.close().catch(() => {});
    }
  }

  /** A master of the enrolment file accepted this minion (a JWT it checked, or one kept from before). */
  private markAccepted(jwt: string): void {
    if (this.everAccepted()) return;
    let issuer = '';
    try {
      issuer = decodeJwt(jwt).iss;
    } catch {}
    writeFileAtomicSync(this.opts.acceptedFile, `${JSON.stringify({ issuer, at: new Date(this.clock.now()).toISOString() })}\n`, 0o600);
  }

  private everAccepted(): boolean {
    return existsSync(this.opts.acceptedFile);
  }

  /** The wait while pending (or refused before ever accepted), growing up to acceptance_wait_time_max. */
  private nextAcceptanceWait(): number {
    const wait = this.acceptanceWait;
    if (this.opts.acceptanceWaitMaxMs > 0) this.acceptanceWait = Math.min(this.opts.acceptanceWaitMaxMs, this.acceptanceWait + this.opts.acceptanceWaitMs);
    return wait;
  }

  /** Not accepted: the pure verdict (signin-verdict.ts), applied here: a wait, or the end. */
  private refused(answer: SigninAnswer): number {
    const verdict = judgeSigninAnswer(answer, { id: this.opts.id, everAccepted: this.everAccepted(), rejectedRetry: this.opts.rejectedRetry });
    const secs = (ms: number) => Math.round(ms / 1000);
    switch (verdict.kind) {
      case 'wait': {
        const wait = verdict.wait === 'acceptance' ? this.nextAcceptanceWait() : verdict.wait === 'backoff' ? this.backoff.next() : verdict.wait.ms;
        this.logger[verdict.level]({ code: verdict.code }, `${verdict.message}; asking again in ${secs(wait)} s`);
        return wait;
      }
      case 'untrusted': {
        this.events.onUntrustedMaster?.(this.endpoint, verdict.error);
        if (this.opts.untrustedMasterFatal) {
          this.fatal(verdict.error);
          return 0;
        }
        const wait = this.nextAcceptanceWait();
        this.logger.fatal({ code: verdict.error.code, status: answer.status }, `${verdict.error.message} Next attempt in ${secs(wait)} s.`);
        return wait;
      }
      case 'refused':
        if (verdict.retry) {
          this.logger.error({ code: verdict.error.code }, `${verdict.error.message}; retrying in ${secs(this.acceptanceWait)} s (rejected_retry)`);
          return this.acceptanceWait;
        }
        this.fatal(verdict.error);
        return 0;
    }
  }

  private fatal(err: BrineError): void {
    this.stop();
    this.events.onFatal?.(err);
  }

  /** Connected as this minion until the connection closes for good: 'auth' when refused. */
  private async session(jwt: string): Promise<'auth' | 'closed'> {
    const ping = natsPingSettings(this.opts.heartbeatTimeoutMs);
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: this.opts.servers,
        authenticator: nkeyAuthenticator(this.opts.signer, jwt),
        name: this.opts.id,
        inboxPrefix: this.subjects.inbox,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: Math.max(50, this.opts.backoff.baseMs),
        reconnectJitter: this.opts.backoff.randomize ? Math.max(50, this.opts.backoff.baseMs) : 0,
        timeout: this.opts.authTimeoutMs,
        ...ping,
        ...this.tlsOptions(),
      });
    } catch (err) {
      if (isAuthError(err)) return 'auth';
      throw new BrineError('NATS_UNAVAILABLE', `cannot connect to a NATS server of ${this.opts.servers.join(', ')}: ${(err as Error).message}`, { cause: err });
    }
    if (this.isStopped()) {
      await nc.close();
      return 'closed';
    }
    this.nc = nc;
    this.js = jetstream(nc, { timeout: this.opts.authTimeoutMs });
    this.server = nc.getServer();
    nc.subscribe(this.subjects.job, { callback: (_e, m) => this.onJobMessage(m) });
    nc.subscribe(`${this.subjects.inbox}.${MINION_INBOX_SUFFIX}`, { callback: (_e, m) => this.onMasterMessage(m) });
    void this.watchStatus(nc);
    this.becomeReady();
    const closed = await nc.closed();
    this.down('peer_closed');
    this.nc = undefined;
    this.js = undefined;
    if (this.isStopped()) return 'closed';
    if (closed !== undefined && isAuthError(closed)) return 'auth';
    if (closed !== undefined) this.logger.warn({ code: 'NATS_UNAVAILABLE', err: closed.message }, `the NATS connection closed: ${closed.message}`);
    return 'closed';
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (this.isStopped()) return;
      switch (s.type) {
        case 'staleConnection':
          this.stale = true;
          break;
        case 'disconnect':
          this.logger.warn(
            { server: this.server, stale: this.stale },
            `lost the NATS server ${this.server ?? ''}${this.stale ? ` (no answer to pings within ${Math.round(this.opts.heartbeatTimeoutMs / 1000)} s)` : ''}; moving to another server of the cluster`,
          );
          this.down(this.stale ? 'heartbeat_timeout' : 'peer_closed');
          break;
        case 'reconnect':
          this.stale = false;
          this.server = nc.getServer();
          this.becomeReady();
          break;
        default:
          break;
      }
    }
  }

  private becomeReady(): void {
    if (this.isStopped() || this.readyFlag) return;
    this.readyFlag = true;
    this.stateValue = 'ready';
    this.backoff.reset();
    this.logger.info({ server: this.server }, `connected to NATS server ${this.server ?? ''} as ${this.opts.id}`);
    this.publish(this.subjects.hb, { t: 'hello', versions: [...PROTOCOL_VERSIONS], id: this.opts.id, agent: this.opts.agent });
    this.heartbeatTimer?.cancel();
    this.heartbeatTimer = this.clock.setInterval(() => {
      this.seq = (this.seq + 1) % 2 ** 31;
      this.publish(this.subjects.hb, { t: 'ping', seq: this.seq, returnsQueued: this.opts.returnsQueued() });
    }, this.opts.heartbeatIntervalMs);
    this.events.onReady?.(this.connection as never);
  }

  private down(reason: 'heartbeat_timeout' | 'peer_closed'): void {
    if (!this.readyFlag) return;
    this.readyFlag = false;
    this.heartbeatTimer?.cancel();
    this.heartbeatTimer = undefined;
    if (!this.isStopped()) this.stateValue = 'connecting';
    this.events.onDown?.({ reason, wasReady: true, lastState: 'ready', readyForMs: 0, masterTrusted: true });
  }

  /** A message on the job subject: run only if a trusted master signed it for this minion, once. */
  private onJobMessage(m: Msg): void {
    const verdict = this.jobGate.check((name) => m.headers?.get(name) ?? '', m.data);
    if (!verdict.ok) return;
    let message: MasterMessage;
    try {
      message = decodeMessage<MasterMessage>(m.data, MASTER_MESSAGES);
    } catch (err) {
      this.logger.warn({ subject: m.subject, code: toBrineError(err).code }, `ignored a malformed job from master ${verdict.master}: ${(err as Error).message}`);
      return;
    }
    if (message.t === 'job' && !this.jobGate.firstRun(message.jid, verdict.master, verdict.expiresMs)) return;
    // a repeated find_job only asks again whether a job runs: no replay guard needed
    if (message.t === 'job' || message.t === 'find_job') this.events.onMessage?.(message);
  }

  private onMasterMessage(m: Msg): void {
    let message: MasterMessage;
    try {
      message = decodeMessage<MasterMessage>(m.data, MASTER_MESSAGES);
    } catch (err) {
      this.logger.warn({ subject: m.subject, code: toBrineError(err).code }, `ignored a malformed message from a master: ${(err as Error).message}`);
      return;
    }
    switch (message.t) {
      case 'file_reply':
      case 'pillar_reply':
      case 'mine_reply':
        this.events.onMessage?.(message);
        return;
      default:
        // jobs come only on the job subject, signed; auth, pong, ack and bye belong to the
        // built-in transport's sessions
        return;
    }
  }
}
