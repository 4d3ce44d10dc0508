// network_info (Salt's salt/beacons/network_info.py): `interfaces: {eth0: {type: equal|greater,
// bytes_sent: 100000, ...}}`; each poll reads psutil's net_io_counters(pernic=True) (here from
// /proc/net/dev, as psutil does) and fires {interface, network_info: {bytes_sent, bytes_recv,
// packets_sent, packets_recv, errin, errout, dropin, dropout}} for each configured interface one
// of whose counters equals (type equal, the default) or exceeds (type greater) its threshold.

import * as fs from 'node:fs';
import { netDevCounters } from '../modules/status-counters.js';
import { isPlainObject } from '../protocol/schema.js';
import type { BeaconData, BeaconModule } from './types.js';

/** psutil's snetio fields, in Salt's __attrs order (the order of the event's network_info). */
export const NETIO_ATTRS = ['bytes_sent', 'bytes_recv', 'packets_sent', 'packets_recv', 'errin', 'errout', 'dropin', 'dropout'] as const;
type NetIo = Record<(typeof NETIO_ATTRS)[number], number>;

const VALID_ITEMS = new Set<string>(['type', ...NETIO_ATTRS]);

/** psutil.net_io_counters(pernic=True) on Linux: /proc/net/dev, receive columns then transmit. */
export function netIoCounters(text = fs.readFileSync('/proc/net/dev', 'utf8')): Map<string, NetIo> {
  const out = new Map<string, NetIo>();
  for (const line of text.split('\n').slice(2)) {
    const d = netDevCounters(line, 'last');
    if (d === undefined) continue;
    const n = d.counters.map((c) => Number.parseInt(c, 10));
    out.set(d.iface, {
      bytes_sent: n[8] ?? 0,
      bytes_recv: n[0] ?? 0,
      packets_sent: n[9] ?? 0,
      packets_recv: n[1] ?? 0,
      errin: n[2] ?? 0,
      errout: n[10] ?? 0,
      dropin: n[3] ?? 0,
      dropout: n[11] ?? 0,
    });
  }
  return out;
}

/** Python's int() of a threshold from YAML: an integer, a float truncated, or a string of digits. */
function thresholdOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(v)) return Number.parseInt(v.replaceAll('_', ''), 10);
  return undefined;
}

const interfacesOf = (config: Readonly<Record<string, unknown>>): Record<string, unknown> => (isPlainObject(config.interfaces) ? config.interfaces : {});

export const networkInfoBeacon: BeaconModule = {
  name: 'network_info',
  validate(config) {
    if ('interfaces' in config && !isPlainObject(config.interfaces)) return 'Configuration for network_info beacon must be a list of dictionaries.';
    for (const [iface, v] of Object.entries(interfacesOf(config))) {
      if (!isPlainObject(v)) return 'Configuration for network_info beacon must be a list of dictionaries.';
      if (!Object.keys(v).some((k) => VALID_ITEMS.has(k))) return 'Invalid configuration item in Beacon configuration.';
      // Salt's validate lets these through and the beacon then fails on int() every poll
      for (const attr of NETIO_ATTRS) {
        if (attr in v && thresholdOf(v[attr]) === undefined) return `Configuration for network_info beacon: ${iface} ${attr} must be a whole number, got ${JSON.stringify(v[attr])}.`;
      }
    }
    return undefined;
  },
  create: () => ({
    poll(config) {
      const stats = netIoCounters();
      const out: BeaconData[] = [];
      for (const [iface, raw] of Object.entries(interfacesOf(config))) {
        const counters = stats.get(iface);
        if (counters === undefined || !isPlainObject(raw)) continue;
        // any type other than greater compares for equality, as Salt's else branch does
        const greater = raw.type === 'greater';
        const hit = NETIO_ATTRS.some((attr) => {
          const limit = attr in raw ? thresholdOf(raw[attr]) : undefined;
          return limit !== undefined && (greater ? counters[attr] > limit : counters[attr] === limit);
        });
        if (hit) out.push({ interface: iface, network_info: { ...counters } });
      }
      return out;
    },
  }),
};
