// One proxied TCP connection (client socket + upstream socket) and the faults that can be applied
// to it: forward, silent idle drop, blackhole, stall and reset. FaultProxy owns the flows.

import * as net from 'node:net';
import type { Clock, TimerHandle } from '../../src/util/clock.js';

/**
 * connecting: accepted, upstream connect in progress (client bytes wait in the kernel);
 * forwarding: bytes pass both ways; stalled: accepted but never connected upstream (stallNew);
 * blackholed: nothing passes either way (blackhole, per flow or global);
 * dropped: forgotten after being idle too long (idleDrop); closed: both sockets are gone.
 * stalled, blackholed and dropped flows swallow bytes and never send FIN or RST.
 */
export type FlowState = 'connecting' | 'forwarding' | 'stalled' | 'blackholed' | 'dropped' | 'closed';

/** Why a flow ended; the first cause wins. */
export type FlowCloseReason = 'ended' | 'client-error' | 'upstream-error' | 'upstream-refused' | 'reset' | 'proxy-closed';

export interface FlowTarget {
  readonly host: string;
  readonly port: number;
}

export interface FlowSnapshot {
  readonly id: number;
  readonly state: FlowState;
  /** Where this flow was (or would have been) sent; fixed when the flow was accepted. */
  readonly target: FlowTarget;
  /** The client's source port as seen by the proxy (lets a test tell minions apart). */
  readonly clientPort: number;
  /** Bytes forwarded client -> upstream and upstream -> client. */
  readonly bytesUp: number;
  readonly bytesDown: number;
  /** Bytes read and thrown away because the flow was stalled, blackholed or dropped. */
  readonly swallowedUp: number;
  readonly swallowedDown: number;
  /** Bytes the proxy holds for this flow right now (read but not yet written out). */
  readonly bufferedBytes: number;
  /** Clock.now() timestamps. */
  readonly openedAt: number;
  readonly lastActivityAt: number;
  readonly closedAt: number | undefined;
  readonly closeReason: FlowCloseReason | undefined;
}

/** Per-flow controls, for faults that hit one connection while the others keep working. */
export interface FlowControl {
  readonly id: number;
  readonly state: FlowState;
  /** Stop forwarding this flow both ways, silently and for good. */
  blackhole(): void;
  /** RST both sides of this flow. */
  reset(): void;
  /** Idle-drop threshold for this flow only; null turns it off here, undefined follows the proxy. */
  idleDrop(ms: number | null | undefined): void;
  snapshot(): FlowSnapshot;
}

/** What a flow needs from its proxy. */
export interface FlowHost {
  readonly clock: Clock;
  /** The proxy-wide idle-drop threshold, read each time (it can change at runtime). */
  globalIdleDropMs(): number | null;
  countBytes(direction: 'up' | 'down', n: number, swallowed: boolean): void;
  /** Called after every state change, closed included. */
  flowChanged(flow: Flow): void;
}

/** How a new flow starts: connected upstream, or dead from the first byte. */
export type FlowPlan = { readonly kind: 'forward'; readonly target: FlowTarget } | { readonly kind: 'blackhole' | 'stall'; readonly target: FlowTarget };

type Side = 'client' | 'upstream';

export class Flow implements FlowControl {
  private stateValue: FlowState;
  private upstream: net.Socket | undefined;
  private readonly open = new Set<Side>();
  private readonly waitingDrain = new Set<Side>();
  private idleTimer: TimerHandle | undefined;
  private idleOverride: number | null | undefined;
  private lastActivityMono: number;
  private lastActivityWall: number;
  private closedAt: number | undefined;
  private closeReason: FlowCloseReason | undefined;
  private readonly openedAt: number;
  private readonly clientPortValue: number;
  private readonly counts = { bytesUp: 0, bytesDown: 0, swallowedUp: 0, swallowedDown: 0 };

  constructor(
    readonly id: number,
    private readonly client: net.Socket,
    private readonly plan: FlowPlan,
    private readonly host: FlowHost,
  ) {
    this.openedAt = host.clock.now();
    this.lastActivityWall = this.openedAt;
    this.lastActivityMono = host.clock.monotonic();
    this.open.add('client');
    this.clientPortValue = client.remotePort ?? 0;
    client.setNoDelay(true);
    this.wire(client, 'client');
    if (plan.kind === 'forward') {
      // the client stays paused (pauseOnConnect) until upstream is connected, so its early
      // bytes wait in the kernel rather than in our memory
      this.stateValue = 'connecting';
      this.connectUpstream(plan.target);
      this.armIdle();
    } else {
      this.stateValue = plan.kind === 'stall' ? 'stalled' : 'blackholed';
      client.resume();
    }
  }

  get state(): FlowState {
    return this.stateValue;
  }

  blackhole(): void {
    this.kill('blackholed');
  }

  reset(): void {
    if (this.stateValue === 'closed') return;
    this.noteCause('reset');
    for (const sock of this.sockets()) if (!sock.destroyed) sock.resetAndDestroy();
  }

  idleDrop(ms: number | null | undefined): void {
    if (ms !== null && ms !== undefined && !(ms > 0)) throw new Error(`idleDrop needs a positive number of ms, got ${ms}`);
    this.idleOverride = ms;
    this.armIdle();
  }

