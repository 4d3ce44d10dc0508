// The minion's single-flight reconnect loop for one master: makes a MasterConnection, waits
// for its one outcome, decides what comes next (reconnect with jittered backoff, wait for key
// acceptance, or give up on a rejection), and never lets two attempts overlap.

import type { Clock, TimerHandle } from '../util/clock.js';
import type { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { MinionMessage } from '../protocol/index.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { MasterConnection, type ConnectionDeps, type ConnectionOptions, type ConnectionOutcome, type MasterEndpoint } from './master-connection.js';
import { type LinkEvents, type LinkState, LinkStateMachine, type MinionLink } from './link-contract.js';
import { MasterPool } from './master-pool.js';
import { isRefusal, judgeOutcome, type LinkVerdict } from './link-verdict.js';

/** The pause before trying the next master in a failover list (the pass is not over yet). */
const FAILOVER_STEP_MS = 50;
/** How many distinct problems the link remembers having logged (masters x reasons). */
const MAX_LOGGED_PROBLEMS = 64;

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
  /** untrusted_master_exit: a master that is not trusted ends the link instead of being retried. */
  untrustedMasterFatal?: boolean;
  /**
   * A trusted master refused this minion (no rejected_retry): true ends the link (onFatal), false
   * retries it. Unset: always true. The minion answers false while another master accepts it.
   */
  giveUpOnRefusal?(endpoint: MasterEndpoint, error: BrineError): boolean;
}

