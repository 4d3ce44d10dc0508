// The table of every option brine knows: type, default, role, unit and a one-line meaning.
// Loader, typo detection, `brine config show` and docs/configuration.md are all derived from it.

import { SALT_LOG_LEVELS } from '../util/log-levels.js';
import { byRole, type OptionSpec, type Role } from './option-spec.js';
import { GRAINS_OPTIONS } from './schema-grains.js';
import { PILLAR_SOURCE_OPTIONS } from './schema-pillar.js';
import { MINION_STATE_OPTIONS } from './schema-states.js';
import { FILESERVER_BACKEND_OPTIONS } from './schema-fileserver.js';
import { CONTROL_ACCESS_OPTIONS, TRANSPORT_OPTIONS } from './schema-surfaces.js';
import { LIVENESS_OPTIONS, MASTER_CONNECTION_OPTIONS } from './schema-connection.js';
import { MASTER_OPTIONS } from './schema-master.js';
import { MINE_OPTIONS } from './schema-mine.js';
import { REACTOR_OPTIONS } from './schema-reactor.js';
import { RETURNER_OPTIONS } from './schema-returners.js';
import { BEACON_OPTIONS } from './schema-beacons.js';

// Tuples, not Role[], so that options.ts can tell from the type which role an option belongs to.
const BOTH = ['master', 'minion'] as const;
const MASTER = ['master'] as const;
const MINION = ['minion'] as const;

