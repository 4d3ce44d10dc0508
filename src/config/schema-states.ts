// The minion's state-run options, and those of Salt's stateconf renderer (salt/renderers/
// stateconf.py reads them from the master/minion config over its own defaults), spliced into the
// option table (schema.ts) where the state options stand. Same row format and `as const` as
// schema.ts.

const MINION = ['minion'] as const;

export const MINION_STATE_OPTIONS = [
  { name: 'test', type: 'bool', default: false, roles: MINION, doc: 'Run every state function as test=True (report what would change, change nothing) unless the call passes test=False.' },
  { name: 'failhard', type: 'bool', default: false, roles: MINION, doc: 'Stop a state run at the first state that fails (a state may set failhard itself); the states after it do not run.' },
  {
    name: 'state_auto_order',
    type: 'bool',
    default: true,
    roles: MINION,
    doc: 'Run states without an order argument in the order they are defined (included SLS files first); off sorts them by state, name and function.',
  },
  {
    name: 'stateconf_end_marker',
    type: 'string',
    default: '#\\s*-+\\s*end of state config\\s*-+',
    roles: MINION,
    doc: "The regular expression of the line that ends a #!stateconf file's state config (the text rendered first to collect its stateconf.set arguments); docs/templates.md.",
  },
  { name: 'stateconf_start_state', type: 'string', default: '.start', roles: MINION, doc: 'The ID of the start state a #!stateconf -s file gets (renamed <sls>::start when it starts with a dot).' },
  { name: 'stateconf_goal_state', type: 'string', default: '.goal', roles: MINION, doc: 'The ID of the goal state a #!stateconf file gets unless -G (renamed <sls>::goal when it starts with a dot).' },
] as const;