/** The link contract (link-contract.ts) on the built-in transport: one TLS connection at a time to a master of its pool. */
export class MasterLink implements MinionLink {
  /** Moves only through the contract's guarded table. */
  private readonly machine = new LinkStateMachine((from, to) => this.safely(() => this.events.onLinkState?.(from, to)));
  /** The live connection: the one attempt, or the signed-in session jobs arrive on. */
  private conn: MasterConnection | undefined;
  /** Only in `probing`: the failback attempt to the first master, beside the live connection. */
  private probe: MasterConnection | undefined;
  private retryTimer: TimerHandle | undefined;
  private failbackTimer: TimerHandle | undefined;
  private readonly backoff: Backoff;
  private acceptanceWait: number;
  private attemptCount = 0;
  /**
   * Problems (master and reason) logged since the last successful connection. A set, not the
   * last one: with failover the masters alternate, so "changed since last time" is every attempt.
   */
  private readonly loggedProblems = new Set<string>();
  readonly pool: MasterPool;

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
    return this.machine.state;
  }

  /** Signed in on a master (a failback probe may be running beside it). */
  get ready(): boolean {
    return this.machine.state === 'ready' || this.machine.state === 'probing';
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
    if (this.machine.state !== 'idle') return;
    this.attempt();
  }

  send(message: MinionMessage): boolean {
    return this.conn?.send(message) ?? false;
  }

  stop(): void {
    if (this.machine.state === 'stopped') return;
    this.machine.move('stopped');
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    this.cancelFailback();
    this.conn?.close('shutdown');
  }

  /** A connection whose state changes and messages count only while it is the live one. */
  private connect(endpoint: MasterEndpoint, onReady: (c: MasterConnection) => void, onClosed: (c: MasterConnection, outcome: ConnectionOutcome) => void): MasterConnection {
    const conn: MasterConnection = new MasterConnection(endpoint, this.deps, this.connOpts, {
      onStateChange: (from, to) => {
        if (this.conn === conn) this.safely(() => this.events.onConnectionState?.(from, to));
      },
      onReady: (c) => onReady(c),
      onMessage: (m) => {
        if (this.conn === conn) this.safely(() => this.events.onMessage?.(m));
      },
      onClosed: (outcome) => onClosed(conn, outcome),
    });
    return conn;
  }

  private attempt(): void {
    if (this.machine.state !== 'idle' && this.machine.state !== 'waiting') return;
    this.retryTimer = undefined;
    this.machine.move('connecting');
    this.attemptCount++;
    this.pool.noteAttempt();
    const conn = this.connect(
      this.pool.current(),
      (c) => {
        if (this.conn !== c || this.machine.state !== 'connecting') return;
        this.becameReady(c);
      },
      (c, outcome) => {
        if (this.conn === c) this.onClosed(outcome);
      },
    );
    this.conn = conn;
    conn.open();
  }

  private becameReady(c: MasterConnection): void {
    this.enterReady();
    this.safely(() => this.events.onReady?.(c));
    this.scheduleFailback();
  }

  /**
   * What being connected resets, whichever way the link got there (a dial, or a failback that
   * took over the probe): the next outage starts from recon_default and acceptance_wait_time, and
   * its problems are logged once again.
   */
  private enterReady(): void {
    this.machine.move('ready');
    this.backoff.reset();
    this.acceptanceWait = this.opts.acceptanceWaitMs;
    this.loggedProblems.clear();
    this.pool.noteReady();
  }

  /** The live connection ended: decide what follows. */
  private onClosed(outcome: ConnectionOutcome): void {
    if (this.machine.state === 'stopped') return;
    this.machine.move('waiting');
    this.cancelFailback();
    this.safely(() => this.events.onDown?.(outcome));
    if (this.isStopped()) return;

    const failed = this.pool.current();
    const verdict = judgeOutcome(outcome, failed, { rejectedRetry: this.opts.rejectedRetry, untrustedMasterFatal: this.opts.untrustedMasterFatal ?? false });
    if (verdict.kind === 'untrusted') {
      this.safely(() => this.events.onUntrustedMaster?.(failed, verdict.error));
      if (this.isStopped()) return;
    }
    const fatal = verdict.kind === 'fatal' || (verdict.kind === 'refused' && (this.opts.giveUpOnRefusal?.(failed, verdict.error) ?? true));
    if (fatal) {
      this.machine.move('stopped');
      this.safely(() => this.events.onFatal?.(verdict.error));
      return;
    }
    if (this.isStopped()) return;
    const passDone = this.pool.noteFailure(outcome.reason);
    const delay = passDone ? this.delayAfter(outcome) : FAILOVER_STEP_MS;
    if (outcome.wasReady) this.backoff.reset();
    const logged = this.logProblem(outcome, delay, failed, verdict.kind === 'retry' ? undefined : verdict);
    if (!passDone) {
      const next = this.pool.current();
      this.logger[logged ? 'info' : 'debug'](
        { from: `${failed.host}:${failed.port}`, to: `${next.host}:${next.port}` },
        `Master ${failed.host} could not be reached (${outcome.reason}); trying the next master ${next.host}`,
      );
    }
    this.safely(() => this.events.onRetryScheduled?.(delay, outcome));
    if (this.isStopped()) return;
    this.retryTimer = this.clock.setTimeout(() => this.attempt(), delay);
  }

  /** Re-reads the state after a callback (which may have stopped us). */
  private isStopped(): boolean {
    return this.machine.stopped;
  }

  private delayAfter(outcome: ConnectionOutcome): number {
    if (outcome.reason === 'auth_busy') {
      // the master said when to come back (already jittered there); never sooner than the floor
      return Math.max(this.opts.backoff.floorMs ?? 50, Math.round(outcome.retryAfterMs ?? (outcome.auth?.retryAfter ?? 1) * 1000));
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
   * it was logged. A master that is not trusted is CRITICAL: it may be an attack.
   */
  private logProblem(outcome: ConnectionOutcome, delay: number, endpoint: MasterEndpoint, verdict?: Exclude<LinkVerdict, { kind: 'retry' }>): boolean {
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
    if (verdict?.kind === 'untrusted') {
      this.logger.fatal({ ...fields, code: verdict.error.code }, `Refusing master ${endpoint.host}:${endpoint.port}: ${verdict.error.message}`);
    } else if (verdict?.kind === 'refused') {
      this.logger.error(
        { ...fields, code: verdict.error.code },
        `Master ${endpoint.host}:${endpoint.port} rejected this minion: ${verdict.error.message}. Another master still accepts this minion, so it keeps running and retries this one every ${Math.round(delay / 1000)} s. Fix: ${verdict.error.fix.replace(/<id>/g, this.connOpts.id)}`,
      );
    } else if (outcome.reason === 'auth_pending') {
      this.logger.error(
        fields,
        `The master has cached the public key for this node (pending). This minion will wait ${Math.round(delay / 1000)} s before attempting to re-authenticate. On the master, accept it with: brine key -a ${this.connOpts.id}`,
      );
    } else {
      this.logger.warn(
        { ...fields, error: outcome.error?.message },
        outcome.wasReady ? `Connection to master ${endpoint.host} lost (${outcome.reason}); reconnecting` : `Cannot connect to master ${endpoint.host} (${outcome.reason}); retrying`,
      );
    }
    return true;
  }

  /** With master_failback on and another master in use, probe the first one now and then. */
  private scheduleFailback(): void {
    if (!this.pool.opts.failback || this.pool.onPrimary() || this.machine.state !== 'ready' || this.failbackTimer) return;
    this.failbackTimer = this.clock.setTimeout(() => this.probePrimary(), this.opts.failbackIntervalMs ?? 30_000);
  }

  private cancelFailback(): void {
    this.failbackTimer?.cancel();
    this.failbackTimer = undefined;
    const probe = this.probe;
    this.probe = undefined;
    probe?.close('shutdown');
  }

  /** ready -> probing: a full connection to the first master; once ready it replaces the live one. */
  private probePrimary(): void {
    this.failbackTimer = undefined;
    if (this.machine.state !== 'ready') return;
    this.machine.move('probing');
    const primary = this.pool.primary();
    const probe = this.connect(
      primary,
      (c) => {
        if (this.probe !== c || this.machine.state !== 'probing') {
          c.close('shutdown');
          return;
        }
        this.takeOver(c, primary);
      },
      (c, outcome) => {
        if (this.conn === c) this.onClosed(outcome);
        else if (this.probe === c) this.probeFailed(outcome, primary);
      },
    );
    this.probe = probe;
    probe.open();
  }

  /** probing -> ready on the first master: the probe becomes the live connection. */
  private takeOver(c: MasterConnection, primary: MasterEndpoint): void {
    const old = this.conn;
    this.probe = undefined;
    this.conn = c;
    this.pool.reset();
    this.enterReady();
    this.logger.info({ master: `${primary.host}:${primary.port}` }, `Failing back to the first master ${primary.host}`);
    old?.close('failback');
    this.safely(() => this.events.onReady?.(c));
  }

  /** probing -> ready on the same master, and another probe later. */
  private probeFailed(outcome: ConnectionOutcome, primary: MasterEndpoint): void {
    this.probe = undefined;
    if (this.machine.state !== 'probing') return;
    this.machine.move('ready');
    const where = `${primary.host}:${primary.port}`;
    const verdict = judgeOutcome(outcome, primary, { rejectedRetry: true, untrustedMasterFatal: false });
    if (verdict.kind === 'untrusted') {
      this.logger.fatal({ master: where, reason: outcome.reason, code: verdict.error.code }, `Cannot fail back to the first master ${primary.host}: ${verdict.error.message}`);
      this.safely(() => this.events.onUntrustedMaster?.(primary, verdict.error));
    } else if (isRefusal(outcome)) {
      // a failed probe is normal while the first master is down; a refusal is not
      this.logger.warn({ master: where, reason: outcome.reason, error: outcome.error?.message }, `Cannot fail back to the first master ${primary.host}: ${outcome.error?.message ?? outcome.reason}`);
    } else this.logger.debug({ master: where, reason: outcome.reason }, 'the first master is not back yet');
    if (!this.isStopped()) this.scheduleFailback();
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err }, 'a connection event handler threw; the link carries on');
    }
  }
}
