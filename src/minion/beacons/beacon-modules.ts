// The beacons brine ships, loaded on first use: a minion with no beacon configured never loads
// their implementations (journald's reader, inotify, ps ...: ~1.6 MiB of an idle minion's heap,
// bench/README.md, issue 27 "minion at 45 MiB"). One import for concurrent callers.

import type { BeaconModule } from '../../beacons/types.js';

let modules: Promise<ReadonlyMap<string, BeaconModule>> | undefined;

export function beaconModules(): Promise<ReadonlyMap<string, BeaconModule>> {
  modules ??= import('../../beacons/index.js').then((m) => m.BEACONS);
  return modules;
}
