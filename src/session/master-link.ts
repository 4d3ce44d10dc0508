// The minion's single-flight reconnect loop for one master: makes a MasterConnection, waits
// for its one outcome, decides what comes next (reconnect with jittered backoff, wait for key
// acceptance, or give up on a rejection), and never lets two attempts overlap.

import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { Ack, FindJob, Job, MinionMessage } from '../protocol/index.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import {
  MasterConnection,
  type ConnectionDeps,
  type ConnectionOptions,
  type ConnectionOutcome,
  type ConnectionState,
  type MasterEndpoint,
} from './master-connection.js';
import { MasterPool } from './master-pool.js';

/** The pause before trying the next master in a failover list (the pass is not over yet). */
const FAILOVER_STEP_MS = 50;
/** How many distinct problems the link remembers having logged (masters x reasons). */
const MAX_LOGGED_PROBLEMS = 64;

export type LinkState = 'idle' | 'connecting' | 'ready' | 'waiting' | 'stopped';

export interface LinkOptions {
  backoff: BackoffOptions;
  /** acceptance_wait_time, ms: the wait between tries while the key is pending. */
  acceptanceWaitMs: number;
  /** acceptance_wait_time_max, ms: 0 = the wait does not grow. */
  acceptanceWaitMaxMs: number;
  /** rejected_retry: keep retrying after a rejection instead of giving up. */
  rejectedRetry: boolean;
  /** master_failback_interval, ms: how often to probe the first master while on another. */
  failbackIntervalMs?: number;
}

export interface LinkEvents {
  onReady?(conn: MasterConnection): void;
  onDown?(outcome: ConnectionOutcome): void;
  onMessage?(message: Job | Ack | FindJob): void;
  onConnectionState?(from: ConnectionState, to: ConnectionState): void;
  /** A refusal that retrying cannot fix (rejected key without rejected_retry, changed master key). */
  onFatal?(error: BrineError): void;
  /** Each scheduled retry, for logs and tests. */
  onRetryScheduled?(delayMs: number, outcome: ConnectionOutcome): void;
}

export class MasterLink {
  private stateValue: LinkState = 'idle';
  private conn: MasterConnection | undefined;
  private retryTimer: TimerHandle | undefined;
  private readonly backoff: Backoff;
  private acceptanceWait: number;
  private attemptCount = 0;
  /**
   * Problems (master and reason) logged since the last successful connection. A set, not the
   * last one: with failover the masters alternate, so "changed since last time" is every attempt.
   */
  private readonly loggedProblems = new Set<string>();
  readonly pool: MasterPool;
  private failbackTimer: TimerHandle | undefined;
  private probe: MasterConnection | undefined;

  constructor(
    target: MasterEndpoint | MasterPool,
    private readonly deps: ConnectionDeps,
    private readonly connOpts: ConnectionOptions,
    private readonly opts: LinkOptions,
    private readonly events: LinkEvents,
    random?: () => number,
  ) {
    this.backoff = new Backoff(opts.backoff, random);
    this.acceptanceWait = opts.acceptanceWaitMs;
    this.pool = target instanceof MasterPool ? target : MasterPool.single(target);
  }

  /** The master in use (or being tried) now. */
  get endpoint(): MasterEndpoint {
    return this.pool.current();
  }

  get state(): LinkState {
    return this.stateValue;
  }

  get connection(): MasterConnection | undefined {
    return this.conn;
  }

  get attempts(): number {
    return this.attemptCount;
  }

  private get clock(): Clock {
    return this.deps.clock;
  }

  private get logger(): Logger {
    return this.deps.logger;
  }

  start(): void {
    if (this.stateValue !== 'idle') return;
    this.attempt();
  }

  send(message: MinionMessage): boolean {
    return this.conn?.send(message) ?? false;
  }

  stop(): void {
    if (this.stateValue === 'stopped') return;
    this.stateValue = 'stopped';
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    this.cancelFailback();
    this.conn?.close('shutdown');
  }

