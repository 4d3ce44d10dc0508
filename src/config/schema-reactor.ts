// The reactor's options (docs/reactor.md; Salt's salt/config/__init__.py names and defaults),
// spliced into the option table (schema.ts) last. Same row format and `as const` as schema.ts.

// the master's reactor, and (Salt's reactor engine) a minion's own
const BOTH = ['master', 'minion'] as const;

export const REACTOR_OPTIONS = [
  {
    name: 'reactor',
    type: 'list',
    default: [],
    roles: BOTH,
    doc: "Tag globs mapped to reactor SLS files, as Salt writes them: `[{'salt/minion/*/start': [/srv/reactor/start.sls]}, {'my/custom/tag': [salt://reactor/custom.sls]}]` (absolute paths, or salt:// paths from file_roots). Each event whose tag matches renders the files with `tag` and `data` and runs their reactions: on the master `local.`, `runner.` and `wheel.`; on a minion (its own bus: event.fire, beacons) `caller.`, run as brine call would. See docs/reactor.md.",
  },
  {
    name: 'reactor_refresh_interval',
    type: 'int',
    min: 1,
    default: 60,
    roles: BOTH,
    unit: 's',
    doc: "Salt's lifetime of the reactor's cached clients. Accepted for compatibility: brine's reactor calls the daemon's own job tracker, runners, wheel and execution functions, which need no refresh, and reads each reactor SLS on every event (as Salt does).",
  },
  {
    name: 'reactor_worker_threads',
    type: 'int',
    min: 1,
    default: 10,
    roles: BOTH,
    doc: "How many reactions (render and run of one reactor SLS for one event) may be in flight at once; the others wait in a queue. brine runs them on the daemon's event loop, not in threads.",
  },
  {
    name: 'reactor_worker_hwm',
    type: 'int',
    min: 0,
    default: 10000,
    roles: BOTH,
    doc: "How many reactions may wait for a free worker; past it a reaction is dropped, counted and logged (REACTOR_BUSY) and listed in the web view's reactions.",
  },
] as const;
