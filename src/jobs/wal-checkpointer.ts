// SQLite's automatic WAL checkpoint runs inside the commit that fills the WAL: better-sqlite3 is
// synchronous, so that commit blocked the master's event loop for the whole copy of the WAL into
// the database file and its fsyncs (a 32 MiB WAL: 120-150 ms, the longest turn of the master
// while 1,000 minions returned 41 KB state runs; bench/README.md, "Issue 27: stall3"). The
// master therefore checkpoints from a worker thread with its own connection (SQLite's advice
// for checkpoint latency), and its own connection keeps the automatic checkpoint only as a
// backstop: when the worker keeps up, the WAL the backstop finds is already copied and it
// costs a sync of what was appended since.

import { Worker } from 'node:worker_threads';

/**
 * How often the worker checkpoints (when the WAL holds frames not yet copied). Every 250 ms
 * (stall3) copied the index pages a burst rewrites many times over and cost the master's first
 * state run 1-2 s of CPU on 2 cores; once a second copies each a few times per burst.
 */
export const WAL_CHECKPOINT_INTERVAL_MS = 1000;

export class WalCheckpointer {
  private readonly worker: Worker;
  private closed = false;
  private readonly exited: Promise<void>;
  /** Checkpoints of the worker that copied frames into the database file. */
  checkpoints = 0;

  constructor(file: string, intervalMs = WAL_CHECKPOINT_INTERVAL_MS) {
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), {
      workerData: { file, intervalMs },
      // a connection and a timer: a small heap is plenty
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
    });
    this.worker.unref();
    this.exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (m: { t?: string }) => {
      if (m?.t === 'checkpointed') this.checkpoints++;
    });
    // a worker that fails leaves the backstop (the connection's own automatic checkpoint)
    this.worker.on('error', () => {});
  }

  /** Resolves when the worker has closed its connection and exited. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      // held open until the worker has closed its connection (it exits at once after)
      this.worker.ref();
      this.worker.postMessage({ t: 'close' });
    }
    return this.exited;
  }
}
