// One `brine doctor` finding and how it is printed: a line that starts OK, WARN or FAIL, says
// what was checked and, when not OK, what to do. Only a FAIL makes the exit status 1.

import { printable } from '../../util/printable.js';

export type Level = 'ok' | 'warn' | 'fail';

export interface Check {
  level: Level;
  /** What was checked, short: "config", "master 10.0.0.2:4506 TLS", "keys". */
  what: string;
  /** What was found. */
  detail: string;
  /** What to do; present on every WARN and FAIL. */
  fix?: string;
}

export const ok = (what: string, detail: string): Check => ({ level: 'ok', what, detail });
export const warn = (what: string, detail: string, fix: string): Check => ({ level: 'warn', what, detail, fix });
export const fail = (what: string, detail: string, fix: string): Check => ({ level: 'fail', what, detail, fix });

const TAGS: ReadonlyMap<Level, string> = new Map<Level, string>([
  ['ok', 'OK  '],
  ['warn', 'WARN'],
  ['fail', 'FAIL'],
]);

/**
 * One line; line breaks inside a detail are folded so every line starts with its level, and what
 * is left of control characters (from a peer's error text, an ID) is escaped.
 */
export function formatCheck(c: Check): string {
  const fold = (text: string) => printable(text.replace(/\s*\n\s*/g, ' ').trim());
  const detail = fold(c.detail).replace(/[.\s]+$/, '');
  const fix = c.level !== 'ok' && c.fix ? ` Fix: ${fold(c.fix)}` : '';
  return `${TAGS.get(c.level) ?? 'FAIL'} ${printable(c.what)}: ${detail}.${fix}`;
}

export function formatChecks(checks: readonly Check[]): string {
  return checks.length === 0 ? '' : `${checks.map(formatCheck).join('\n')}\n`;
}

/** 0 when nothing failed (warnings alone pass), 1 otherwise. */
export function exitCodeFor(checks: readonly Check[]): number {
  return checks.some((c) => c.level === 'fail') ? 1 : 0;
}

/** The worst level among the checks ('ok' for none). */
export function worst(checks: readonly Check[]): Level {
  if (checks.some((c) => c.level === 'fail')) return 'fail';
  return checks.some((c) => c.level === 'warn') ? 'warn' : 'ok';
}

/** "3 s", "4 min", "2 h": a duration for a sentence. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}
