// The beacons brine ships, by name (Salt's beacon module names); the minion's beacons feature runs them.

import { diskusageBeacon } from './diskusage.js';
import { inotifyBeacon } from './inotify.js';
import { journaldBeacon } from './journald.js';
import { loadBeacon } from './load.js';
import { memusageBeacon } from './memusage.js';
import { networkInfoBeacon } from './network-info.js';
import { psBeacon } from './ps.js';
import { serviceBeacon } from './service.js';
import { statusBeacon } from './status.js';
import type { BeaconModule } from './types.js';

export const BEACONS: ReadonlyMap<string, BeaconModule> = new Map(
  [inotifyBeacon, diskusageBeacon, loadBeacon, memusageBeacon, psBeacon, serviceBeacon, statusBeacon, networkInfoBeacon, journaldBeacon].map((b) => [b.name, b]),
);

export type { BeaconContext, BeaconData, BeaconInstance, BeaconModule } from './types.js';
export { BeaconIntervals } from './interval.js';
export { listToDict, mergeBeaconSources, splitBeaconConfig, type BeaconOptions } from './beacon-config.js';
