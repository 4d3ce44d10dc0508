// A userland TCP proxy on loopback that sits between a minion and a master and injects network
// faults at runtime: silent NAT idle drops, blackholes, resets, stalled accepts and retargeting.
//
// It is byte-transparent (TLS passes through untouched) but it is a TCP endpoint itself, so
// what the peers' kernels see differs from a real middlebox in ways fault tests must respect:
// - the proxy's kernel ACKs every byte and every TCP keepalive probe, so a flow it has dropped or
//   blackholed is only detected by application-level heartbeats, never by tcp_keepalive_* or
//   TCP_USER_TIMEOUT; and keepalive probes do not count as activity for idleDrop (a real NAT
//   would be refreshed by them). Use test/faults/netns.ts where kernel behaviour matters;
// - blackhole() and stallNew() complete the TCP handshake for new connections and then say
//   nothing, whereas a kernel DROP never completes it (connect() hangs, then times out).

import * as net from 'node:net';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { Flow, type FlowControl, type FlowPlan, type FlowSnapshot, type FlowTarget } from './flow.js';

export interface FaultProxyOptions {
  /** Where flows are forwarded to (until retarget()). */
  readonly target: FlowTarget;
  /** Port to listen on; 0 (the default) picks a free one, read it back from `port`. */
  readonly listenPort?: number;
  /** Address to listen on; loopback by default. */
  readonly listenHost?: string;
  readonly clock?: Clock;
}

/** What happens to connections accepted from now on. */
export type NewFlowMode = 'forward' | 'blackhole' | 'stall';

export interface FaultProxyStats {
  readonly flowsOpened: number;
  readonly flowsClosed: number;
  /** Flows not yet closed (including dead ones whose sockets are still open). */
  readonly flowsOpen: number;
  readonly idleDrops: number;
  readonly bytesUp: number;
  readonly bytesDown: number;
  readonly swallowedUp: number;
  readonly swallowedDown: number;
}

export interface WaitForFlowsOptions {
  /** Default 10 s. */
  readonly timeoutMs?: number;
  /** Count only flows currently in the forwarding state instead of every flow ever opened. */
  readonly forwarding?: boolean;
}

/** Closed flows kept for inspection; older ones are forgotten so a soak cannot grow memory. */
const CLOSED_HISTORY = 2000;

interface Waiter {
  check(): boolean;
}

export class FaultProxy {
  private readonly server: net.Server;
  private readonly clock: Clock;
  private readonly all = new Map<number, Flow>();
  private closedIds: number[] = [];
  private readonly waiters = new Set<Waiter>();
  private targetValue: FlowTarget;
  private newFlowMode: NewFlowMode = 'forward';
  private idleDropMs: number | null = null;
  private nextId = 1;
  private closing: Promise<void> | undefined;
  private readonly totals = { flowsOpened: 0, flowsClosed: 0, idleDrops: 0, bytesUp: 0, bytesDown: 0, swallowedUp: 0, swallowedDown: 0 };

