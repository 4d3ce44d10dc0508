// memusage (Salt's salt/beacons/memusage.py): `- percent: 63%`; fires {memusage: percent} while the
// used memory is at or above it, psutil's virtual_memory().percent ((total - available) / total).

import * as fs from 'node:fs';
import type { BeaconModule } from './types.js';
import { percentOf } from './types.js';

/** psutil.virtual_memory().percent from /proc/meminfo, one decimal. */
export function memoryPercent(): number {
  const info = fs.readFileSync('/proc/meminfo', 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  return Math.round(((total - available) / total) * 1000) / 10;
}

export const memusageBeacon: BeaconModule = {
  name: 'memusage',
  validate(config) {
    if (!('percent' in config)) return 'Configuration for memusage beacon requires percent.';
    return percentOf(config.percent) === undefined ? `Configuration for memusage beacon: percent must be a percentage, got ${JSON.stringify(config.percent)}.` : undefined;
  },
  create: () => ({
    poll(config) {
      const usage = memoryPercent();
      return usage >= (percentOf(config.percent) ?? Number.POSITIVE_INFINITY) ? [{ memusage: usage }] : [];
    },
  }),
};
