// Job IDs in Salt's format: the UTC time as %Y%m%d%H%M%S%f, 20 digits down to the microsecond.
// A jid can reach a path (job cache, proc dir), so the grammar is strict and checked before use.

import { BrineError } from '../util/errors.js';

export const JID_LENGTH = 20;

const JID_PATTERN = /^\d{20}$/;

/** The smallest and largest years a jid may carry; anything outside is not a real job time. */
const MIN_YEAR = 1970;
const MAX_YEAR = 9999;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Formats microseconds since the epoch as a 20-digit jid. */
export function formatJid(epochMicros: number): string {
  const ms = Math.floor(epochMicros / 1000);
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (!Number.isFinite(ms) || year < MIN_YEAR || year > MAX_YEAR) {
    throw new BrineError('INVALID_JID', `cannot make a jid for time ${epochMicros} µs: the year must be between ${MIN_YEAR} and ${MAX_YEAR}`);
  }
  const micros = epochMicros - Math.floor(epochMicros / 1_000_000) * 1_000_000;
  return pad(year, 4) + pad(d.getUTCMonth() + 1, 2) + pad(d.getUTCDate(), 2) + pad(d.getUTCHours(), 2) + pad(d.getUTCMinutes(), 2) + pad(d.getUTCSeconds(), 2) + pad(micros, 6);
}

/** True for exactly 20 ASCII digits that spell a real UTC date and time. */
export function isJid(s: unknown): s is string {
  if (typeof s !== 'string' || !JID_PATTERN.test(s)) return false;
  const year = Number(s.slice(0, 4));
  const month = Number(s.slice(4, 6));
  const day = Number(s.slice(6, 8));
  const hour = Number(s.slice(8, 10));
  const minute = Number(s.slice(10, 12));
  const second = Number(s.slice(12, 14));
  if (year < MIN_YEAR || year > MAX_YEAR) return false;
  if (month < 1 || month > 12) return false;
  if (day < 1 || day > daysInMonth(year, month)) return false;
  return hour < 24 && minute < 60 && second < 60;
}

/** Throws INVALID_JID unless `s` is a jid; call it before a jid is used as a key or a path. */
export function assertJid(s: unknown): asserts s is string {
  if (isJid(s)) return;
  const shown = typeof s === 'string' ? JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}...` : s) : typeof s;
  throw new BrineError('INVALID_JID', `invalid jid ${shown}: a jid is 20 digits (UTC time YYYYMMDDhhmmss plus 6 digits of microseconds)`);
}

/** The time a jid stands for, in milliseconds since the epoch. */
export function jidToEpochMs(jid: string): number {
  assertJid(jid);
  return Date.UTC(
    Number(jid.slice(0, 4)),
    Number(jid.slice(4, 6)) - 1,
    Number(jid.slice(6, 8)),
    Number(jid.slice(8, 10)),
    Number(jid.slice(10, 12)),
    Number(jid.slice(12, 14)),
    Math.floor(Number(jid.slice(14, 20)) / 1000),
  );
}

/**
 * Hands out strictly increasing jids. The clock has millisecond resolution, so the microsecond
 * digits carry a counter: two jids in the same millisecond (or after the clock steps back) still
 * differ and sort in issue order, like Salt's unique_jid bump of 1 µs.
 *
 * The microsecond digits of a new millisecond are random rather than 000: minions run a jid
 * once (the same job can arrive through two masters), so two independent masters publishing in
 * the same millisecond must not both hand out ...000 and have one of the jobs dropped.
 */
export class JidGenerator {
  private lastMicros = -1;

  constructor(
    private readonly clock: { now(): number } = { now: () => Date.now() },
    private readonly random: () => number = Math.random,
  ) {}

  next(): string {
    // leave room below the next millisecond for the counter of a burst
    let micros = Math.floor(this.clock.now()) * 1000 + Math.floor(this.random() * 500);
    if (micros <= this.lastMicros) micros = this.lastMicros + 1;
    const jid = formatJid(micros);
    this.lastMicros = micros;
    return jid;
  }
}
