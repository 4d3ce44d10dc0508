// The minion's link to the masters when `transport: nats`: one NATS connection to the cluster
// instead of a TLS connection per master. It signs in through the ENROL account until a master
// gives it a user JWT, then connects as itself (its own key signs the server's nonce) with the
// ping interval derived from heartbeat_timeout, so a dead server or path is noticed in time and
// the client moves to another server of the cluster. It implements the link contract
// (src/session/link-contract.ts) through the same guarded transition table as MasterLink, so the
// minion's job, return and request code does not care which transport carries it.
//
// What goes where (src/nats/subjects.ts): jobs and find_job arrive on brine.job.<m>; masters'
// replies (files, pillar, mine) on brine.inbox.<m>.m; hello, heartbeats, grains, job_status and
// bye go to every master on brine.hb.<m>; returns go to JetStream, with a fast copy on core NATS
// (return-publisher.ts).

import { AuthorizationError, connect, type Msg, type NatsConnection, UserAuthenticationExpiredError } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { type CloseReason, decodeMessage, MASTER_MESSAGES, PROTOCOL_VERSIONS, type MasterMessage, type MinionMessage } from '../protocol/index.js';
import { Backoff, type BackoffOptions } from '../session/backoff.js';
import type { ConnectionOutcome } from '../session/master-connection.js';
import { type LinkConnectionView, type LinkEvents, type LinkPeer, type LinkState, LinkStateMachine, type MinionLink } from '../session/link-contract.js';
import { nkeyAuthenticator } from './master-connection.js';
import type { NkeySigner } from './nkeys.js';
import type { SigninAnswer } from './signin.js';
import { judgeSigninAnswer } from './signin-verdict.js';
import type { Enrolment } from './enrolment.js';
import { MINION_INBOX_SUFFIX, minionSubjects } from './subjects.js';
import { NatsReturnPublisher } from './return-publisher.js';
import { natsPingSettings } from './ping-settings.js';
import { SignedJobGate } from './job-gate.js';
import { MinionCredentials, type NatsDial } from './minion-credentials.js';

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

/** The host and port of the first server, for status output (the link has no single master). */
function firstEndpoint(servers: readonly string[]): { host: string; port: number } {
  try {
    const u = new URL(servers[0] ?? 'nats://127.0.0.1:4222');
    return { host: u.hostname, port: Number(u.port || 4222) };
  } catch {
    return { host: servers[0] ?? 'nats', port: 4222 };
  }
}

/**
 * The server's "Authentication Timeout": the CONNECT (with the signed nonce) did not reach it
 * within its authorization timeout. nats.js types it as an AuthorizationError, and gives up on a
 * connection after two in a row, but the credentials were never judged: a loaded server (a dead
 * peer's whole share reconnecting at once, issue 27) or a starved client, not a revocation.
 */
export const isNatsAuthTimeout = (err: unknown): boolean => err instanceof AuthorizationError && /authentication timeout/i.test(err.message);

/**
 * The servers refused this minion's credentials (revoked, expired, or issued by a master they no
 * longer trust): nats.js's typed errors, as it raises them on connect and when it gives up. Not
 * an authentication timeout: signing in again for that would send a whole reconnecting share
 * to the masters for new JWTs while the servers are already overloaded; the link redials with
 * the same JWT after its backoff instead.
 */
export const isNatsAuthError = (err: unknown): boolean => (err instanceof AuthorizationError && !isNatsAuthTimeout(err)) || err instanceof UserAuthenticationExpiredError;

/** The link contract (src/session/link-contract.ts) on NATS: one session to the cluster at a time. */
export class NatsMinionLink implements MinionLink {
  /** Moves only through the contract's guarded table, as MasterLink's does. */
  private readonly machine = new LinkStateMachine((from, to) => this.safely(() => this.events.onLinkState?.(from, to)));
  private nc: NatsConnection | undefined;
  private attemptCount = 0;
  private heartbeatTimer: TimerHandle | undefined;
  private wake: (() => void) | undefined;
  private seq = 0;
  private server: string | undefined;
  private stale = false;
  /** When the link last became ready (clock.monotonic()), for onDown's readyForMs. */
  private readyAt = 0;
  /** The session's JWT was issued by a master of the enrolment file (onDown's masterTrusted). */
  private sessionTrusted = false;
  /** Returns to JetStream, with their fast copies and retries. */
  private readonly returns: NatsReturnPublisher;
  private readonly backoff: Backoff;
  private acceptanceWait: number;
  private readonly subjects: ReturnType<typeof minionSubjects>;
  /** Jobs run only when signed for this minion by a master of the enrolment file. */
  private readonly jobGate: SignedJobGate;
  private readonly credentials: MinionCredentials;
  readonly endpoint: { host: string; port: number };

