// The table of every option brine knows: type, default, role, unit and a one-line meaning.
// Loader, typo detection, `brine config show` and docs/configuration.md are all derived from it.

import { SALT_LOG_LEVELS } from '../util/log-levels.js';
import { byRole, type OptionSpec, type Role } from './option-spec.js';
import { GRAINS_OPTIONS } from './schema-grains.js';
import { PILLAR_SOURCE_OPTIONS } from './schema-pillar.js';
import { MINION_STATE_OPTIONS } from './schema-states.js';
import { FILESERVER_BACKEND_OPTIONS } from './schema-fileserver.js';
import { CONTROL_ACCESS_OPTIONS, METRICS_AND_API_OPTIONS, TRANSPORT_OPTIONS } from './schema-surfaces.js';

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

  // --- which master, and how to reach it ------------------------------------------------------
  { name: 'master', type: 'string_or_list', default: 'salt', roles: MINION, doc: 'Master host name or address, or a list of them for multi-master (see master_type).' },
  {
    name: 'master_type',
    type: 'enum',
    values: ['str', 'failover', 'disable'],
    default: 'str',
    roles: MINION,
    doc: "`str` connects to every listed master (hot/hot), `failover` to one at a time, `disable` to none; Salt's `func` and `distributed` are not supported.",
  },
  { name: 'master_port', min: 1, type: 'int', numericString: true, default: 4506, roles: MINION, doc: "The master's port the minion connects to (the master's ret_port)." },
  {
    name: 'master_finger',
    type: 'string_or_list',
    default: '',
    roles: MINION,
    doc: "Fingerprint the master's key must have, or a list (masters set up with their own keys: any listed fingerprint is accepted, and a listed key is trusted over an older pin); empty pins each master's key when that master first accepts this minion.",
  },
  {
    name: 'untrusted_master_exit',
    type: 'bool',
    default: false,
    roles: MINION,
    brineOnly: true,
    doc: 'Exit (42, or 77 for a refusal) when a master is not trusted: its key differs from its pin or master_finger, or it refuses this minion before it ever accepted it. Off: that master is refused with a CRITICAL log and retried with backoff while the other masters are served.',
  },
  { name: 'random_master', type: 'bool', default: false, roles: MINION, doc: 'Shuffle the master list before connecting (with failover and master_failback the first master stays first).' },
  { name: 'master_failback', type: 'bool', default: false, roles: MINION, doc: 'In failover mode, go back to the first master in the list once it answers again.' },
  { name: 'master_failback_interval', type: 'int', default: 0, roles: MINION, unit: 's', doc: 'Seconds between checks whether the first master is back; 0 means master_alive_interval.' },
  {
    name: 'master_alive_interval',
    type: 'int',
    default: 0,
    roles: MINION,
    unit: 's',
    doc: 'Seconds between extra checks that the current master is reachable; 0 disables them (heartbeats still detect a dead connection).',
  },
  { name: 'retry_dns', type: 'number', default: 30, roles: MINION, unit: 's', doc: 'Seconds to wait before resolving a master name again after resolution failed.' },
  { name: 'retry_dns_count', type: 'int', nullable: true, default: null, roles: MINION, doc: 'How many times to retry resolving a master name before giving up on it; null retries forever.' },
  { name: 'publish_port', type: 'int', default: 4505, roles: BOTH, doc: 'Accepted for compatibility and unused: brine carries publishes, returns and heartbeats on one connection to ret_port.' },

  // --- sign-in and reconnects -----------------------------------------------------------------
  { name: 'auth_timeout', min: 0, minExclusive: true, type: 'int', default: 5, roles: MINION, unit: 's', doc: "Seconds to wait for the master's answer to a sign-in request." },
  { name: 'acceptance_wait_time', min: 0, minExclusive: true, type: 'number', default: 10, roles: MINION, unit: 's', doc: 'Seconds between sign-in attempts while the key is pending on the master.' },
  { name: 'acceptance_wait_time_max', type: 'number', default: 0, roles: MINION, unit: 's', doc: 'Upper bound of the growing wait between sign-in attempts; 0 keeps it at acceptance_wait_time.' },
  { name: 'rejected_retry', type: 'bool', default: false, roles: MINION, doc: "Keep retrying when the master has rejected this minion's key, instead of exiting." },
  { name: 'recon_default', min: 0, type: 'number', default: 1000, roles: MINION, unit: 'ms', doc: 'Base delay before reconnecting to a master.' },
  { name: 'recon_max', min: 0, type: 'number', default: 10000, roles: MINION, unit: 'ms', doc: 'Upper bound of the exponential reconnect backoff.' },
  { name: 'recon_randomize', type: 'bool', default: true, roles: MINION, doc: 'Randomise each reconnect delay (full jitter) so that a fleet does not come back in the same second.' },
  { name: 'ping_interval', type: 'int', default: 0, roles: MINION, unit: 'min', doc: "Accepted for compatibility; brine's per-connection heartbeat replaces Salt's minion_ping event." },
  {
    name: 'return_queue_max',
    min: 1,
    type: 'int',
    default: 1000,
    roles: MINION,
    brineOnly: true,
    doc: "Most job returns kept on disk while they wait for the master's acknowledgement; beyond it the oldest are dropped.",
  },

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
  // --- liveness -------------------------------------------------------------------------------
  { name: 'tcp_keepalive', type: 'bool', default: true, roles: BOTH, doc: 'Turn on kernel TCP keepalive on every connection.' },
  {
    name: 'tcp_keepalive_idle',
    type: 'number',
    default: 60,
    saltDefault: 300,
    roles: BOTH,
    unit: 's',
    doc: "Idle seconds before the first keepalive probe; 60 instead of Salt's 300 because Azure's NAT silently drops flows idle for 240 s.",
  },
  { name: 'tcp_keepalive_cnt', type: 'int', default: -1, roles: BOTH, doc: 'Unanswered keepalive probes before the kernel drops the connection; -1 leaves the OS default.' },
  { name: 'tcp_keepalive_intvl', type: 'number', default: -1, roles: BOTH, unit: 's', doc: 'Seconds between keepalive probes; -1 leaves the OS default.' },
  {
    name: 'tcp_user_timeout',
    type: 'int',
    default: 0,
    roles: BOTH,
    unit: 'ms',
    brineOnly: true,
    doc: 'How long sent data may stay unacknowledged before the kernel drops the connection (TCP_USER_TIMEOUT); 0 derives it from heartbeat_timeout.',
  },
  {
    name: 'heartbeat_interval',
    min: 0,
    minExclusive: true,
    type: 'number',
    default: 10,
    roles: BOTH,
    unit: 's',
    brineOnly: true,
    doc: 'The minion sends a heartbeat whenever it has sent nothing for this long; the master answers it.',
  },
  {
    name: 'heartbeat_timeout',
    min: 0,
    minExclusive: true,
    type: 'number',
    default: 30,
    roles: BOTH,
    unit: 's',
    brineOnly: true,
    doc: 'Either side closes a connection on which nothing arrived for this long, with the reason heartbeat_timeout.',
  },
  {
    name: 'handshake_timeout',
    min: 0,
    minExclusive: true,
    type: 'number',
    default: 10,
    roles: BOTH,
    unit: 's',
    brineOnly: true,
    doc: 'Time allowed for the TLS handshake and the first message of a new connection.',
  },
  {
    name: 'max_frame_size',
    min: 1024,
    type: 'int',
    default: 16777216,
    roles: BOTH,
    unit: 'bytes',
    brineOnly: true,
    doc: 'Largest frame accepted from an authenticated peer; a larger length closes the connection before anything is allocated.',
  },
  { name: 'preauth_max_frame_size', min: 1024, type: 'int', default: 65536, roles: BOTH, unit: 'bytes', brineOnly: true, doc: 'Largest frame accepted before the peer has authenticated.' },

  // --- master: listening, keys, jobs ----------------------------------------------------------
  { name: 'interface', type: 'string', default: '0.0.0.0', roles: MASTER, doc: 'Address the master listens on.' },
  { name: 'ret_port', min: 0, type: 'int', default: 4506, roles: MASTER, doc: 'Port the master listens on; every minion keeps one TLS connection to it.' },
  ...METRICS_AND_API_OPTIONS,
  { name: 'auto_accept', type: 'bool', default: false, roles: MASTER, doc: 'Accept every new minion key without review (only for labs).' },
  { name: 'open_mode', type: 'bool', default: false, roles: MASTER, doc: "Accept any key for any ID, even a changed one (Salt's recovery switch; never leave it on)." },
  { name: 'autosign_file', type: 'string', default: undefined, roles: MASTER, path: true, doc: 'File of minion IDs or globs whose new keys are accepted automatically; unset means off.' },
  { name: 'autoreject_file', type: 'string', default: undefined, roles: MASTER, path: true, doc: 'File of minion IDs or globs whose new keys are rejected automatically; unset means off.' },
  { name: 'max_minions', min: 0, type: 'int', default: 0, roles: MASTER, doc: 'Most minions with accepted keys allowed to connect; 0 means unlimited.' },
  {
    name: 'auth_rate',
    min: 0,
    minExclusive: true,
    type: 'number',
    default: 1000,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most minion authentications handled per second, so that a mass reconnect cannot swamp the master.',
  },
  {
    name: 'max_pending_keys',
    min: 0,
    type: 'int',
    default: 1000,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most keys kept in pending (waiting for an operator) in total; further new keys are refused with AUTH_PENDING_LIMIT until some are accepted or deleted; 0 means unlimited.',
  },
  {
    name: 'max_pending_keys_per_address',
    min: 0,
    type: 'int',
    default: 100,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most pending keys stored from one source address, so one peer cannot fill the pending list; 0 means unlimited.',
  },
  {
    name: 'max_ids_per_key',
    min: 0,
    type: 'int',
    default: 4,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most minion IDs one key may wait under (pending or denied), so one key cannot squat many IDs; 0 means unlimited.',
  },
  {
    name: 'handshake_concurrency',
    min: 0,
    type: 'int',
    default: 128,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most TLS handshakes the master runs at once (it starts at 32 and adapts below this: down on failed sign-ins, and on slow ones while the master is busy; up while it has time to spare); further minions wait at the door before TLS or are told when to come back, so a mass reconnect costs no thrown-away handshakes; 0 means no pacing.',
  },
  {
    name: 'auth_rate_per_source',
    min: 0,
    minExclusive: true,
    type: 'number',
    default: 100,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most sign-ins handled per second from one source address (malformed hellos count too), so one peer cannot use up auth_rate; raise it when many minions share one address (NAT, brine emulate).',
  },
  {
    name: 'preauth_max_connections',
    min: 0,
    type: 'int',
    default: 2000,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most connections open at once that have not authenticated yet (TLS handshakes included); further ones are reset at once; 0 means no cap.',
  },
  {
    name: 'preauth_max_connections_per_source',
    min: 0,
    type: 'int',
    default: 200,
    roles: MASTER,
    brineOnly: true,
    doc: 'Most unauthenticated connections open at once from one source address; 0 means no cap.',
  },
  {
    name: 'preauth_fd_reserve',
    min: 0,
    type: 'int',
    default: 100,
    roles: MASTER,
    brineOnly: true,
    doc: "File descriptors kept free below the master's open-files limit (RLIMIT_NOFILE) for the control socket, the job cache and accepted minions; a new connection that would eat into them is reset.",
  },
  {
    name: 'minion_msg_rate',
    min: 0,
    minExclusive: true,
    type: 'number',
    default: 500,
    roles: MASTER,
    brineOnly: true,
    doc: 'Messages per second an authenticated minion may send on average; more are dropped unread and counted.',
  },
  {
    name: 'minion_msg_burst',
    min: 1,
    type: 'int',
    default: 5000,
    roles: MASTER,
    brineOnly: true,
    doc: "Messages an authenticated minion may send in one burst above minion_msg_rate; keep it above the minions' return_queue_max, which a minion replays at once after a reconnect.",
  },
  {
    name: 'minion_msg_grace',
    min: 1,
    type: 'int',
    default: 5,
    roles: MASTER,
    unit: 's',
    brineOnly: true,
    doc: 'Consecutive seconds a minion may stay over minion_msg_rate before the master disconnects it (close reason rate_limited).',
  },
  { name: 'timeout', min: 0, type: 'int', default: 5, roles: MASTER, unit: 's', doc: 'Seconds the CLI waits for returns before asking minions whether they still run the job.' },
  { name: 'gather_job_timeout', min: 0, type: 'int', default: 10, roles: MASTER, unit: 's', doc: 'Seconds to wait for a minion to say whether it still runs a job.' },
  { name: 'keep_jobs_seconds', min: 0, type: 'int', default: 86400, roles: MASTER, unit: 's', doc: 'How long jobs and their returns stay in the job cache.' },
  { name: 'job_cache', type: 'bool', default: true, roles: MASTER, doc: "Store jobs and returns in the master's job cache." },
  { name: 'minion_data_cache', type: 'bool', default: true, roles: MASTER, doc: 'Cache minion grains on the master for grain and compound targeting.' },
  {
    name: 'nodegroups',
    type: 'map',
    default: {},
    roles: MASTER,
    doc: 'Named groups of minions for `brine run -N NAME` and `N@NAME` in compound targets: each value is a compound expression or a list of minion IDs; may use N@ of other groups (a loop is an error). See docs/targeting.md.',
  },
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
  // the mine (docs/mine.md)
  {
    name: 'mine_functions',
    type: 'map',
    default: {},
    roles: MINION,
    doc: "Functions whose returns this minion sends to the master's mine, as Salt writes them (`network.ip_addrs: []`, `network.ip_addrs: [eth0]`, an alias with `mine_function:` and its arguments, `allow_tgt`/`allow_tgt_type`); a `mine_functions` pillar key adds entries (this config wins for the same name). See docs/mine.md.",
  },
  {
    name: 'mine_interval',
    type: 'number',
    min: 0,
    minExclusive: true,
    default: 60,
    roles: MINION,
    unit: 'min',
    doc: 'Minutes between two runs of mine.update (fractions allowed); the first run is at start, once a master session is up.',
  },
  { name: 'mine_enabled', type: 'bool', default: true, roles: MINION, doc: 'Run mine.update at start and every mine_interval; off means only explicit mine.* calls touch the mine.' },
  {
    name: 'mine_get_pillar_targets',
    type: 'bool',
    default: false,
    roles: MASTER,
    doc: "Let a minion's mine.get select minions by their pillar (tgt_type pillar, pillar_pcre, pillar_exact, I@/J@ in a compound), as Salt does. Off by default, refused with PILLAR_DENIED: which minions answer tells the asker whether another minion's pillar matches its pattern, so a minion could read another's secrets one query at a time.",
  },
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
