// `brine run` on a terminal (issue 26): one line on stderr while it waits, "returned 3/10,
// failed 1, 12s", redrawn each second and cleared before any return is printed and at the end,
// so the output itself is the same as without it. Off when stdout or stderr is not a terminal
// and with --out json (scripts and pipes see nothing).

import type { Clock } from '../../util/clock.js';

/** Clears the current terminal line (carriage return, erase to the end of the line). */
const CLEAR = '\r\x1b[K';

export class ProgressLine {
  private expected = 0;
  private returned = 0;
  private failed = 0;
  private shown = false;
  private timer: { cancel(): void } | undefined;
  private readonly startedAt: number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly clock: Clock,
  ) {
    this.startedAt = clock.monotonic();
  }

  /** The job was published to `expected` minions; the line appears and is redrawn each second. */
  start(expected: number): void {
    this.expected = expected;
    this.draw();
    this.timer = this.clock.setInterval(() => this.draw(), 1000);
  }

  /** Around printing one minion's block: the line goes, the block is printed, the line comes back. */
  around(print: () => void, outcome: { returned: boolean; failed: boolean }): void {
    this.clear();
    print();
    if (outcome.returned) this.returned++;
    if (outcome.failed) this.failed++;
    // the last return needs no line under it: the wait is over
    if (this.timer !== undefined && this.returned < this.expected) this.draw();
  }

  /** Prints a line of its own above the counter (a state that finished, --progress): the counter comes back under it. */
  above(print: () => void): void {
    const wasShown = this.shown;
    this.clear();
    print();
    if (wasShown && this.timer !== undefined) this.draw();
  }

  /** Gone for good: before the last output and on any exit path. */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.clear();
  }

  /** The text of the line (without the control characters). */
  text(): string {
    const secs = Math.floor((this.clock.monotonic() - this.startedAt) / 1000);
    return `returned ${this.returned}/${this.expected}, failed ${this.failed}, ${secs}s`;
  }

  private draw(): void {
    this.write(`${CLEAR}${this.text()}`);
    this.shown = true;
  }

  private clear(): void {
    if (!this.shown) return;
    this.write(CLEAR);
    this.shown = false;
  }
}

/** Whether `brine run` shows the line: both streams on a terminal, not --out json, not --async. */
export function wantsProgress(opts: { outputter: string; async: boolean; outFile: boolean }): boolean {
  return process.stdout.isTTY === true && process.stderr.isTTY === true && opts.outputter !== 'json' && !opts.async && !opts.outFile;
}