  /** `dial` is nats.js's connect; the property test passes a stand-in for the network. */
  constructor(
    private readonly opts: NatsMinionLinkOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly events: LinkEvents,
    private readonly dial: NatsDial = connect,
  ) {
    this.subjects = minionSubjects(opts.id);
    this.backoff = new Backoff(opts.backoff);
    this.acceptanceWait = opts.acceptanceWaitMs;
    this.endpoint = firstEndpoint(opts.servers);
    this.jobGate = new SignedJobGate(opts.id, opts.enrolment.masters, clock, logger);
    this.credentials = new MinionCredentials(opts, clock, dial);
    this.returns = new NatsReturnPublisher(
      { id: opts.id, subjects: this.subjects, timeoutMs: opts.authTimeoutMs, retryMs: opts.heartbeatIntervalMs },
      {
        publish: (subject, message) => this.publish(subject, message),
        stored: (jid) => this.safely(() => this.events.onMessage?.({ t: 'ack', jid })),
        ready: () => this.ready,
        stopped: () => this.machine.stopped,
      },
      clock,
      logger,
    );
  }

  /** Jobs dropped on the job subject (unsigned, untrusted, altered, expired, replayed), by reason. */
  get refusedJobs(): Readonly<SignedJobGate['refused']> {
    return this.jobGate.refused;
  }

  get state(): LinkState {
    return this.machine.state;
  }

  get ready(): boolean {
    return this.machine.state === 'ready';
  }

  get attempts(): number {
    return this.attemptCount;
  }

  /** What `brine doctor` shows of the connection: the NATS server in use. */
  get connection(): LinkConnectionView | undefined {
    if (this.nc === undefined) return undefined;
    return { state: this.ready ? 'ready' : 'connecting', ...this.peer() };
  }

  private peer(): LinkPeer {
    return this.server === undefined ? {} : { resolvedAddress: this.server };
  }

  start(): void {
    if (this.machine.state !== 'idle') return;
    this.machine.move('connecting');
    // the loop catches what an attempt throws; a throw here is a bug in the link itself, and a
    // link that ends with a reason beats one stuck without a loop
    void this.loop().catch((err: unknown) => {
      this.logger.fatal({ err }, 'the NATS link failed; stopping it');
      this.fatal(toBrineError(err));
    });
  }

  stop(): void {
    if (this.machine.stopped) return;
    const wasReady = this.ready;
    this.machine.move('stopped');
    this.heartbeatTimer?.cancel();
    this.returns.stop();
    this.wake?.();
    const nc = this.nc;
    if (nc) {
      if (wasReady) this.publish(this.subjects.hb, { t: 'bye', reason: 'shutdown' });
      void nc.drain().catch(() => nc.close());
    }
  }

  /** Sends a message to the masters; false when not connected (the caller keeps it). */
  send(message: MinionMessage): boolean {
    if (!this.ready || this.nc === undefined) return false;
    switch (message.t) {
      case 'return':
        this.returns.send(message);
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
      case 'minion_event':
      case 'state_progress':
        return this.publish(`${this.subjects.req}.event`, message);
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
      this.logger.debug({ err: toBrineError(err).message, subject }, 'publishing to NATS failed');
      return false;
    }
  }

  /** The single-flight loop: one sign-in and/or session at a time, then a wait, until stopped. */
  private async loop(): Promise<void> {
    while (!this.machine.stopped) {
      this.attemptCount++;
      let delay: number;
      try {
        delay = await this.attempt();
      } catch (err) {
        const e = toBrineError(err);
        if (this.machine.stopped) return;
        if (e.code === 'MASTER_KEY_CHANGED' || e.code === 'NATS_JWT_INVALID') {
          this.safely(() => this.events.onUntrustedMaster?.(this.endpoint, e));
          if (this.opts.untrustedMasterFatal) return this.fatal(e);
          this.logger.fatal({ code: e.code }, `refusing a sign-in answer: ${e.message}`);
        } else {
          this.logger.warn({ code: e.code, servers: this.opts.servers }, `NATS: ${e.message}`);
        }
        delay = this.backoff.next();
      }
      if (this.machine.stopped) return;
      // an attempt that never got ready ends here; a session's end has moved to waiting already
      if (this.machine.state !== 'waiting') this.machine.move('waiting');
      await new Promise<void>((resolve) => {
        const t = this.clock.setTimeout(resolve, delay);
        this.wake = () => {
          t.cancel();
          resolve();
        };
      });
      this.wake = undefined;
      if (this.machine.stopped) return;
      this.machine.move('connecting');
    }
  }

