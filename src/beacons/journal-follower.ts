// Follows the systemd journal with the real journalctl (`-o json --follow`), starting at its end as
// Salt's beacon does (seek_tail): the entries written since are queued for the next poll. The last
// entry's cursor is kept, so a journalctl that exits is started again after it and nothing is lost
// or read twice. The queue is bounded: a flood loses its oldest entries, counted and logged.

import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Logger } from '../util/logger.js';

/** Entries kept between two polls at most (a 1 s loop_interval sees far fewer). */
export const JOURNAL_QUEUE_MAX = 10_000;

export class JournalFollower {
  private child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  private cursor: string | undefined;
  private queue: Record<string, unknown>[] = [];
  private partial = '';
  private stderr = '';
  private dropped = 0;
  private lastFailure = '';
  private closed = false;

  constructor(
    private readonly journalctl: string,
    private readonly logger: Logger,
    /** journalctl options that choose the journal (--namespace=...). */
    private readonly select: readonly string[] = [],
    private readonly maxQueue = JOURNAL_QUEUE_MAX,
  ) {}

  /** The entries since the last call (journalctl's JSON objects); starts journalctl when it is not running. */
  take(): Record<string, unknown>[] {
    if (this.closed) return [];
    if (this.child === undefined) this.start();
    this.trim();
    if (this.dropped > 0) {
      this.logger.warn(
        { beacon: 'journald', dropped: this.dropped },
        `journald beacon: ${this.dropped} journal entries came faster than the beacon polls and were dropped (at most ${this.maxQueue} are kept between polls); lower loop_interval or narrow the journal that is written`,
      );
      this.dropped = 0;
    }
    const out = this.queue;
    this.queue = [];
    return out;
  }

  /** What the next take() returns, without taking it (tests). */
  get queued(): readonly Record<string, unknown>[] {
    return this.queue;
  }

  /** The running journalctl's pid, or undefined between a failure and the next poll (tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  close(): void {
    this.closed = true;
    this.child?.kill('SIGTERM');
    this.child = undefined;
    this.queue = [];
  }

  /** Keeps the newest maxQueue entries. */
  private trim(): void {
    const over = this.queue.length - this.maxQueue;
    if (over <= 0) return;
    this.queue.splice(0, over);
    this.dropped += over;
  }

  private start(): void {
    const from = this.cursor === undefined ? ['--lines=0'] : [`--after-cursor=${this.cursor}`];
    const child = spawn(this.journalctl, ['--output=json', '--all', '--follow', '--no-pager', '--quiet', ...this.select, ...from], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.partial = '';
    this.stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-2000);
    });
    child.on('error', (err) => this.onEnd(child, err.message));
    child.on('close', (code, signal) => this.onEnd(child, `journalctl exited (${signal ?? `code ${code}`})${this.stderr.trim() === '' ? '' : `: ${this.stderr.trim()}`}`));
  }

  private onEnd(child: ChildProcessByStdio<null, Readable, Readable>, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.closed) return;
    // logged once per distinct failure: a journalctl that cannot start is retried every poll
    if (why !== this.lastFailure) this.logger.warn({ beacon: 'journald' }, `journald beacon: ${why}; it is started again at the next poll, after the last entry read`);
    this.lastFailure = why;
  }

  private onData(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        this.logger.warn({ beacon: 'journald' }, `journald beacon: journalctl printed a line that is not JSON, skipped: ${line.slice(0, 200)}`);
        continue;
      }
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue;
      const record = entry as Record<string, unknown>;
      if (typeof record.__CURSOR === 'string') this.cursor = record.__CURSOR;
      this.queue.push(record);
      // trimmed in batches, so that a flood costs no more than reading it
      if (this.queue.length >= 2 * this.maxQueue) this.trim();
    }
  }
}
