// How a minion finds, signs in to and keeps its master (which master, sign-in, reconnects,
// keepalive and frame limits), spliced into the option table (schema.ts) where the rows stand in
// docs/configuration.md. Same row format and `as const` as schema.ts.

const BOTH = ['master', 'minion'] as const;
const MINION = ['minion'] as const;

export const MASTER_CONNECTION_OPTIONS = [
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
] as const;

// Liveness: kernel keepalive, heartbeats, handshake and frame limits (both roles).
export const LIVENESS_OPTIONS = [
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
] as const;