  private constructor(options: FaultProxyOptions) {
    this.clock = options.clock ?? systemClock;
    this.targetValue = { ...options.target };
    // pauseOnConnect: nothing is read from a client before its flow decides what to do with it
    this.server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (sock) => this.accept(sock));
  }

  /** Starts listening; the proxy forwards everything until told otherwise. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const proxy = new FaultProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(options.listenPort ?? 0, options.listenHost ?? '127.0.0.1', () => {
        proxy.server.off('error', reject);
        resolve();
      });
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  get host(): string {
    return (this.server.address() as net.AddressInfo).address;
  }

  get target(): FlowTarget {
    return this.targetValue;
  }

  get mode(): NewFlowMode {
    return this.newFlowMode;
  }

  get idleDropAfterMs(): number | null {
    return this.idleDropMs;
  }

  /** Back to normal for new flows and no idle drop; flows already dead stay dead. */
  forward(): void {
    this.guard('forward');
    this.newFlowMode = 'forward';
    this.setIdleDrop(null);
  }

  /**
   * Emulates a NAT that forgets a flow idle (no byte either way) for longer than `ms`: the flow
   * then forwards nothing, both ways, with no FIN and no RST. Applies to live and new flows;
   * null turns it off (flows already dropped stay dropped).
   */
  idleDrop(ms: number | null): void {
    this.guard('idleDrop');
    if (ms !== null && !(ms > 0)) throw new Error(`idleDrop needs a positive number of ms or null, got ${ms}`);
    this.setIdleDrop(ms);
  }

  /**
   * Silently stops forwarding every current flow both ways, and accepts new connections at TCP
   * level without forwarding them (unlike a kernel DROP, whose handshake never completes).
   */
  blackhole(): void {
    this.guard('blackhole');
    this.newFlowMode = 'blackhole';
    for (const flow of this.all.values()) flow.blackhole();
  }

  /** New flows forward again (after blackhole or stallNew); dead flows stay dead, as in reality. */
  restore(): void {
    this.guard('restore');
    this.newFlowMode = 'forward';
  }

  /** RST both sides of every flow that is still open. */
  resetAll(): void {
    this.guard('resetAll');
    for (const flow of this.all.values()) flow.reset();
  }

  /** New connections are accepted but never connected upstream: a peer that accepts TCP and never speaks. */
  stallNew(): void {
    this.guard('stallNew');
    this.newFlowMode = 'stall';
  }

  /** New flows go to host:port (a moved DNS name, a failover); existing flows keep their target. */
  retarget(host: string, port: number): void {
    this.guard('retarget');
    this.targetValue = { host, port };
  }

  /** Every flow still open and the most recent closed ones, oldest first. */
  get flows(): FlowSnapshot[] {
    return [...this.all.values()].map((f) => f.snapshot());
  }

  /** Controls for one flow (blackhole, reset, idleDrop just for it). */
  flow(id: number): FlowControl | undefined {
    return this.all.get(id);
  }

  get stats(): FaultProxyStats {
    return { ...this.totals, flowsOpen: this.totals.flowsOpened - this.totals.flowsClosed };
  }

  /**
   * Resolves once `n` flows have been opened since start (or, with `forwarding`, once `n` are
   * forwarding at the same time), with the flows at that moment.
   */
  waitForFlows(n: number, options: WaitForFlowsOptions = {}): Promise<FlowSnapshot[]> {
    const count = () => (options.forwarding ? this.flows.filter((f) => f.state === 'forwarding').length : this.totals.flowsOpened);
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        check: () => {
          if (count() < n) return false;
          timer.cancel();
          resolve(this.flows);
          return true;
        },
      };
      const timer = this.clock.setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`FaultProxy: ${count()} of ${n} ${options.forwarding ? 'forwarding ' : ''}flows after ${timeoutMs} ms (is the client pointed at port ${this.port}?)`));
      }, timeoutMs);
      if (!waiter.check()) this.waiters.add(waiter);
    });
  }

  /** Closes the listener and destroys every flow; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const flow of this.all.values()) flow.destroy();
    });
    return this.closing;
  }

  private guard(op: string): void {
    if (this.closing) throw new Error(`FaultProxy.${op}() called after close(); start a new proxy`);
  }

  private setIdleDrop(ms: number | null): void {
    this.idleDropMs = ms;
    for (const flow of this.all.values()) flow.armIdle();
  }

  private accept(sock: net.Socket): void {
    if (this.closing) {
      sock.destroy();
      return;
    }
    const target = this.targetValue;
    const plan: FlowPlan = this.newFlowMode === 'forward' ? { kind: 'forward', target } : { kind: this.newFlowMode, target };
    const id = this.nextId++;
    const flow = new Flow(id, sock, plan, {
      clock: this.clock,
      globalIdleDropMs: () => this.idleDropMs,
      countBytes: (direction, n, swallowed) => {
        const key = swallowed ? (direction === 'up' ? 'swallowedUp' : 'swallowedDown') : direction === 'up' ? 'bytesUp' : 'bytesDown';
        this.totals[key] += n;
      },
      flowChanged: (f) => this.flowChanged(f),
    });
    this.all.set(id, flow);
    this.totals.flowsOpened++;
    this.notify();
  }

  private flowChanged(flow: Flow): void {
    if (flow.state === 'dropped') this.totals.idleDrops++;
    if (flow.state !== 'closed') {
      this.notify();
      return;
    }
    this.totals.flowsClosed++;
    this.closedIds.push(flow.id);
    if (this.closedIds.length > CLOSED_HISTORY) {
      const forget = this.closedIds.slice(0, this.closedIds.length - CLOSED_HISTORY);
      this.closedIds = this.closedIds.slice(-CLOSED_HISTORY);
      for (const id of forget) this.all.delete(id);
    }
    this.notify();
  }

  private notify(): void {
    for (const w of [...this.waiters]) if (w.check()) this.waiters.delete(w);
  }
}
