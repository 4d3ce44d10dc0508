// The beacons' options (docs/beacons.md), spliced into the option table (schema.ts). Same row
// format and `as const` as schema.ts.

import { byRole } from './option-spec.js';

const MINION = ['minion'] as const;

export const BEACON_OPTIONS = [
  {
    name: 'beacons',
    type: 'map',
    default: {},
    roles: MINION,
    doc: 'Beacons this minion runs, as Salt writes them (`inotify: [{files: {/etc/motd: {mask: [modify]}}}, {interval: 5}]`); a `beacons` pillar key adds beacons (the pillar wins for the same name); beacons.save writes this to minion.d/beacons.conf. See docs/beacons.md.',
  },
  {
    // one Salt option, two daemons: the master's maintenance rounds, the minion's beacon passes
    name: 'loop_interval',
    type: 'number',
    min: 0,
    minExclusive: true,
    default: byRole(60, 1),
    roles: ['master', 'minion'],
    unit: 's',
    doc: "Master: seconds between its maintenance rounds; brine uses it for the presence events (presence_events; default 60). Minion: seconds between two passes over the beacons; a beacon's own `interval:` is counted in these passes, as in Salt (default 1).",
  },
] as const;
