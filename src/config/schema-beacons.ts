// The beacons' options (docs/beacons.md), spliced into the option table (schema.ts). Same row
// format and `as const` as schema.ts.

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
    name: 'loop_interval',
    type: 'number',
    min: 0,
    minExclusive: true,
    default: 1,
    roles: MINION,
    unit: 's',
    doc: "Seconds between two passes over the beacons; a beacon's own `interval:` is counted in these passes, as in Salt.",
  },
] as const;
