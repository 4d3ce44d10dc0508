// The options of brine's operating surfaces, spliced into the option table (schema.ts) where
// they stand in docs/configuration.md: who may use the master's control socket, how masters and
// minions reach each other (the built-in TLS transport or a NATS cluster, docs/scale-out.md), and
// the metrics, REST API and eauth settings. Same row format and `as const` as schema.ts.

const BOTH = ['master', 'minion'] as const;
const MASTER = ['master'] as const;
const MINION = ['minion'] as const;

export const CONTROL_ACCESS_OPTIONS = [
  // --- local access to the master's control socket (docs/access-control.md) -------------------
  {
    name: 'sock_group',
    type: 'string',
    default: '',
    roles: MASTER,
    brineOnly: true,
    doc: "A local group (name or gid) whose members may connect to the master's control socket: master.sock becomes 0660 and sock_dir 0750, both of this group. Members then run only what publisher_acl allows them. Empty keeps the socket to root and the master's user. An unknown group stops start-up (CONFIG_VALUE).",
  },
  {
    name: 'publisher_acl',
    type: 'map',
    default: {},
    roles: MASTER,
    doc: "Local users (and 'group%' for members of a group) who may publish jobs through the control socket, each with the list of functions (and target-restricted entries) allowed, in Salt's ACL format; keys may be globs. Applies to peers other than root and the master's user, identified by the kernel (SO_PEERCRED), never by a name the client sends.",
  },
  {
    name: 'publisher_acl_blacklist',
    type: 'map',
    default: {},
    roles: MASTER,
    doc: 'As Salt: `users` (names, globs or regular expressions) who may not publish at all and `modules` (functions, e.g. cmd.run or cmd.*) nobody under publisher_acl may run, whatever publisher_acl allows.',
  },
] as const;

export const METRICS_AND_API_OPTIONS = [
  // --- metrics (issue 11): Prometheus /metrics without the REST API ---------------------------
  {
    name: 'metrics_port',
    min: 0,
    type: 'int',
    nullable: true,
    default: null,
    roles: MASTER,
    brineOnly: true,
    doc: 'Port of a plain-HTTP server answering GET /metrics in Prometheus text format (docs/metrics.md); null means off (the REST API serves /metrics when enabled); 0 picks a free port and logs it.',
  },
  {
    name: 'metrics_host',
    type: 'string',
    nonEmpty: true,
    default: '127.0.0.1',
    roles: MASTER,
    brineOnly: true,
    doc: 'Address the metrics_port server listens on; the metrics are unauthenticated, so keep it on loopback or a trusted network.',
  },
  // --- REST API and access control (issue 11): salt-api's rest_cherrypy, eauth, tokens -------
  {
    name: 'api',
    type: 'map',
    default: undefined,
    roles: MASTER,
    brineOnly: true,
    doc: 'The salt-api compatible REST API (docs/api.md), off unless set: port (8000), host (127.0.0.1), ssl_crt/ssl_key (default: pki_dir/api.crt, an EC P-256 certificate made at first start), disable_ssl, max_body (bytes, 1048576), header_timeout/body_timeout (s, 10/30), webhook_url (hooks are off unless set), cors_origins (Origins allowed on cookie sessions), standalone (true: `brine api` serves it as its own process over the control socket and the master does not), and the rest_cherrypy keys app (an HTML file served at app_path, default /app, and every path under it) and static (a directory served under static_path, default /static) for a front end on the API origin.',
  },
  {
    name: 'api_logfile',
    type: 'string',
    default: '/var/log/brine/api',
    roles: MASTER,
    path: true,
    doc: "Salt's api_logfile: the file `brine api` (the REST API as its own process) appends its log to, as log_file is for the master.",
  },
  {
    name: 'rest_cherrypy',
    type: 'map',
    default: undefined,
    roles: MASTER,
    doc: "Salt's name for the REST API section: the same keys as `api`, used when `api` is not set.",
  },
  {
    name: 'external_auth',
    type: 'map',
    default: {},
    roles: MASTER,
    doc: "Salt's eauth: {backend: {user | 'group%' | '*': [ACL entries]}} for the backends `file` (^filename, ^filetype text|htpasswd, ^hashtype) and `pam`; see docs/api.md for the ACL format.",
  },
  { name: 'token_expire', min: 1, type: 'int', default: 43200, roles: MASTER, unit: 's', doc: 'How long an API token from /login stays valid (Salt: 12 hours).' },
  {
    name: 'api_login_failures',
    min: 1,
    type: 'int',
    default: 5,
    roles: MASTER,
    brineOnly: true,
    doc: 'Failed API logins allowed per user name and per source address within api_login_window before further attempts are refused with LOGIN_THROTTLED (HTTP 429).',
  },
  {
    name: 'api_login_window',
    min: 1,
    type: 'int',
    default: 300,
    roles: MASTER,
    unit: 's',
    brineOnly: true,
    doc: 'The window over which api_login_failures are counted; a throttled user or address may try again when it ends.',
  },
] as const;

export const TRANSPORT_OPTIONS = [
  // --- transport: the built-in TLS transport, or a NATS cluster (docs/scale-out.md) -----------
  {
    name: 'transport',
    type: 'enum',
    values: ['tls', 'zeromq', 'tcp', 'nats'],
    default: 'tls',
    roles: BOTH,
    doc: "How masters and minions reach each other: `tls`, brine's own transport (a master listens on ret_port; Salt's `zeromq` and `tcp` mean the same here), or `nats`, a cluster of nats-server with JetStream that every master and minion is a client of (nats_servers; docs/scale-out.md).",
  },
  {
    name: 'nats_servers',
    type: 'list',
    default: [],
    roles: BOTH,
    brineOnly: true,
    doc: 'With transport: nats, the NATS servers to connect to (nats://host:port or tls://host:port); the client learns the rest of the cluster from them and moves to another server when one fails.',
  },
  {
    name: 'nats_tls_ca',
    type: 'string',
    default: '',
    roles: BOTH,
    brineOnly: true,
    doc: "With transport: nats, a CA bundle to verify the NATS servers' certificates with (TLS to the servers); empty uses plain connections unless a server URL says tls://.",
  },
  {
    name: 'nats_enrolment',
    type: 'string',
    default: '',
    roles: MINION,
    brineOnly: true,
    doc: 'With transport: nats, the enrolment file made on a master by `brine nats enrolment` (the sign-in credentials and the masters this minion trusts); empty means <pki_dir>/nats-enrolment.json.',
  },
  {
    name: 'nats_replicas',
    min: 0,
    type: 'int',
    default: 0,
    roles: MASTER,
    brineOnly: true,
    doc: 'With transport: nats, copies JetStream keeps of returns and shared state: 0 picks 3 on a cluster and 1 on a single server; a JetStream cluster needs a majority of them up.',
  },
] as const;
