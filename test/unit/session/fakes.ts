// Test doubles for the session layer: a Channel the test drives by hand, and ConnectionDeps
// whose DNS and dial steps the test settles when it wants (or lets settle at once).

import type { Channel, ChannelClose, CloseReason, MasterMessage, MinionMessage, Auth } from '../../../src/protocol/index.js';
import type { ConnectionDeps, ConnectionOptions } from '../../../src/session/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { BrineError } from '../../../src/util/errors.js';

export class FakeChannel implements Channel<MasterMessage, MinionMessage> {
  readonly remoteAddress = '192.0.2.10:4506';
  readonly peerFingerprint = 'ab:cd:ef';
  readonly peerPublicKeyPem = '-----BEGIN PUBLIC KEY-----\nfake\n-----END PUBLIC KEY-----\n';
  readonly sent: MinionMessage[] = [];
  readonly closeCalls: Array<{ reason: CloseReason; error?: Error }> = [];
  readonly maxFrames: number[] = [];
  closeInfo: ChannelClose | undefined;
  private messageHandlers: Array<(m: MasterMessage) => void> = [];
  private closeHandlers: Array<(info: ChannelClose) => void> = [];

  get closed(): boolean {
    return this.closeInfo !== undefined;
  }

  send(message: MinionMessage): boolean {
    if (this.closeInfo) return false;
    this.sent.push(message);
    return true;
  }

  close(reason: CloseReason, error?: Error): void {
    this.closeCalls.push(error === undefined ? { reason } : { reason, error });
    this.finish({ reason, local: true, ...(error ? { error } : {}) });
  }

  onMessage(fn: (message: MasterMessage) => void): void {
    this.messageHandlers.push(fn);
  }

  onClose(fn: (info: ChannelClose) => void): void {
    this.closeHandlers.push(fn);
  }

  setMaxFrame(bytes: number): void {
    this.maxFrames.push(bytes);
  }

  /** The master sends a message. */
  deliver(message: MasterMessage): void {
    if (this.closeInfo) return;
    for (const h of [...this.messageHandlers]) h(message);
  }

  /** The connection drops from the far side. */
  drop(reason: CloseReason = 'reset'): void {
    this.finish({ reason, local: false });
  }

  sentOfType<T extends MinionMessage['t']>(t: T): Array<Extract<MinionMessage, { t: T }>> {
    return this.sent.filter((m): m is Extract<MinionMessage, { t: T }> => m.t === t);
  }

  private finish(info: ChannelClose): void {
    if (this.closeInfo) return;
    this.closeInfo = info;
    const handlers = this.closeHandlers;
    this.closeHandlers = [];
    this.messageHandlers = [];
    for (const h of handlers) h(info);
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks run. */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface FakeDepsOptions {
  /** Settle DNS at once (default) or leave it to the test through `resolves`. */
  autoResolve?: boolean;
  /** Settle dials at once (default) or leave it to the test through `dials`. */
  autoDial?: boolean;
  trustMaster?: ConnectionDeps['trustMaster'];
  /** Behave like a dialer that ignores the abort signal (its channel may arrive late). */
  ignoreAbort?: boolean;
}

export interface DialRecord {
  address: string;
  port: number;
  onTcpConnected: () => void;
  result: Deferred<FakeChannel>;
  channel: FakeChannel | undefined;
  signal?: AbortSignal | undefined;
}

export class FakeDeps implements ConnectionDeps {
  readonly clock = new FakeClock(0);
  readonly logger = silentLogger();
  readonly resolves: Array<{ host: string; result: Deferred<string> }> = [];
  readonly dials: DialRecord[] = [];
  readonly channels: FakeChannel[] = [];
  trustCalls = 0;
  /** Endpoints whose key pinMaster was asked to pin (issue 8: only after `accepted`). */
  readonly pinned: string[] = [];
  /** The most attempts that were between dial start and channel close at one moment. */
  maxConcurrent = 0;
  private live = 0;

  constructor(private readonly fakeOpts: FakeDepsOptions = {}) {}

  resolve(host: string): Promise<string> {
    const result = deferred<string>();
    this.resolves.push({ host, result });
    if (this.fakeOpts.autoResolve !== false) result.resolve('192.0.2.10');
    return result.promise;
  }

  dial(address: string, port: number, onTcpConnected: () => void, signal?: AbortSignal): Promise<FakeChannel> {
    this.live++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.live);
    const result = deferred<FakeChannel>();
    const record: DialRecord = { address, port, onTcpConnected, result, channel: undefined };
    this.dials.push(record);
    result.promise.then(
      (ch) => {
        record.channel = ch;
        this.channels.push(ch);
        ch.onClose(() => this.live--);
      },
      () => this.live--,
    );
    // like dialTls: an abandoned dial gives up (a channel that arrives anyway is still closed)
    if (!this.fakeOpts.ignoreAbort) signal?.addEventListener('abort', () => result.reject(new Error('dial abandoned')), { once: true });
    record.signal = signal;
    if (this.fakeOpts.autoDial !== false) {
      onTcpConnected();
      result.resolve(new FakeChannel());
    }
    return result.promise;
  }

  // biome-ignore lint/suspicious/noConfusingVoidType: the signature of MasterConnectionDeps.trustMaster
  trustMaster(master: { fingerprint: string; publicKeyPem: string }, endpoint: { host: string; port: number }): 'pinned' | 'unpinned' | void {
    this.trustCalls++;
    return this.fakeOpts.trustMaster?.(master, endpoint);
  }

  pinMaster(_master: { fingerprint: string; publicKeyPem: string }, endpoint: { host: string; port: number }): void {
    this.pinned.push(`${endpoint.host}:${endpoint.port}`);
  }

  get lastChannel(): FakeChannel {
    const ch = this.channels[this.channels.length - 1];
    if (!ch) throw new Error('no channel dialled yet');
    return ch;
  }
}

export const CONN_OPTS: ConnectionOptions = {
  id: 'web1',
  agent: 'brine-test/1',
  authTimeoutMs: 5_000,
  heartbeatIntervalMs: 10_000,
  heartbeatTimeoutMs: 30_000,
  maxFrame: 16 * 1024 * 1024,
};

export function auth(status: Auth['status'], extra: Partial<Auth> = {}): Auth {
  return { t: 'auth', status, minVersion: 1, message: `status ${status}`, masterFingerprint: 'ab:cd:ef', ...(status === 'accepted' ? { version: 1 } : {}), ...extra };
}

export const keyChanged = (): never => {
  throw new BrineError('MASTER_KEY_CHANGED', 'the master key differs from the pinned one');
};