  private attempt(): void {
    if (this.stateValue === 'stopped' || this.stateValue === 'connecting' || this.stateValue === 'ready') return;
    this.retryTimer = undefined;
    this.stateValue = 'connecting';
    this.attemptCount++;
    this.pool.noteAttempt();
    const conn = new MasterConnection(this.pool.current(), this.deps, this.connOpts, {
      onStateChange: (from, to) => this.safely(() => this.events.onConnectionState?.(from, to)),
      onReady: (c) => {
        if (this.conn !== c || this.stateValue === 'stopped') return;
        this.stateValue = 'ready';
        this.backoff.reset();
        this.acceptanceWait = this.opts.acceptanceWaitMs;
        this.loggedProblems.clear();
        this.pool.noteReady();
        this.safely(() => this.events.onReady?.(c));
        this.scheduleFailback();
      },
      onMessage: (m) => this.safely(() => this.events.onMessage?.(m)),
      onClosed: (outcome) => this.onClosed(conn, outcome),
    });
    this.conn = conn;
    conn.open();
  }

  private onClosed(conn: MasterConnection, outcome: ConnectionOutcome): void {
    if (this.conn !== conn) return;
    if (this.stateValue === 'stopped') return;
    this.stateValue = 'waiting';
    this.cancelFailback();
    this.safely(() => this.events.onDown?.(outcome));
    if (this.isStopped()) return;

    const fatal = this.fatalError(outcome);
    if (fatal) {
      this.stateValue = 'stopped';
      this.safely(() => this.events.onFatal?.(fatal));
      return;
    }
    const failed = this.pool.current();
    const passDone = this.pool.noteFailure(outcome.reason);
    const delay = passDone ? this.delayAfter(outcome) : FAILOVER_STEP_MS;
    if (outcome.wasReady) this.backoff.reset();
    const logged = this.logProblem(outcome, delay, failed);
    if (!passDone) {
      const next = this.pool.current();
      this.logger[logged ? 'info' : 'debug']({ from: `${failed.host}:${failed.port}`, to: `${next.host}:${next.port}` }, `Master ${failed.host} could not be reached (${outcome.reason}); trying the next master ${next.host}`);
    }
    this.safely(() => this.events.onRetryScheduled?.(delay, outcome));
    if (this.isStopped()) return;
    this.retryTimer = this.clock.setTimeout(() => this.attempt(), delay);
  }

  /** Re-reads the state after a callback (which may have stopped us). */
  private isStopped(): boolean {
    return this.stateValue === 'stopped';
  }

  private fatalError(outcome: ConnectionOutcome): BrineError | undefined {
    const err = outcome.error instanceof BrineError ? outcome.error : undefined;
    if (outcome.reason === 'master_key_changed') return err ?? new BrineError('MASTER_KEY_CHANGED', 'master key changed');
    const refused = outcome.reason === 'auth_rejected' || outcome.reason === 'auth_denied' || outcome.reason === 'invalid_id';
    if (refused && !this.opts.rejectedRetry && err?.code !== 'AUTH_FULL') return err ?? new BrineError('AUTH_REJECTED', 'rejected by the master');
    return undefined;
  }

  private delayAfter(outcome: ConnectionOutcome): number {
    if (outcome.reason === 'auth_busy') {
      // the master said when to come back (already jittered there); never sooner than the floor
      return Math.max(this.opts.backoff.floorMs ?? 50, Math.round((outcome.auth?.retryAfter ?? 1) * 1000));
    }
    const refused = outcome.reason === 'auth_pending' || outcome.reason === 'auth_rejected' || outcome.reason === 'auth_denied' || outcome.reason === 'invalid_id';
    if (refused) {
      const wait = this.acceptanceWait;
      // Salt doubles the wait while below acceptance_wait_time_max (0 = never grows)
      if (this.opts.acceptanceWaitMaxMs > 0 && this.acceptanceWait < this.opts.acceptanceWaitMaxMs) {
        this.acceptanceWait = Math.min(this.opts.acceptanceWaitMaxMs, this.acceptanceWait * 2);
      }
      return wait;
    }
    if (outcome.wasReady) this.backoff.reset();
    return this.backoff.next();
  }

