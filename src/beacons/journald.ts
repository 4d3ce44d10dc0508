// journald (Salt's salt/beacons/journald.py): `services: {<name>: {FIELD: value, ...}}`; every
// journal entry written since the beacon started whose fields equal all of a service's values
// (Python's ==, on the fields as python-systemd converts them: PRIORITY: 6 is a number) fires the
// whole entry, tagged with the service name: salt/beacon/<id>/journald/<name>. The journal is read
// with the real journalctl; where it or journald is missing the beacon says so instead of running.

import * as fs from 'node:fs';
import { which } from '../modules/host-tools.js';
import { isPlainObject } from '../protocol/schema.js';
import { pyEquals, readerEntry, simpleTypes } from './journal-entry.js';
import { JournalFollower } from './journal-follower.js';
import type { BeaconData, BeaconModule } from './types.js';

/** The socket journald listens on; absent, nothing new is written to the journal. */
export const JOURNALD_SOCKET = '/run/systemd/journal/socket';

/** Why the journald beacon cannot run on this host, or undefined when it can. */
export function journaldUnavailable(): string | undefined {
  if (which('journalctl') === undefined) return 'journalctl was not found on PATH (the systemd package provides it); remove journald from beacons: on hosts without systemd';
  if (!fs.existsSync(JOURNALD_SOCKET))
    return `systemd-journald is not running (no ${JOURNALD_SOCKET}), so there is no journal to follow; use the inotify beacon on the log files this host writes instead`;
  return undefined;
}

const servicesOf = (config: Readonly<Record<string, unknown>>): Record<string, unknown> => (isPlainObject(config.services) ? config.services : {});

export const journaldBeacon: BeaconModule = {
  name: 'journald',
  unavailable: journaldUnavailable,
  validate(config) {
    if ('services' in config && !isPlainObject(config.services)) return 'Services configuration for journald beacon must be a list of dictionaries.';
    for (const v of Object.values(servicesOf(config))) {
      if (!isPlainObject(v)) return 'Services configuration for journald beacon must be a list of dictionaries.';
    }
    return undefined;
  },
  create: (ctx) => {
    const follower = new JournalFollower(which('journalctl') ?? 'journalctl', ctx.logger);
    return {
      poll(config) {
        const out: BeaconData[] = [];
        const services = Object.entries(servicesOf(config)).filter((e): e is [string, Record<string, unknown>] => isPlainObject(e[1]));
        for (const raw of follower.take()) {
          const entry = readerEntry(raw);
          for (const [name, match] of services) {
            const fields = Object.entries(match);
            if (fields.every(([k, want]) => Object.hasOwn(entry, k) && pyEquals(want, entry[k]!))) out.push({ ...simpleTypes(entry), tag: name });
          }
        }
        return out;
      },
      close: () => follower.close(),
    };
  },
};