  /** One sign-in and/or session; resolves to the wait before the next one. */
  private async attempt(): Promise<number> {
    let jwt = this.credentials.savedJwt();
    if (jwt === undefined) {
      const answer = await this.credentials.signIn();
      if (answer.status !== 'accepted') return this.refused(answer);
      // checkSigninAnswer refuses an accepted answer without one
      if (answer.jwt === undefined) throw new BrineError('MESSAGE_INVALID', 'an accepted sign-in answer without a JWT');
      jwt = answer.jwt;
      this.credentials.saveJwt(jwt);
      this.acceptanceWait = this.opts.acceptanceWaitMs;
    }
    this.credentials.markAccepted(jwt);
    const ended = await this.session(jwt);
    if (ended === 'auth') {
      // revoked (key deleted, rejected or replaced) or issued by a master no longer trusted: ask again
      this.logger.warn({ code: 'AUTH_REJECTED' }, "the NATS servers no longer accept this minion's credentials (its key was deleted, rejected or replaced on the master); signing in again");
      this.credentials.forgetJwt();
      return 0;
    }
    return this.backoff.next();
  }

  /** The wait while pending (or refused before ever accepted), growing up to acceptance_wait_time_max. */
  private nextAcceptanceWait(): number {
    const wait = this.acceptanceWait;
    if (this.opts.acceptanceWaitMaxMs > 0) this.acceptanceWait = Math.min(this.opts.acceptanceWaitMaxMs, this.acceptanceWait + this.opts.acceptanceWaitMs);
    return wait;
  }

  /** Not accepted: the pure verdict (signin-verdict.ts), applied here: a wait, or the end. */
  private refused(answer: SigninAnswer): number {
    const verdict = judgeSigninAnswer(answer, { id: this.opts.id, everAccepted: this.credentials.everAccepted(), rejectedRetry: this.opts.rejectedRetry });
    const secs = (ms: number) => Math.round(ms / 1000);
    switch (verdict.kind) {
      case 'wait': {
        const wait = verdict.wait === 'acceptance' ? this.nextAcceptanceWait() : verdict.wait === 'backoff' ? this.backoff.next() : verdict.wait.ms;
        this.logger[verdict.level]({ code: verdict.code }, `${verdict.message}; asking again in ${secs(wait)} s`);
        return wait;
      }
      case 'untrusted': {
        this.safely(() => this.events.onUntrustedMaster?.(this.endpoint, verdict.error));
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
    this.safely(() => this.events.onFatal?.(err));
  }

  /** Connected as this minion until the connection closes for good: 'auth' when refused. */
  private async session(jwt: string): Promise<'auth' | 'closed'> {
    const ping = natsPingSettings(this.opts.heartbeatTimeoutMs);
    let nc: NatsConnection;
    try {
      nc = await this.dial({
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
        ...this.credentials.tlsOptions(),
      });
    } catch (err) {
      if (isNatsAuthError(err)) return 'auth';
      throw new BrineError('NATS_UNAVAILABLE', `cannot connect to a NATS server of ${this.opts.servers.join(', ')}: ${toBrineError(err).message}`, { cause: err });
    }
    if (this.machine.stopped) {
      await nc.close();
      return 'closed';
    }
    this.nc = nc;
    this.returns.attach(jetstream(nc, { timeout: this.opts.authTimeoutMs }));
    this.server = nc.getServer();
    this.sessionTrusted = this.credentials.issuedByTrustedMaster(jwt);
    nc.subscribe(this.subjects.job, { callback: (_e, m) => this.onJobMessage(m) });
    nc.subscribe(`${this.subjects.inbox}.${MINION_INBOX_SUFFIX}`, { callback: (_e, m) => this.onMasterMessage(m) });
    // a throw there is a bug in the link: the session ends and the loop dials again, never stuck
    this.watchStatus(nc).catch((err: unknown) => {
      this.logger.error({ err }, 'watching the NATS connection failed; closing it to start a new session');
      void nc.close().catch(() => undefined);
    });
    this.becomeReady(nc);
    const closed = await nc.closed();
    this.down('peer_closed', 'waiting');
    this.nc = undefined;
    this.returns.attach(undefined);
    if (this.machine.stopped) return 'closed';
    if (closed !== undefined && isNatsAuthError(closed)) return 'auth';
    if (closed !== undefined && isNatsAuthTimeout(closed))
      this.logger.warn(
        { code: 'NATS_UNAVAILABLE', err: closed.message },
        "the NATS servers did not take this minion's credentials within their authorization timeout (a loaded server, e.g. a lost server's minions reconnecting at once); dialling again with the same credentials",
      );
    else if (closed !== undefined) this.logger.warn({ code: 'NATS_UNAVAILABLE', err: closed.message }, `the NATS connection closed: ${closed.message}`);
    return 'closed';
  }

  /** nats.js's own reconnects inside the session: ready -> reconnecting -> ready. */
  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (this.machine.stopped || this.nc !== nc) return;
      switch (s.type) {
        case 'staleConnection':
          this.stale = true;
          break;
        case 'disconnect':
          this.logger.warn(
            { server: this.server, stale: this.stale },
            `lost the NATS server ${this.server ?? ''}${this.stale ? ` (no answer to pings within ${Math.round(this.opts.heartbeatTimeoutMs / 1000)} s)` : ''}; moving to another server of the cluster`,
          );
          this.down(this.stale ? 'heartbeat_timeout' : 'peer_closed', 'reconnecting');
          break;
        case 'reconnect':
          this.stale = false;
          this.server = nc.getServer();
          this.becomeReady(nc);
          break;
        default:
          break;
      }
    }
  }

