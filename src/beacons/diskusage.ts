// diskusage (Salt's salt/beacons/diskusage.py): `- /: 63%` per mount point (a regular expression
// anchored at its end, as Salt matches it against the mounted filesystems); fires
// {diskusage: percent, mount} for each mount at or above its threshold, psutil's percent
// (used / (used + available to unprivileged users)).

import * as fs from 'node:fs';
import type { BeaconData, BeaconModule } from './types.js';
import { percentOf } from './types.js';

/** Mount points from /proc/self/mounts (psutil.disk_partitions(all=True)). */
function mountPoints(): string[] {
  try {
    return fs
      .readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1])
      .filter((m): m is string => m !== undefined && m !== '')
      .map((m) => m.replace(/\\(\d{3})/g, (_s, o: string) => String.fromCharCode(Number.parseInt(o, 8))));
  } catch {
    return ['/'];
  }
}

/** psutil.disk_usage(path).percent, rounded to one decimal as psutil does. */
export function diskPercent(mount: string): number {
  const s = fs.statfsSync(mount);
  const used = (s.blocks - s.bfree) * s.bsize;
  const avail = s.bavail * s.bsize;
  const total = used + avail;
  return total === 0 ? 0 : Math.round((used / total) * 1000) / 10;
}

export const diskusageBeacon: BeaconModule = {
  name: 'diskusage',
  validate(config) {
    if (Object.keys(config).length === 0) return 'Configuration for diskusage beacon must be a list of mount points with a threshold (- /: 63%).';
    for (const [m, v] of Object.entries(config)) if (percentOf(v) === undefined) return `Configuration for diskusage beacon: the threshold of ${m} must be a percentage, got ${JSON.stringify(v)}.`;
    return undefined;
  },
  create: (ctx) => ({
    poll(config) {
      const mounts = mountPoints();
      const out: BeaconData[] = [];
      for (const [pattern, threshold] of Object.entries(config)) {
        let re: RegExp;
        try {
          re = new RegExp(`^(?:${pattern.endsWith('$') ? pattern : `${pattern}$`})`);
        } catch {
          ctx.logger.warn({ pattern }, `diskusage beacon: ${pattern} is not a valid regular expression`);
          continue;
        }
        for (const mount of mounts) {
          if (!re.test(mount)) continue;
          let usage: number;
          try {
            usage = diskPercent(mount);
          } catch {
            continue;
          }
          if (usage >= (percentOf(threshold) ?? Number.POSITIVE_INFINITY)) out.push({ diskusage: usage, mount });
        }
      }
      return out;
    },
  }),
};
