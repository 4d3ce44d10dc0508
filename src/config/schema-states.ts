// The minion's state-run options, and those of Salt's stateconf renderer (salt/renderers/
// stateconf.py reads them from the master/minion config over its own defaults), spliced into the
// option table (schema.ts) where the state options stand. Same row format and `as const` as
// schema.ts.

const MINION = ['minion'] as const;

export const MINION_STATE_OPTIONS = [
  { name: 'test', type: 'bool', default: false, roles: MINION, doc: 'Run every state function as test=True (report what would change, change nothing) unless the call passes test=False.' },
  { name: 'failhard', type: 'bool', default: false, roles: MINION, doc: 'Stop a state run at the first state that fails (a state may set failhard itself); the states after it do not run.' },
  {
    name: 'state_events',
    type: 'bool',
    default: false,
    roles: MINION,
    doc: "Send the master an event as each state of a state run finishes, fired on its bus as salt/job/<jid>/prog/<minion>/<run_num> with {ret, len} (Salt's state_events); a call's state_events=True turns it on for that run only (brine run --progress does). Example: `state_events: true`.",
  },
  {
    name: 'state_auto_order',
    type: 'bool',
    default: true,
    roles: MINION,
    doc: 'Run states without an order argument in the order they are defined (included SLS files first); off sorts them by state, name and function.',
  },
  // the top file (docs/states.md "Several environments"); Salt reads these from the master's config for a minion with a master
  {
    name: 'saltenv',
    type: 'string',
    nullable: true,
    default: null,
    roles: MINION,
    doc: "The file server environment of this minion's state runs when a call passes no saltenv=: SLS files are read from it, and a highstate reads only its top file and section; null means base for SLS files and every environment for a highstate (Salt's saltenv, formerly environment).",
  },
  {
    name: 'lock_saltenv',
    type: 'bool',
    default: false,
    roles: MINION,
    doc: "Refuse a state call's saltenv= that differs from this minion's saltenv option (BAD_ARGUMENTS).",
  },
  {
    name: 'top_file_merging_strategy',
    type: 'enum',
    values: ['merge', 'same', 'merge_all'],
    default: 'merge',
    roles: MINION,
    doc: "How a highstate without saltenv= combines the environments' top files: merge (base's top file decides every section it has; another environment's top file counts only for its own section), same (each environment's own top file only; default_top stands in for a missing one) or merge_all (every section of every top file, in env_order).",
  },
  {
    name: 'env_order',
    type: 'list',
    default: [],
    roles: MINION,
    doc: 'The environments whose top files a highstate reads, in this order (the others are not read); empty reads base, then the other environments alphabetically.',
  },
  {
    name: 'default_top',
    type: 'string',
    default: 'base',
    roles: MINION,
    doc: 'With top_file_merging_strategy: same, the environment whose top file gives the section of an environment that has no top file.',
  },
  {
    name: 'state_top_saltenv',
    type: 'string',
    nullable: true,
    default: null,
    roles: MINION,
    doc: "Read only this environment's top file for a highstate (the merging strategy still decides which of its sections count); null reads every environment's.",
  },
  {
    name: 'pillarenv_from_saltenv',
    type: 'bool',
    default: false,
    roles: MINION,
    doc: 'A state run with saltenv= and no pillarenv= renders its pillar from the pillar environment of the same name (the master must have it in pillar_roots).',
  },
  {
    name: 'stateconf_end_marker',
    type: 'string',
    default: '#\\s*-+\\s*end of state config\\s*-+',
    roles: MINION,
    doc: "The regular expression of the line that ends a #!stateconf file's state config (the text rendered first to collect its stateconf.set arguments); docs/templates.md.",
  },
  { name: 'stateconf_start_state', type: 'string', default: '.start', roles: MINION, doc: 'The ID of the start state a #!stateconf -s file gets (renamed <sls>::start when it starts with a dot).' },
  {
    name: 'ca_bundle',
    type: 'string',
    default: undefined,
    roles: MINION,
    nonEmpty: true,
    doc: "PEM file of the certificate authorities trusted for https:// downloads (file.managed and archive.extracted sources, source_hash files, pkgrepo.managed key_url, cp.cache_file), instead of the system's store, e.g. `ca_bundle: /etc/pki/internal-ca.pem`; certificates are always verified.",
  },
  { name: 'stateconf_goal_state', type: 'string', default: '.goal', roles: MINION, doc: 'The ID of the goal state a #!stateconf file gets unless -G (renamed <sls>::goal when it starts with a dot).' },
] as const;
