// One process-wide budget for decoding and handling what sockets read, per event-loop turn: when
// 1,000 minions' 41 KB returns arrive together, one poll phase would otherwise decode all of them
// (~1 ms each) before any timer, heartbeat or reply runs. Every FramedSocket's reads count against
// it; only a socket marked `readUnderBudget` (the master marks a minion's after its sign-in) is
// ever held: past READ_BUDGET_MS its chunk is kept and the socket paused, and the held sockets go
// on, oldest first, in later turns. A socket still signing in is never held (holding hellos
// behind a sign-in storm made minions miss their deadline and dial again: bench/README.md, "Issue
// 27: stall"), and none is held longer than MAX_HOLD_MS, far below any heartbeat timeout.

import { systemClock } from '../util/clock.js';

/** Milliseconds of reading (decode and message handlers) per event-loop turn. */
export const READ_BUDGET_MS = 15;

/** A held socket waiting this long is handled in the next turn whatever the budget says. */
export const MAX_HOLD_MS = 500;

/** A socket whose chunk was held: `resumeHeld` handles it and lets the socket read again. */
export interface HeldReader {
  resumeHeld(): void;
}

const waiting: Array<{ reader: HeldReader; at: number }> = [];
let spent = 0;
let scheduled = false;
// systemClock's, not the `performance` global: that loads perf_hooks into an idle minion (lean-imports)
let monotonic: () => number = systemClock.monotonic;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(turn);
}

/** A new turn: the held sockets first, in the order they were held, within the budget. */
function turn(): void {
  scheduled = false;
  spent = 0;
  const now = monotonic();
  while (waiting.length > 0 && (spent < READ_BUDGET_MS || now - waiting[0]!.at >= MAX_HOLD_MS)) waiting.shift()!.reader.resumeHeld();
  if (waiting.length > 0) schedule();
}

/** Whether this turn's budget is spent (a chunk a budgeted socket reads now is held). */
export function readBudgetSpent(): boolean {
  return spent >= READ_BUDGET_MS;
}

/** Runs `fn` (a chunk's decode and handlers), counting its time against this turn's budget. */
export function timedRead(fn: () => void): void {
  schedule();
  const t0 = monotonic();
  try {
    fn();
  } finally {
    spent += monotonic() - t0;
  }
}

/** Queues a socket that held a chunk; it is resumed in a later turn. */
export function holdReader(r: HeldReader): void {
  waiting.push({ reader: r, at: monotonic() });
  schedule();
}

/** Drops a socket from the queue (it closed and handled its held chunk itself). */
export function forgetReader(r: HeldReader): void {
  const i = waiting.findIndex((w) => w.reader === r);
  if (i >= 0) waiting.splice(i, 1);
}

/** Sockets held right now (tests, metrics). */
export function heldReaders(): number {
  return waiting.length;
}

/** Tests: a clock that moves when told, so a turn's split does not depend on the host's speed. */
export function setReadClockForTests(fn: (() => number) | undefined): void {
  monotonic = fn ?? systemClock.monotonic;
}
