// When the minion runs mine.update: once a master session is up (Salt's run_on_start for the
// mine), every mine_interval after that, and when asked (the pillar's mine_functions changed).
// Runs never overlap: a request during a run makes exactly one more run after it.

import type { Clock, TimerHandle } from '../../util/clock.js';

export class MineTimer {
  private interval: TimerHandle | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private startedOnce = false;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    /** One mine.update; its failures are its own to report (a rejection is ignored here). */
    private readonly run: () => Promise<void>,
  ) {}

  /** A master session became ready: the first one starts the interval and runs an update. */
  onReady(): void {
    if (this.stopped) return;
    if (!this.startedOnce) {
      this.startedOnce = true;
      this.interval = this.clock.setInterval(() => this.trigger(), this.intervalMs);
    }
    this.trigger();
  }

  /** Runs an update now, or once more after the one running. */
  trigger(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run()
      .catch(() => undefined)
      .finally(() => {
        this.running = false;
        if (this.again && !this.stopped) {
          this.again = false;
          this.trigger();
        }
      });
  }

  get busy(): boolean {
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    this.interval?.cancel();
  }
}
