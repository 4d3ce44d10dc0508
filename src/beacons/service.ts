// service (Salt's salt/beacons/service.py): `services: {name: {onchangeonly, emitatstartup, delay,
// uncleanshutdown}}`; each poll asks service.status and fires {<name>: {running}, service_name}
// tagged with the service's name, every poll, or with onchangeonly only when running changes
// (after `delay` seconds of the new state when delay is set).

import * as fs from 'node:fs';
import { isPlainObject } from '../protocol/schema.js';
import type { BeaconData, BeaconModule } from './types.js';

interface Last {
  running: boolean;
  /** Set while a change waits out its delay (ms on the clock). */
  since?: number;
}

export const serviceBeacon: BeaconModule = {
  name: 'service',
  validate(config) {
    if (!isPlainObject(config.services)) return 'Services configuration item for service beacon must be a dictionary.';
    for (const [name, v] of Object.entries(config.services)) {
      if (v === null || v === undefined) continue;
      if (!isPlainObject(v)) return `Configuration for service beacon: ${name} must be a dictionary of options.`;
      if ('onchangeonly' in v && typeof v.onchangeonly !== 'boolean') return `Configuration for service beacon: ${name} onchangeonly must be a boolean.`;
      if ('delay' in v && typeof v.delay !== 'number') return `Configuration for service beacon: ${name} delay must be a number of seconds.`;
    }
    return undefined;
  },
  create: (ctx) => {
    const last = new Map<string, Last>();
    return {
      async poll(config) {
        const services = isPlainObject(config.services) ? config.services : {};
        const out: BeaconData[] = [];
        const now = ctx.clock.now();
        for (const [name, raw] of Object.entries(services)) {
          const o = isPlainObject(raw) ? raw : {};
          const running = (await ctx.call('service.status', [name])) === true;
          const state: Record<string, unknown> = { running };
          if (typeof o.uncleanshutdown === 'string' && !running) state.uncleanshutdown = fs.existsSync(o.uncleanshutdown);
          const event: BeaconData = { [name]: state, service_name: name, tag: name };
          if (o.onchangeonly !== true) {
            out.push(event);
            continue;
          }
          const delayMs = typeof o.delay === 'number' ? o.delay * 1000 : 0;
          const prev = last.get(name);
          if (prev === undefined) {
            last.set(name, delayMs > 0 ? { running, since: now } : { running });
            if (o.emitatstartup !== false && delayMs === 0) out.push(event);
            continue;
          }
          if (prev.running !== running) {
            last.set(name, delayMs > 0 ? { running, since: now } : { running });
            if (delayMs === 0) out.push(event);
          } else if (prev.since !== undefined && now - prev.since > delayMs) {
            last.set(name, { running });
            out.push(event);
          }
        }
        return out;
      },
    };
  },
};