// `as const` keeps each row's name and type literal: options.ts derives the typed views from them.
const TABLE = [
  // --- where things live --------------------------------------------------------------------
  {
    name: 'root_dir',
    type: 'string',
    nonEmpty: true,
    default: '/',
    roles: BOTH,
    doc: "Directory prepended to the path options of type *path* (Salt's list: pki_dir, cachedir, sock_dir, log_file, autosign_file, autoreject_file, api_logfile), so a whole installation can live under one tree (tests, unprivileged runs); file_roots and pillar_roots are not moved, as in Salt.",
  },
  {
    name: 'config_dir',
    type: 'string',
    default: '/etc/brine',
    roles: BOTH,
    derived: true,
    doc: 'The directory the configuration was read from (-c/--config-dir, else BRINE_CONFIG_DIR, else /etc/brine); set by brine, not in a file.',
  },
  {
    name: 'pki_dir',
    type: 'string',
    default: byRole('/etc/brine/pki/master', '/etc/brine/pki/minion'),
    roles: BOTH,
    path: true,
    doc: "The node's key pair and certificate; on the master also the minion key store in Salt's layout.",
  },
  {
    name: 'cachedir',
    type: 'string',
    default: byRole('/var/cache/brine/master', '/var/cache/brine/minion'),
    roles: BOTH,
    path: true,
    doc: 'Job cache and minion data on the master; cached minion_id and unacknowledged returns on the minion.',
  },
  {
    name: 'sock_dir',
    type: 'string',
    default: byRole('/var/run/brine/master', '/var/run/brine/minion'),
    roles: BOTH,
    path: true,
    doc: 'Directory of the Unix control socket through which the local CLI talks to the daemon.',
  },
  {
    name: 'user',
    type: 'string',
    default: '',
    saltDefault: 'root',
    roles: BOTH,
    doc: "Account the daemon runs as (a name or uid). Started as root, it binds its port and makes its directories, hands pki_dir, cachedir, sock_dir and log_file to this account, then switches to it; empty (brine's default) keeps the account that started it. Naming another account without being root is USER_SWITCH_FAILED.",
  },

  ...CONTROL_ACCESS_OPTIONS,

  // --- logging --------------------------------------------------------------------------------
  { name: 'log_level', type: 'enum', values: SALT_LOG_LEVELS, default: 'warning', roles: BOTH, doc: "Lowest level written to the log, using Salt's level names." },
  {
    name: 'log_level_logfile',
    type: 'enum',
    values: SALT_LOG_LEVELS,
    nullable: true,
    default: null,
    roles: BOTH,
    doc: 'Lowest level written to log_file; null means the same as log_level (which then applies to stderr only).',
  },
  {
    name: 'log_file',
    type: 'string',
    default: byRole('/var/log/brine/master', '/var/log/brine/minion'),
    roles: BOTH,
    path: true,
    doc: 'File the daemon appends its log to (created 0600), besides stderr; reopened on SIGHUP, so logrotate can rename it and signal the daemon. A file that cannot be opened stops start-up (LOG_FILE_UNWRITABLE).',
  },
  { name: 'log_fmt', type: 'enum', values: ['text', 'json'], default: 'text', roles: BOTH, brineOnly: true, doc: 'Log line format: Salt-like text, or one JSON object per line for log shippers.' },

  // --- state run output (the highstate outputter) ----------------------------------------------
  {
    name: 'state_output',
    type: 'enum',
    values: ['full', 'terse', 'mixed', 'changes', 'filter', 'full_id', 'terse_id', 'mixed_id', 'changes_id', 'filter_id'],
    default: 'full',
    roles: BOTH,
    doc: "How state runs print: full (every field), terse (one line per state), mixed (terse unless failed), changes (terse unless failed or changed), filter (per state_output_terse/state_output_exclude); an _id variant shows the state ID instead of the name. The master's applies to brine run, the minion's to brine call.",
  },
  {
    name: 'state_verbose',
    type: 'bool',
    default: true,
    roles: BOTH,
    doc: 'False hides states that succeeded without changes from state run output (the summary still counts them).',
  },
  {
    name: 'state_output_diff',
    type: 'bool',
    default: false,
    roles: BOTH,
    doc: 'True prints only the states that changed something or did not succeed (the CLI flag --output-diff), as state_verbose: False does.',
  },
  { name: 'state_output_terse', type: 'list', default: [], roles: BOTH, doc: 'With state_output: filter, the results (True, False, None) whose states print in one terse line.' },
  { name: 'state_output_exclude', type: 'list', default: [], roles: BOTH, doc: 'With state_output: filter, the results (True, False, None) whose states are not printed at all.' },
  // --- identity -------------------------------------------------------------------------------
  {
    name: 'id',
    type: 'string',
    numberAsString: true,
    default: '',
    roles: BOTH,
    doc: "This node's ID; empty means generate it as Salt does (the master appends `_master`); a YAML number becomes a string.",
  },
  { name: 'minion_id_caching', type: 'bool', default: true, roles: MINION, doc: 'Remember a generated ID and reuse it at the next start, so a host-name change does not change the ID.' },
  { name: 'minion_id_lowercase', type: 'bool', default: false, roles: MINION, doc: 'Lower-case a generated ID.' },
  {
    name: 'minion_id_remove_domain',
    type: 'string_or_bool',
    default: false,
    roles: MINION,
    doc: 'Strip the domain from a generated FQDN: true strips any domain, a string strips only that domain (case-insensitive).',
  },
  {
    name: 'refuse_cloned_id',
    type: 'bool',
    default: false,
    roles: MINION,
    brineOnly: true,
    doc: 'Refuse to start (ID_CLONED) when the cached minion_id was written on another machine (its recorded machine id differs from /etc/machine-id), as on a cloned image; off only warns.',
  },
  { name: 'append_domain', type: 'string', default: undefined, roles: MINION, doc: 'Domain appended to the ID unless it already ends with it (never to an IPv4 ID); unset means off.' },
  { name: 'grains', type: 'map', default: {}, roles: MINION, doc: 'Static grains, merged over the detected ones.' },
  ...GRAINS_OPTIONS,
  {
    name: 'module_dirs',
    type: 'list',
    default: [],
    roles: MINION,
    doc: 'Extra directories of custom execution modules (*.js / *.mjs exporting `functions`), loaded at minion start; see docs/modules.md.',
  },
  // --- custom grains/modules/states from the master (saltutil.sync_*) and startup states ------
  {
    name: 'autoload_dynamic_modules',
    type: 'bool',
    default: true,
    roles: MINION,
    doc: 'Sync custom grains, modules and states from the master (saltutil.sync_all) before the startup_states run; see docs/custom-modules.md.',
  },
  {
    name: 'extension_modules',
    type: 'string',
    nullable: true,
    default: null,
    roles: MINION,
    path: true,
    doc: "Salt's directory of extension modules; brine looks for a tree's own Python renderers in its renderers/ subdirectory (null: <cachedir>/extmods, where saltutil.sync_renderers copies <file_root>/_renderers/*.py). Moved under root_dir as in Salt. Example: extension_modules: /srv/salt-extmods; see docs/custom-modules.md.",
  },
  {
    name: 'render_dirs',
    type: 'list',
    default: [],
    roles: MINION,
    doc: "Extra directories of a tree's own Python renderers (<name>.py, used by a '#!<name>' shebang), searched after <extension_modules>/renderers, as Salt's render_dirs. Example: render_dirs: [/srv/salt-extmods/renderers]; see docs/templates.md.",
  },
  {
    name: 'clean_dynamic_modules',
    type: 'bool',
    default: true,
    roles: MINION,
    doc: 'When syncing custom modules, delete the ones in <cachedir>/extmods that the master no longer has.',
  },
  {
    name: 'startup_states',
    type: 'enum',
    values: ['', 'highstate', 'sls'],
    default: '',
    roles: MINION,
    doc: "A state run when the minion starts (after its first master connection, or at once with file_client: local): highstate, or sls for the SLS names in sls_list; '' for none.",
  },
  { name: 'sls_list', type: 'list', default: [], roles: MINION, doc: 'SLS names applied at start when startup_states is sls.' },

  ...MASTER_CONNECTION_OPTIONS,
  // --- minion: running jobs -------------------------------------------------------------------
  {
    name: 'max_concurrent_jobs',
    min: 1,
    type: 'int',
    default: 8,
    roles: MINION,
    brineOnly: true,
    doc: 'Most jobs a minion runs at once (each in its own worker thread); further jobs wait in arrival order and count as running for saltutil.running and find_job.',
  },
  {
    name: 'job_timeout',
    min: 0,
    type: 'number',
    default: 0,
    roles: MINION,
    unit: 's',
    brineOnly: true,
    doc: 'Seconds a job may run before it is stopped (with every process it started) and returns JOB_TIMEOUT; 0 means no limit. A shorter timeout sent with the job wins.',
  },
  {
    name: 'max_return_size',
    min: 1024,
    type: 'int',
    default: 8388608,
    roles: MINION,
    unit: 'bytes',
    brineOnly: true,
    doc: "Largest job return sent, measured as JSON; a larger one is cut and ends with a visible '[return truncated: N bytes dropped]' marker. Keep it below the master's max_frame_size.",
  },

  ...MINION_STATE_OPTIONS,

  ...TRANSPORT_OPTIONS,
  ...LIVENESS_OPTIONS,
  ...MASTER_OPTIONS,
  // --- file server ----------------------------------------------------------------------------
  {
    name: 'file_roots',
    type: 'map',
    default: { base: ['/srv/salt'] },
    saltDefault: { base: ['/srv/salt', '/srv/spm/salt'] },
    roles: BOTH,
    trees: true,
    doc: 'Directories served as salt:// per environment (saltenv -> list of directories); the first directory that has a file wins. As in Salt, root_dir does not apply to them: an absolute directory is used as written (a relative one is taken under root_dir); a directory that does not exist is a start-up warning. The master serves them to its minions; a minion uses its own with file_client: local. See docs/fileserver.md.',
  },
  {
    name: 'file_ignore_regex',
    type: 'list',
    default: [],
    roles: BOTH,
    doc: 'Regular expressions searched in each relative file server path; a match hides the file or directory from listings and reads.',
  },
  {
    name: 'file_ignore_glob',
    type: 'list',
    default: [],
    roles: BOTH,
    doc: 'Shell globs matched against each relative file server path (and its last component); a match hides it from listings and reads.',
  },
  {
    name: 'file_buffer_size',
    min: 1024,
    type: 'int',
    default: 262144,
    roles: BOTH,
    unit: 'bytes',
    doc: "Largest chunk of a file sent in one message by the master's file server (the minion asks for chunks of this size and keeps a few in flight). Keep it well below max_frame_size.",
  },
  ...FILESERVER_BACKEND_OPTIONS,
  {
    name: 'file_client',
    type: 'enum',
    values: ['remote', 'local'],
    default: 'remote',
    roles: MINION,
    doc: "Where salt:// files come from: remote asks the master over the minion's session; local uses the minion's own file_roots (masterless, as salt-call --local).",
  },
  {
    name: 'allow_undefined',
    type: 'bool',
    default: false,
    roles: BOTH,
    doc: "Render Jinja with Jinja2's lenient Undefined (an undefined variable prints empty) instead of Salt's default StrictUndefined (using one is a RENDER_FAILED error naming it). See docs/templates.md.",
  },
  // --- the scheduler (issue 10) ----------------------------------------------------------------
  {
    name: 'schedule',
    type: 'map',
    default: {},
    roles: MINION,
    doc: "Jobs the minion runs on its own: job name -> fields (function, args, kwargs, seconds/minutes/hours/days, cron, when, once, splay, range, maxrunning, run_on_start, enabled, ...); `enabled: false` at the top turns the whole scheduler off. Merged over pillar's `schedule`; schedule.* changes are kept in minion.d/_schedule.conf. See docs/schedule.md.",
  },
  // --- pillar (issue 10: pillar) ------------------------------------------------------------
  {
    name: 'pillar_roots',
    type: 'map',
    default: { base: ['/srv/pillar'] },
    saltDefault: { base: ['/srv/pillar', '/srv/spm/pillar'] },
    roles: BOTH,
    trees: true,
    doc: 'Directories holding pillar top.sls and SLS files per environment (pillarenv -> list of directories); the first directory that has a file wins. As with file_roots, root_dir does not apply to absolute directories (a relative one is taken under root_dir); a missing directory is a start-up warning. The master renders them per minion; a minion renders its own with file_client: local. See docs/pillar.md.',
  },
  {
    name: 'pillar_source_merging_strategy',
    type: 'enum',
    values: ['smart', 'recurse', 'aggregate', 'overwrite', 'none'],
    default: 'smart',
    roles: BOTH,
    doc: "How the SLS files of a minion's pillar merge, in top-file order: smart and recurse merge mappings key by key (lists are replaced), overwrite replaces a whole top-level key, none is recurse; aggregate (Salt's yamlex) is refused at start.",
  },
  { name: 'pillar_merge_lists', type: 'bool', default: false, roles: BOTH, doc: 'When merging pillar SLS files, extend lists (without duplicates) instead of replacing them.' },
  {
    name: 'pillarenv',
    type: 'string',
    nullable: true,
    default: null,
    roles: BOTH,
    doc: "Render pillar from this pillar_roots environment only (its own top file and SLS); null renders every environment's top file.",
  },
  ...PILLAR_SOURCE_OPTIONS,
  { name: 'worker_threads', type: 'int', default: 5, roles: MASTER, doc: 'Accepted for compatibility; brine serves all minions from one event loop.' },
  ...MINE_OPTIONS,
  ...REACTOR_OPTIONS,
  ...RETURNER_OPTIONS,
  ...BEACON_OPTIONS,
] as const satisfies readonly OptionSpec[];

/** One row of the table, with its literal name, type and roles. */
export type OptionRow = (typeof TABLE)[number];

/** The rows seen as plain specs, for code that reads options by a runtime name. */
export const OPTIONS: readonly OptionSpec[] = TABLE;

const BY_NAME: ReadonlyMap<string, OptionSpec> = new Map(OPTIONS.map((o) => [o.name, o]));

/** The spec of a known option (for any role), or undefined. */
export function findOption(name: string): OptionSpec | undefined {
  return BY_NAME.get(name);
}

/** The options that apply to a role, in table order. */
export function optionsFor(role: Role): readonly OptionSpec[] {
  return OPTIONS.filter((o) => o.roles.includes(role));
}

/** Every known option name, for typo suggestions. */
export function knownOptionNames(): readonly string[] {
  return [...BY_NAME.keys()];
}