  /** connecting (a new session) or reconnecting (the client is back on a server) -> ready. */
  private becomeReady(nc: NatsConnection): void {
    const from = this.machine.state;
    if (this.nc !== nc || (from !== 'connecting' && from !== 'reconnecting')) return;
    this.machine.move('ready');
    this.readyAt = this.clock.monotonic();
    this.backoff.reset();
    this.logger.info({ server: this.server }, `connected to NATS server ${this.server ?? ''} as ${this.opts.id}`);
    this.publish(this.subjects.hb, { t: 'hello', versions: [...PROTOCOL_VERSIONS], id: this.opts.id, agent: this.opts.agent });
    this.heartbeatTimer?.cancel();
    this.heartbeatTimer = this.clock.setInterval(() => {
      this.seq = (this.seq + 1) % 2 ** 31;
      this.publish(this.subjects.hb, { t: 'ping', seq: this.seq, returnsQueued: this.opts.returnsQueued() });
    }, this.opts.heartbeatIntervalMs);
    this.safely(() => this.events.onReady?.(this.peer()));
  }

  /**
   * The server went away: `reconnecting` while nats.js redials within the session, `waiting`
   * once the session has closed. onDown once per ready period, with its real figures.
   */
  private down(reason: Extract<CloseReason, 'heartbeat_timeout' | 'peer_closed'>, to: 'reconnecting' | 'waiting'): void {
    const from = this.machine.state;
    if (from !== 'ready' && from !== 'reconnecting') return;
    this.heartbeatTimer?.cancel();
    this.heartbeatTimer = undefined;
    if (from === to) return;
    this.machine.move(to);
    if (from !== 'ready') return;
    const outcome: ConnectionOutcome = { reason, wasReady: true, lastState: 'ready', readyForMs: this.clock.monotonic() - this.readyAt, masterTrusted: this.sessionTrusted };
    this.safely(() => this.events.onDown?.(outcome));
  }

  /** A message on the job subject: run only if a trusted master signed it for this minion, once. */
  private onJobMessage(m: Msg): void {
    const verdict = this.jobGate.check((name) => m.headers?.get(name) ?? '', m.data);
    if (!verdict.ok) return;
    let message: MasterMessage;
    try {
      message = decodeMessage<MasterMessage>(m.data, MASTER_MESSAGES);
    } catch (err) {
      const e = toBrineError(err);
      this.logger.warn({ subject: m.subject, code: e.code }, `ignored a malformed job from master ${verdict.master}: ${e.message}`);
      return;
    }
    if (message.t === 'job' && !this.jobGate.firstRun(message.jid, verdict.master, verdict.expiresMs)) return;
    // a repeated find_job only asks again whether a job runs: no replay guard needed
    if (message.t === 'job' || message.t === 'find_job') this.safely(() => this.events.onMessage?.(message));
  }

  private onMasterMessage(m: Msg): void {
    let message: MasterMessage;
    try {
      message = decodeMessage<MasterMessage>(m.data, MASTER_MESSAGES);
    } catch (err) {
      const e = toBrineError(err);
      this.logger.warn({ subject: m.subject, code: e.code }, `ignored a malformed message from a master: ${e.message}`);
      return;
    }
    switch (message.t) {
      case 'file_reply':
      case 'pillar_reply':
      case 'mine_reply':
      case 'event_reply':
        this.safely(() => this.events.onMessage?.(message));
        return;
      default:
        // jobs come only on the job subject, signed; auth, pong, ack and bye belong to the
        // built-in transport's sessions
        return;
    }
  }

  /** An event handler that throws is logged; the link carries on (as MasterLink's). */
  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err }, 'a link event handler threw; the link carries on');
    }
  }
}
