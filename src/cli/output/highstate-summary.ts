// The summary block under each minion's highstate output, laid out as Salt's: the dashes and
// the right-aligned counts are as wide as the widest count needs.

import { stripEsc, type Palette } from './colors.js';

export interface ResultCounts {
  /** States by result: True, False, None (test=True with pending changes). */
  True: number;
  False: number;
  None: number;
  /** States that carried warnings (printed ones only, as Salt counts them). */
  warnings: number;
  /** States with changes. */
  changed: number;
  /** Sum of the states' durations in ms. */
  durations: number;
}

const LABEL_WIDTH = 'Succeeded'.length;

/** Salt's "{:.3f}" with the unit: ms up to 999, seconds beyond. */
function runTime(ms: number, width: number): string {
  const [value, unit] = ms > 999 ? [ms / 1000, 's'] : [ms, 'ms'];
  return `${value.toFixed(3).padStart(width)} ${unit}`;
}

export function summaryLines(host: string, counts: ResultCounts, c: Palette): string[] {
  // Salt sizes the columns from the counts it tallied (results seen, and warnings), not their sums.
  const tallied = [counts.True, counts.False, counts.None, counts.warnings].filter((n) => n > 0);
  const countWidth = Math.max(0, ...tallied.map((n) => String(n).length));
  const width = LABEL_WIDTH + countWidth + 2;
  const count = (label: string, n: number): string => `${label}: ${String(n).padStart(width - (label.length + 2))}`;
  const E = c.ENDC;

  const lines = [`${c.CYAN}\nSummary for ${stripEsc(host)}\n${'-'.repeat(width)}${E}`];
  const stats: string[] = [];
  if (counts.None > 0) stats.push(`${c.LIGHT_YELLOW}unchanged=${counts.None}${E}`);
  if (counts.changed > 0) stats.push(`${c.GREEN}changed=${counts.changed}${E}`);
  lines.push(`${c.GREEN}${count('Succeeded', counts.True + counts.None)}${E}${stats.length > 0 ? ` (${stats.join(', ')})` : ''}`);
  lines.push(`${counts.False > 0 ? c.RED : c.CYAN}${count('Failed', counts.False)}${E}`);
  if (counts.warnings > 0) lines.push(`${c.LIGHT_RED}${count('Warnings', counts.warnings)}${E}`);
  const total = counts.True + counts.False + counts.None;
  lines.push(`${c.CYAN}${'-'.repeat(width)}\nTotal states run: ${String(total).padStart(width - 7)}${E}`);
  lines.push(`${c.CYAN}Total run time: ${runTime(counts.durations, width - 5)}${E}`);
  return lines;
}
