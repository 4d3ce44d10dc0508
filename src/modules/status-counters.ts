// The kernel counters of Salt's status module on Linux (salt/modules/status.py): cpustats
// (/proc/stat), vmstats (/proc/vmstat), diskstats (/proc/diskstats), netdev (/proc/net/dev) and
// netstats (/proc/net/netstat), in the shapes Salt returns, numbers converted as Salt's _number
// does. The status beacon reads them by name; a missing /proc file gives {} as Salt's does.

import { readFile } from 'node:fs/promises';
import { defineFunction } from './define-function.js';
import type { ModuleFunction } from './types.js';

/** Salt's _number: an int when all digits, else a float when Python's float() takes it, else the text. */
export function saltNumber(text: string): number | string {
  if (/^[0-9]+$/.test(text)) return Number.parseInt(text, 10);
  const t = text.trim();
  if (/^[+-]?((\d+(_\d+)*)?\.?\d+([eE][+-]?\d+)?|\d+\.)$/.test(t)) return Number(t.replaceAll('_', ''));
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return text;
}

/** A /proc file's lines, or none when it cannot be read (Salt passes on OSError). */
async function procLines(file: string): Promise<string[][]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.trim().split(/\s+/));
}

const num = (comps: readonly string[], i: number): number | string => saltNumber(comps[i] ?? '');

/** status.cpustats from /proc/stat. */
export function parseProcStat(lines: readonly string[][]): Record<string, unknown> {
  const ret: Record<string, unknown> = {};
  for (const c of lines) {
    const key = c[0] ?? '';
    if (key === 'cpu') {
      ret.cpu = { idle: num(c, 4), iowait: num(c, 5), irq: num(c, 6), nice: num(c, 2), softirq: num(c, 7), steal: num(c, 8), system: num(c, 3), user: num(c, 1) };
    } else if (key === 'intr') {
      ret.intr = { total: num(c, 1), irqs: c.slice(2).map(saltNumber) };
    } else if (key === 'softirq') {
      ret.softirq = { total: num(c, 1), softirqs: c.slice(2).map(saltNumber) };
    } else {
      ret[key] = num(c, 1);
    }
  }
  return ret;
}

/** status.vmstats from /proc/vmstat: {name: number}. */
export function parseVmstat(lines: readonly string[][]): Record<string, unknown> {
  return Object.fromEntries(lines.map((c) => [c[0] ?? '', num(c, 1)]));
}

const DISKSTAT_FIELDS = [
  'major',
  'minor',
  'device',
  'reads_issued',
  'reads_merged',
  'sectors_read',
  'ms_spent_reading',
  'writes_completed',
  'writes_merged',
  'sectors_written',
  'ms_spent_writing',
  'io_in_progress',
  'ms_spent_in_io',
  'weighted_ms_spent_in_io',
] as const;

/** status.diskstats from /proc/diskstats: {device: {major, minor, device, reads_issued, ...}}. */
export function parseDiskstats(lines: readonly string[][]): Record<string, unknown> {
  return Object.fromEntries(lines.map((c) => [c[2] ?? '', Object.fromEntries(DISKSTAT_FIELDS.map((f, i) => [f, num(c, i)]))]));
}

/**
 * The 16 counters of one /proc/net/dev line, in the kernel's order, with the interface name: split at
 * the last colon as psutil does, at the first as Salt's netdev does.
 */
export function netDevCounters(line: string, at: 'first' | 'last'): { iface: string; counters: string[] } | undefined {
  const colon = at === 'last' ? line.lastIndexOf(':') : line.indexOf(':');
  if (colon < 0) return undefined;
  return {
    iface: line.slice(0, colon).trim(),
    counters: line
      .slice(colon + 1)
      .trim()
      .split(/\s+/),
  };
}

/** status.netdev from /proc/net/dev: {iface: {iface, rx_bytes, ..., tx_packets}}. */
export function parseNetdev(text: string): Record<string, unknown> {
  const ret: Record<string, unknown> = {};
  for (const line of text.split('\n')) {
    const d = netDevCounters(line, 'first');
    if (d === undefined) continue;
    const c = ['', ...d.counters];
    ret[d.iface] = {
      iface: d.iface,
      rx_bytes: num(c, 1),
      rx_compressed: num(c, 7),
      rx_drop: num(c, 4),
      rx_errs: num(c, 3),
      rx_fifo: num(c, 5),
      rx_frame: num(c, 6),
      rx_multicast: num(c, 8),
      rx_packets: num(c, 2),
      tx_bytes: num(c, 9),
      tx_carrier: num(c, 15),
      tx_colls: num(c, 14),
      tx_compressed: num(c, 16),
      tx_drop: num(c, 12),
      tx_errs: num(c, 11),
      tx_fifo: num(c, 13),
      tx_packets: num(c, 10),
    };
  }
  return ret;
}

/** status.netstats from /proc/net/netstat: a header line then a value line per protocol ({TcpExt: {...}}). */
export function parseNetstat(lines: readonly string[][]): Record<string, unknown> {
  const ret: Record<string, unknown> = {};
  let headers: readonly string[] = [''];
  for (const c of lines) {
    if (c[0] !== headers[0]) {
      headers = c;
      continue;
    }
    // as Salt: the last header's column is left out (range(len(headers) - 1))
    const row: Record<string, unknown> = {};
    for (let i = 1; i < headers.length - 1; i++) row[headers[i] ?? ''] = num(c, i);
    ret[(headers[0] ?? '').replace(':', '')] = row;
  }
  return ret;
}

export const statusCounterFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'status.cpustats',
    doc: 'Return /proc/stat as Salt does: cpu {user, nice, system, idle, iowait, irq, softirq, steal}, intr and softirq {total, ...}, the other lines as numbers.',
    params: [],
    run: async () => parseProcStat(await procLines('/proc/stat')),
  }),
  defineFunction({
    name: 'status.vmstats',
    doc: 'Return /proc/vmstat as {name: number}.',
    params: [],
    run: async () => parseVmstat(await procLines('/proc/vmstat')),
  }),
  defineFunction({
    name: 'status.diskstats',
    doc: 'Return /proc/diskstats as {device: {major, minor, device, reads_issued, ..., weighted_ms_spent_in_io}}.',
    params: [],
    run: async () => parseDiskstats(await procLines('/proc/diskstats')),
  }),
  defineFunction({
    name: 'status.netdev',
    doc: 'Return /proc/net/dev as {iface: {iface, rx_bytes, rx_packets, ..., tx_bytes, tx_packets, ...}}.',
    params: [],
    run: async () => parseNetdev(await readFile('/proc/net/dev', 'utf8').catch(() => '')),
  }),
  defineFunction({
    name: 'status.netstats',
    doc: 'Return /proc/net/netstat as {TcpExt: {...}, IpExt: {...}}.',
    params: [],
    run: async () => parseNetstat(await procLines('/proc/net/netstat')),
  }),
];
