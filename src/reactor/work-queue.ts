// Salt's reactor_worker_threads / reactor_worker_hwm for a single-threaded master: at most
// `workers` reactions run at once, at most `hwm` wait; past that a reaction is dropped and
// counted (Salt's "TaskPool queue is full"). FIFO.

export type Work = () => Promise<void>;

export class WorkQueue {
  private readonly waiting: Work[] = [];
  private running = 0;
  /** Reactions refused because `hwm` were waiting. */
  dropped = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly workers: number,
    private readonly hwm: number,
  ) {}

  /** Runs or queues the work; false when it was dropped (the queue is at its high-water mark). */
  push(work: Work): boolean {
    if (this.running < this.workers) {
      this.start(work);
      return true;
    }
    if (this.waiting.length >= this.hwm) {
      this.dropped++;
      return false;
    }
    this.waiting.push(work);
    return true;
  }

  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Resolves once nothing runs or waits (the master's stop waits for reactions in flight). */
  idle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private start(work: Work): void {
    this.running++;
    // a work item reports its own failures; a throw here must not stop the queue
    void work()
      .catch(() => {})
      .finally(() => {
        this.running--;
        const next = this.waiting.shift();
        if (next) this.start(next);
        else if (this.running === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
  }
}
