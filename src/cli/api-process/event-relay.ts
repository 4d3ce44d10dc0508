// `brine api`'s view of the master's event bus: one `events` stream on the control socket,
// shared by every /events client, opened while someone listens and re-opened with backoff
// when the master goes away (so the API recovers by itself when the master is back).

import type { SaltEvent } from '../../protocol/index.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Disposable } from '../../util/disposable.js';
import type { Logger } from '../../util/logger.js';
import { openControl, type ControlConnection } from '../control-client.js';

type Listener = (event: SaltEvent) => void;

const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5000;

export class EventRelay {
  private readonly listeners = new Set<Listener>();
  private conn: ControlConnection | undefined;
  private connecting = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: TimerHandle | undefined;
  private stopped = false;
  /** Whether the stream to the master is up now (for logs and tests). */
  connected = false;

  constructor(
    private readonly socketPath: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  subscribe(fn: Listener): Disposable {
    this.listeners.add(fn);
    this.ensure();
    return {
      dispose: () => {
        this.listeners.delete(fn);
        if (this.listeners.size === 0) this.drop();
      },
    };
  }

  stop(): void {
    this.stopped = true;
    this.drop();
  }

  private drop(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const conn = this.conn;
    this.conn = undefined;
    this.connected = false;
    conn?.close('shutdown');
  }

  private ensure(): void {
    if (this.stopped || this.conn !== undefined || this.connecting || this.timer !== undefined || this.listeners.size === 0) return;
    this.connecting = true;
    openControl(this.socketPath).then(
      (conn) => {
        this.connecting = false;
        if (this.stopped || this.listeners.size === 0) {
          conn.close('shutdown');
          return;
        }
        this.conn = conn;
        conn.onMessage((m) => {
          if (m.t === 'event') {
            for (const fn of [...this.listeners]) fn({ tag: m.tag, data: m.data });
          } else if (m.t === 'error') {
            this.logger.error({ code: m.code }, `the master refused the event stream: ${m.message}`);
          }
        });
        conn.onClose(() => {
          if (this.conn !== conn) return;
          this.conn = undefined;
          this.connected = false;
          this.logger.warn({}, 'the event stream from the master ended; reconnecting');
          this.retry();
        });
        conn.send({ t: 'events' });
        this.connected = true;
        if (this.retryMs > FIRST_RETRY_MS) this.logger.info({}, 'the event stream from the master is back');
        this.retryMs = FIRST_RETRY_MS;
      },
      (err: Error) => {
        this.connecting = false;
        if (this.retryMs === FIRST_RETRY_MS) this.logger.warn({ err: err.message }, `cannot follow the master's events (${err.message}); retrying with backoff`);
        this.retry();
      },
    );
  }

  private retry(): void {
    if (this.stopped || this.listeners.size === 0) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.ensure();
    }, wait);
  }
}
