// load (Salt's salt/beacons/load.py): `averages: {1m: [low, high], 5m: [...], 15m: [...]}`; fires
// {1m, 5m, 15m} when an average is outside its range, or with onchangeonly only when one crosses a
// bound since the last poll (emitatstartup: False skips the first poll then).

import * as os from 'node:os';
import { isPlainObject } from '../protocol/schema.js';
import type { BeaconModule } from './types.js';

const KEYS = ['1m', '5m', '15m'] as const;
type Averages = Record<(typeof KEYS)[number], number>;

function rangeOf(config: Readonly<Record<string, unknown>>, k: string): [number, number] | undefined {
  const averages = isPlainObject(config.averages) ? config.averages : {};
  const r = averages[k];
  return Array.isArray(r) && r.length === 2 ? [Number(r[0]), Number(r[1])] : undefined;
}

export const loadBeacon: BeaconModule = {
  name: 'load',
  validate(config) {
    for (const k of ['emitatstartup', 'onchangeonly']) if (k in config && typeof config[k] !== 'boolean') return `Configuration for load beacon option ${k} must be a boolean.`;
    if (!isPlainObject(config.averages)) return 'Averages configuration is required for load beacon.';
    if (!KEYS.some((k) => k in (config.averages as object))) return 'Averages configuration for load beacon must contain 1m, 5m or 15m items.';
    for (const k of KEYS) if (k in config.averages && rangeOf(config, k) === undefined) return 'Configuration for load beacon: 1m, 5m and 15m items must be a list of two items.';
    return undefined;
  },
  create: () => {
    let last: Averages | undefined;
    return {
      poll(config) {
        const [a1, a5, a15] = os.loadavg();
        const now: Averages = { '1m': a1 ?? 0, '5m': a5 ?? 0, '15m': a15 ?? 0 };
        const onchange = config.onchangeonly === true;
        if (onchange && last === undefined) {
          last = now;
          if (config.emitatstartup === false) return [];
        }
        let fire = false;
        for (const k of KEYS) {
          const r = rangeOf(config, k);
          if (r === undefined) continue;
          const [low, high] = r;
          if (onchange) {
            const before = (last as Averages)[k];
            if ((now[k] > high && before < high) || (now[k] < low && before > low)) fire = true;
          } else if (now[k] < low || now[k] > high) fire = true;
          if (fire) break;
        }
        if (onchange) last = now;
        return fire ? [{ ...now }] : [];
      },
    };
  },
};