  /**
   * Logs a problem once per outage and master, not once per attempt: each (master, reason) is
   * logged the first time it happens after a success, later repeats go to debug. Returns whether
   * it was logged.
   */
  private logProblem(outcome: ConnectionOutcome, delay: number, endpoint: MasterEndpoint): boolean {
    const problem = `${endpoint.host}:${endpoint.port}:${outcome.reason}`;
    const fields = { master: `${endpoint.host}:${endpoint.port}`, reason: outcome.reason, retryInMs: delay, attempt: this.attemptCount };
    if (!outcome.wasReady && this.loggedProblems.has(problem)) {
      this.logger.debug({ ...fields, error: outcome.error?.message }, 'still unable to connect');
      return false;
    }
    // bounded: a clear only means a problem may be logged once more
    if (this.loggedProblems.size >= MAX_LOGGED_PROBLEMS) this.loggedProblems.clear();
    // a lost connection is always news; a failed reconnect after it is logged once on its own
    if (!outcome.wasReady) this.loggedProblems.add(problem);
    if (outcome.reason === 'auth_pending') {
      this.logger.error(fields, `The master has cached the public key for this node (pending). This minion will wait ${Math.round(delay / 1000)} s before attempting to re-authenticate. On the master, accept it with: brine key -a ${this.connOpts.id}`);
    } else {
      this.logger.warn({ ...fields, error: outcome.error?.message }, outcome.wasReady ? `Connection to master ${endpoint.host} lost (${outcome.reason}); reconnecting` : `Cannot connect to master ${endpoint.host} (${outcome.reason}); retrying`);
    }
    return true;
  }

  /** With master_failback on and another master in use, probe the first one now and then. */
  private scheduleFailback(): void {
    if (!this.pool.opts.failback || this.pool.onPrimary() || this.stateValue !== 'ready' || this.failbackTimer) return;
    this.failbackTimer = this.clock.setTimeout(() => this.probePrimary(), this.opts.failbackIntervalMs ?? 30_000);
  }

  private cancelFailback(): void {
    this.failbackTimer?.cancel();
    this.failbackTimer = undefined;
    const probe = this.probe;
    this.probe = undefined;
    probe?.close('shutdown');
  }

  /** A full connection to the first master; once it is ready it replaces the current one. */
  private probePrimary(): void {
    this.failbackTimer = undefined;
    if (this.stateValue !== 'ready') return;
    const primary = this.pool.primary();
    const probe: MasterConnection = new MasterConnection(primary, this.deps, this.connOpts, {
      onReady: (c) => {
        if (this.probe !== c || this.stateValue !== 'ready') {
          c.close('shutdown');
          return;
        }
        const old = this.conn;
        this.probe = undefined;
        this.conn = c;
        this.pool.reset();
        this.pool.noteReady();
        this.logger.info({ master: `${primary.host}:${primary.port}` }, `Failing back to the first master ${primary.host}`);
        old?.close('failback');
        this.safely(() => this.events.onReady?.(c));
      },
      onMessage: (m) => {
        if (this.conn === probe) this.safely(() => this.events.onMessage?.(m));
      },
      onClosed: (outcome) => {
        if (this.conn === probe) {
          this.onClosed(probe, outcome);
          return;
        }
        if (this.probe === probe) {
          this.probe = undefined;
          // a failed probe is normal while the first master is down; a refusal is not
          const refused = outcome.reason === 'master_key_changed' || outcome.reason === 'auth_rejected' || outcome.reason === 'auth_denied' || outcome.reason === 'invalid_id';
          if (refused) this.logger.warn({ master: `${primary.host}:${primary.port}`, reason: outcome.reason, error: outcome.error?.message }, `Cannot fail back to the first master ${primary.host}: ${outcome.error?.message ?? outcome.reason}`);
          else this.logger.debug({ master: `${primary.host}:${primary.port}`, reason: outcome.reason }, 'the first master is not back yet');
          this.scheduleFailback();
        }
      },
    });
    this.probe = probe;
    probe.open();
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err }, 'a connection event handler threw; the link carries on');
    }
  }
}
