// journald (Salt's salt/beacons/journald.py): `services: {<name>: {FIELD: value, ...}}`; every
// journal entry written since the beacon started whose fields equal all of a service's values
// (Python's ==, on the fields as python-systemd converts them: PRIORITY: 6 is a number) fires the
// whole entry, tagged with the service name: salt/beacon/<id>/journald/<name>. The journal is read
// with the real journalctl; where it or journald is missing the beacon says so instead of running.
// `namespace:` (brine's, systemd 245+) follows a journal namespace (journalctl --namespace).

import * as fs from 'node:fs';
import { which } from '../modules/host-tools.js';
import { isPlainObject } from '../protocol/schema.js';
import { pyEquals, readerEntry, simpleTypes } from './journal-entry.js';
import { JournalFollower } from './journal-follower.js';
import type { BeaconData, BeaconModule } from './types.js';

/** The socket journald listens on (a namespace's own under /run/systemd/journal.<namespace>/). */
export function journaldSocket(namespace?: string): string {
  return namespace === undefined ? '/run/systemd/journal/socket' : `/run/systemd/journal.${namespace}/socket`;
}

/** A journal namespace name (LogNamespace=): letters, digits and _ . - only, so it is one path segment. */
const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

const namespaceOf = (config: Readonly<Record<string, unknown>>): string | undefined => (typeof config.namespace === 'string' ? config.namespace : undefined);

/** Why the journald beacon cannot run on this host, or undefined when it can. */
export function journaldUnavailable(config: Readonly<Record<string, unknown>> = {}): string | undefined {
  if (which('journalctl') === undefined) return 'journalctl was not found on PATH (the systemd package provides it); remove journald from beacons: on hosts without systemd';
  const ns = namespaceOf(config);
  const socket = journaldSocket(ns);
  if (!fs.existsSync(socket)) {
    const daemon = ns === undefined ? 'systemd-journald' : `systemd-journald for namespace ${ns} (systemd-journald@${ns}.service)`;
    return `${daemon} is not running (no ${socket}), so there is no journal to follow; use the inotify beacon on the log files this host writes instead`;
  }
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
    if ('namespace' in config && !(typeof config.namespace === 'string' && NAMESPACE.test(config.namespace))) {
      return `Configuration for journald beacon: namespace must be a journal namespace name (letters, digits, _ . -), got ${JSON.stringify(config.namespace)}.`;
    }
    return undefined;
  },
  create: (ctx) => {
    let follower: JournalFollower | undefined;
    let followed: string | undefined;
    return {
      poll(config) {
        const ns = namespaceOf(config);
        if (follower === undefined || followed !== ns) {
          // a changed namespace (beacons.modify) is a different journal: start again at its end
          follower?.close();
          follower = new JournalFollower(which('journalctl') ?? 'journalctl', ctx.logger, ns === undefined ? [] : [`--namespace=${ns}`]);
          followed = ns;
        }
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
      close: () => follower?.close(),
    };
  },
};