  /** Re-reads the idle threshold (the proxy calls this when its global setting changes). */
  armIdle(): void {
    this.idleTimer?.cancel();
    this.idleTimer = undefined;
    const ms = this.idleOverride === undefined ? this.host.globalIdleDropMs() : this.idleOverride;
    if (ms === null || (this.stateValue !== 'forwarding' && this.stateValue !== 'connecting')) return;
    // lazily re-armed: bytes only move lastActivity, the timer re-checks when it fires
    const due = this.lastActivityMono + ms - this.host.clock.monotonic();
    this.idleTimer = this.host.clock.setTimeout(
      () => {
        this.idleTimer = undefined;
        if (this.host.clock.monotonic() - this.lastActivityMono >= ms) {
          this.kill('dropped');
        } else this.armIdle();
      },
      Math.max(0, due),
    );
  }

  /** Tears the flow down without ceremony (proxy close). */
  destroy(): void {
    if (this.stateValue === 'closed') return;
    this.noteCause('proxy-closed');
    for (const sock of this.sockets()) sock.destroy();
  }

  snapshot(): FlowSnapshot {
    const buffered = (s: net.Socket | undefined) => (s && !s.destroyed ? s.readableLength + s.writableLength : 0);
    return {
      id: this.id,
      state: this.stateValue,
      target: this.plan.target,
      clientPort: this.clientPortValue,
      ...this.counts,
      bufferedBytes: buffered(this.client) + buffered(this.upstream),
      openedAt: this.openedAt,
      lastActivityAt: this.lastActivityWall,
      closedAt: this.closedAt,
      closeReason: this.closeReason,
    };
  }

  private sockets(): net.Socket[] {
    return this.upstream ? [this.client, this.upstream] : [this.client];
  }

  private connectUpstream(target: FlowTarget): void {
    const up = net.connect({ host: target.host, port: target.port, allowHalfOpen: true });
    this.upstream = up;
    this.open.add('upstream');
    up.setNoDelay(true);
    this.wire(up, 'upstream');
    up.once('connect', () => {
      if (this.stateValue === 'connecting') {
        this.stateValue = 'forwarding';
        this.client.resume();
        this.host.flowChanged(this);
      }
    });
  }

  /** Moves a live flow into a dead state: from now on both sides' bytes are read and discarded. */
  private kill(state: 'blackholed' | 'dropped'): void {
    if (this.stateValue === 'closed' || this.stateValue === 'dropped' || this.stateValue === 'blackholed') return;
    this.stateValue = state;
    this.idleTimer?.cancel();
    this.idleTimer = undefined;
    // keep reading so a sender never sees backpressure it would not see behind a real middlebox
    // (where its kernel would keep retransmitting into the void)
    for (const sock of this.sockets()) if (!sock.destroyed) sock.resume();
    this.waitingDrain.clear();
    this.host.flowChanged(this);
  }

  private other(side: Side): net.Socket | undefined {
    return side === 'client' ? this.upstream : this.client;
  }

  private wire(sock: net.Socket, side: Side): void {
    const direction = side === 'client' ? 'up' : 'down';
    sock.on('data', (chunk: Buffer) => this.onData(sock, side, direction, chunk));
    sock.on('end', () => {
      // a FIN is forwarded only while the flow is alive; a dead flow swallows it like any byte
      const dst = this.other(side);
      if (this.stateValue === 'forwarding' && dst && !dst.destroyed) dst.end();
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (side === 'upstream' && this.stateValue === 'connecting') this.noteCause('upstream-refused');
      else this.noteCause(side === 'client' ? 'client-error' : 'upstream-error');
      void err;
    });
    sock.on('close', (hadError: boolean) => this.onClose(side, hadError));
  }

  private onData(src: net.Socket, side: Side, direction: 'up' | 'down', chunk: Buffer): void {
    const dst = this.other(side);
    if (this.stateValue === 'forwarding' && dst && !dst.destroyed) {
      this.touch();
      this.counts[direction === 'up' ? 'bytesUp' : 'bytesDown'] += chunk.length;
      this.host.countBytes(direction, chunk.length, false);
      if (!dst.write(chunk) && !this.waitingDrain.has(side)) {
        // backpressure: at most one socket buffer plus one chunk is ever held per direction
        this.waitingDrain.add(side);
        src.pause();
        dst.once('drain', () => {
          this.waitingDrain.delete(side);
          if (this.stateValue === 'forwarding' && !src.destroyed) src.resume();
        });
      }
      return;
    }
    this.counts[direction === 'up' ? 'swallowedUp' : 'swallowedDown'] += chunk.length;
    this.host.countBytes(direction, chunk.length, true);
  }

  private onClose(side: Side, hadError: boolean): void {
    this.open.delete(side);
    const alive = this.stateValue === 'forwarding' || this.stateValue === 'connecting';
    const dst = this.other(side);
    if (alive && dst && !dst.destroyed) {
      if (hadError || this.stateValue === 'connecting') dst.resetAndDestroy();
      else finishThenDestroy(dst);
    }
    if (this.open.size === 0) {
      this.noteCause('ended');
      this.idleTimer?.cancel();
      this.idleTimer = undefined;
      this.stateValue = 'closed';
      this.closedAt = this.host.clock.now();
      this.host.flowChanged(this);
    }
  }

  private noteCause(reason: FlowCloseReason): void {
    this.closeReason ??= reason;
  }

  private touch(): void {
    this.lastActivityMono = this.host.clock.monotonic();
    this.lastActivityWall = this.host.clock.now();
  }
}

/** Flushes what is queued for a socket whose peer has gone, then closes it. */
function finishThenDestroy(sock: net.Socket): void {
  if (sock.writableFinished) {
    sock.destroy();
    return;
  }
  sock.once('finish', () => sock.destroy());
  if (!sock.writableEnded) sock.end();
}
