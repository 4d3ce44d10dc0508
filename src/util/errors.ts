// The error catalogue: every failure brine reports has a stable code, a one-line meaning and
// what the operator should do next. docs/errors.md is kept in sync with this table by a test.

export interface ErrorSpec {
  /** What went wrong, in one line. */
  readonly meaning: string;
  /** What the operator should do next. */
  readonly fix: string;
  /** Process exit code when this error ends a command (Salt's codes where they exist). */
  readonly exit: number;
}

const spec = (meaning: string, fix: string, exit = 1): ErrorSpec => ({ meaning, fix, exit });

export const ERRORS = {
  // configuration
  CONFIG_NOT_FOUND: spec('A configuration file that was named or required does not exist.', 'Create the file or point -c/--config-dir (or BRINE_CONFIG_DIR) at the right directory.', 78),
  CONFIG_UNREADABLE: spec('A configuration file exists but cannot be read.', 'Fix the file permissions so the daemon user can read it.', 78),
  CONFIG_PARSE: spec('A configuration file is not valid YAML or not a mapping at the top level.', 'Fix the YAML syntax at the line given; the top level must be `key: value` pairs.', 78),
  CONFIG_TYPE: spec('A known option has a value of the wrong type.', 'Change the value to the expected type named in the message.', 78),
  CONFIG_VALUE: spec('A known option has a value outside what it accepts.', 'Use one of the allowed values named in the message.', 78),
  API_NOT_CONFIGURED: spec(
    '`brine api` was started with a master configuration that has no `api:` (or `rest_cherrypy:`) section.',
    'Add `api: {standalone: true}` (with port, host and the rest as needed) to the master configuration `brine api` reads (-c), and restart the master so it leaves the API to `brine api`.',
    78,
  ),
  CONFIG_UNKNOWN_KEY: spec('An option name is one typo away from a known option.', 'Rename the key to the suggested option, or remove it.', 78),

  // identity and keys
  INVALID_ID: spec(
    'A minion ID breaks the ID grammar (empty, too long, path characters, non-ASCII, or localhost-like).',
    'Set `id:` in the minion config to a name of letters, digits, `.`, `-`, `_` and `@` (at most 255 characters, not starting with `.`, not localhost).',
    65,
  ),
  ID_CLONED: spec(
    'The cached minion ID was written on another machine (a cloned image) and refuse_cloned_id is on.',
    'Delete the minion_id file in the minion config directory and restart, so this host generates its own ID, or set `id:` in the minion config.',
    78,
  ),
  PKI_UNWRITABLE: spec('The PKI directory cannot be created or written.', 'Create pki_dir and make it writable by the daemon user, or set root_dir/pki_dir to a writable path.', 73),
  PKI_KEY_INVALID: spec('A key or certificate file exists but cannot be parsed.', 'Move the damaged file aside; a new key pair is generated at the next start (and must be accepted again).', 65),
  KEY_NOT_FOUND: spec('No key matched the ID or glob given.', 'List the keys with `brine key -L` and use a matching name.', 1),
  KEY_AMBIGUOUS: spec(
    'More than one denied key was seen for the ID, so it is not clear which one to accept.',
    'List them with `brine key -f <id>`, check the fingerprint on the host itself, and name it with `--finger <fingerprint>`.',
    1,
  ),
  KEY_TYPE_UNSUPPORTED: spec(
    'A minion presented a key of a type brine does not make (only Ed25519 and EC P-256 are accepted); nothing was stored.',
    'Let the minion generate its own key: move its minion.pem aside and restart it, then accept the new key.',
    77,
  ),

  // authentication, as the minion sees it
  AUTH_PENDING: spec("The master has this minion's key in pending.", 'On the master run `brine key -a <id>` (after checking the fingerprint with `brine key -f <id>`).', 0),
  AUTH_REJECTED: spec(
    "The master has rejected this minion's key.",
    'On the master, delete the rejected key (`brine key -d <id>`) and restart the minion, or accept it with `brine key -a <id> --include-rejected`.',
    77,
  ),
  AUTH_DENIED: spec(
    'The master already has a different key accepted for this ID.',
    'If this host was re-imaged, run `brine key --replace <id>` on the master and restart the minion; otherwise give this minion its own `id:`.',
    77,
  ),
  AUTH_FULL: spec('The master has reached max_minions.', 'Raise max_minions on the master or remove unused keys.', 1),
  AUTH_PENDING_LIMIT: spec(
    'The master holds as many keys waiting for an operator as its limits allow (in total, from this address, or for this key); the key was not stored.',
    'On the master review waiting keys with `brine key -L`, accept or delete them, or raise max_pending_keys / max_pending_keys_per_address / max_ids_per_key.',
    1,
  ),
  MASTER_KEY_CHANGED: spec(
    "The master's key differs from the one this minion pinned for that master.",
    'If the master was legitimately re-keyed, delete its pin (masters/<host>_<port>.pub in the minion pki_dir) or add the new fingerprint to master_finger; otherwise treat it as an attack.',
    42,
  ),
  MASTER_FINGER_MISMATCH: spec(
    "The master's key fingerprint is not listed in master_finger.",
    'Compare `brine key -F master` on that master with master_finger in the minion config (a list for masters with their own key pairs).',
    42,
  ),
  NO_CLIENT_CERT: spec('A peer connected without presenting a client certificate.', 'Only brine minions can connect to the master port; check what is connecting.', 1),

  // wire
  FRAME_TOO_LARGE: spec('A frame length exceeds the limit in force (small before authentication).', 'Raise max_frame_size if the payload is legitimate; otherwise the peer is broken or hostile.', 1),
  FRAME_MALFORMED: spec('Bytes on the wire do not decode as a frame of JSON.', 'The peer is not a compatible brine node; check versions on both sides.', 1),
  MESSAGE_INVALID: spec('A message decoded but does not fit its declared type.', 'The peer is not a compatible brine node; check versions on both sides.', 1),
  MESSAGE_UNEXPECTED: spec('A valid message arrived in a state where it is not allowed.', 'The peer is not a compatible brine node; check versions on both sides.', 1),
  PROTOCOL_VERSION: spec('The peers share no protocol version at or above the minimum accepted.', 'Upgrade the older side; the message names the versions each side speaks.', 1),
  HANDSHAKE_TIMEOUT: spec('A peer did not complete the TLS handshake or its first message in time.', 'Check for a middlebox or a non-brine client on the port.', 1),
  CONNECT_FAILED: spec(
    'A TCP connection to the master could not be made (refused, unreachable, or timed out).',
    'Check that the master runs and listens on master_port, and that no firewall drops the path; the minion keeps retrying by itself.',
    1,
  ),
  TLS_ERROR: spec('The TLS layer failed (bad certificate, protocol or handshake).', 'Check that both sides run brine with TLS 1.3; the message gives the TLS error.', 1),
  MASTER_BUSY: spec(
    'The master had no free TLS handshake slot (many minions signing in at once, e.g. after a master restart) and gave this minion a time to come back.',
    "Nothing: the minion comes back at the time the master gave. If it lasts, look at the master's CPU, or raise handshake_concurrency on the master.",
    1,
  ),
  CONNECTION_LIMIT: spec(
    'The master refused a network connection before TLS: too many unauthenticated connections (in total or from one address), or too few free file descriptors.',
    "If the address is one of your minions, raise preauth_max_connections_per_source / preauth_max_connections or the master's open-files limit; otherwise block it in the firewall. The minion retries by itself.",
    1,
  ),
  RATE_LIMITED: spec(
    'An authenticated minion kept sending messages faster than minion_msg_rate allows, and the master disconnected it.',
    'Find out why that minion sends so much (a loop in a custom module, a replayed return queue); raise minion_msg_rate / minion_msg_burst only if the traffic is legitimate.',
    1,
  ),

  // daemons and control
  LISTEN_FAILED: spec('The master cannot listen on its port or control socket.', 'Stop whatever holds the port (`ss -ltnp`), or change ret_port/interface.', 1),
  METRICS_LISTEN_FAILED: spec('The master cannot serve /metrics on metrics_host:metrics_port.', 'Stop whatever holds the port (`ss -ltnp`), or set another metrics_port (or metrics_host).', 1),
  MASTER_UNREACHABLE: spec(
    'The CLI (or `brine api`, then as HTTP 503) cannot reach the master through its control socket.',
    'Start the master (`brine master`) or point -c at the config it uses; check sock_dir.',
    2,
  ),
  UNKNOWN_METHOD: spec('A control request named an operation the master does not offer.', 'Use a brine CLI of the same version as the master.', 2),
  CONTROL_DENIED: spec(
    'The control socket refused the connection or the request: only root, the master user and members of sock_group may connect, and only root and the master user may do more than publish.',
    "Run the CLI as root or as the user that runs the master, or ask the administrator to add you to the master's sock_group (docs/access-control.md).",
    2,
  ),
  PUBLISH_DENIED: spec(
    'publisher_acl does not allow this local user (or its groups) to run this function on this target, or publisher_acl_blacklist names the user or the function; the refusal is logged on the master.',
    "Ask the master's administrator to add the function (and target) to publisher_acl for your user or one of your groups ('group%'), or to run it for you.",
    1,
  ),
  LOG_FILE_UNWRITABLE: spec(
    'The log_file cannot be created or opened for appending.',
    'Create the directory of log_file and make it writable by the daemon user, or set log_file to a writable path.',
    73,
  ),
  USER_SWITCH_FAILED: spec('The daemon cannot run as the account named by `user:`.', 'Create the account, start the daemon as root (or as that account), or remove `user:` from the config.', 78),
  UNSAFE_DIR: spec(
    'A directory the daemon keeps its socket, keys or cache in (or one above it) can be changed by another local user.',
    'Run the chmod or chown command the message gives, then start the daemon again.',
    78,
  ),

  // states, templates and the file server
  RENDER_FAILED: spec(
    'An SLS file or template could not be rendered: a YAML or Jinja syntax error, or an error raised while rendering.',
    'Fix the file at the line and column the message gives (the line is shown).',
    1,
  ),
  RENDERER_UNSUPPORTED: spec(
    'A shebang line names a renderer brine does not have.',
    'Use no shebang (Jinja, then YAML), the explicit Jinja-then-YAML shebang, or `#!yaml` (docs/templates.md lists them); the message names the file.',
    1,
  ),
  RENDERER_NEEDS_PYTHON: spec(
    "An SLS file uses one of Salt's Python renderers (`#!py`, `#!pyobjects`, `#!pydsl`), which run the file's Python code with python3, and the host (the minion, or the master for pillar) has no python3.",
    'Install python3 on that host (`apt-get install python3`); the message names the file and the interpreter looked for, and only that SLS fails.',
    1,
  ),
  RENDER_TIMEOUT: spec(
    "The Python code of a `#!py`, `#!pyobjects` or `#!pydsl` SLS file ran longer than brine's render limit (120 s) and its process group was killed.",
    'Look for a loop or a blocking call in the file the message names (run its code with python3 by hand); nothing of that render was used.',
    1,
  ),
  TEMPLATE_UNSUPPORTED: spec(
    "A template uses a construct brine's Jinja engine cannot render exactly as Python Jinja2 does; it is refused at compile time rather than rendered differently.",
    'Rewrite the construct at the file and line given (docs/templates.md lists the differences and the usual rewrite).',
    1,
  ),
  STATE_COMPILE_FAILED: spec(
    'The states could not be compiled: a malformed declaration, a requisite naming a missing state, a requisite cycle, a duplicate ID or an argument of the wrong type. No state ran. (A state function that does not exist fails its own state at run time, and an argument a function does not take is ignored with a warning, as in Salt.)',
    'Fix the SLS files named in the message; `brine call state.show_lowstate` shows the compiled states.',
    1,
  ),
  STATE_RUN_IN_PROGRESS: spec(
    'Another state run is already in progress on this minion.',
    'Wait for the job named in the message (`brine run <minion> saltutil.find_job <jid>`), or pass queue=True to wait for it.',
    1,
  ),
  FILE_NOT_FOUND: spec(
    'A salt:// path is not in any file root of the environment.',
    'Check the path and saltenv with `brine call cp.list_master saltenv=<env>`; the first root that has the file wins.',
    1,
  ),
  URL_FETCH_FAILED: spec(
    'A remote file (an http:// or https:// source, source_hash file or key_url) could not be downloaded: the host did not answer, refused the TLS certificate, or answered with an HTTP error.',
    'Check the URL in a browser or with curl from the minion; for a private CA set ca_bundle in the minion configuration to its PEM file. Nothing was written.',
    1,
  ),
  PATH_REFUSED: spec(
    'A file server path or environment name is not allowed: it leaves the file root (.., an absolute path, a symlink pointing outside), or holds a NUL or an encoded separator.',
    'Use a relative salt:// path inside file_roots; nothing was read.',
    1,
  ),
  PILLAR_DENIED: spec(
    "A minion asked the master for a pillar that is not its own: another minion's ID in a pillar request, or a mine.get that selects minions by their pillar (which would tell it about their pillar).",
    "Nothing was sent: a minion only ever gets its own pillar. Find out why that minion asks (the master log names it); target mine.get by ID, grains or a nodegroup, or set mine_get_pillar_targets: True on the master if every minion may know every minion's pillar.",
    1,
  ),
  GRAIN_UNSAFE: spec(
    "A template rendered on the master (the pillar top file or a pillar SLS) read a minion's grain whose text holds a control character (a newline, carriage return, NUL...; tab is allowed), which could add keys or list items to the rendered YAML; that render was refused and the minion keeps its last good pillar.",
    'Fix the grain on the minion the message names (its grains: configuration, grains file or custom grain module; a grain may not hold line breaks if a master-side template reads it), then run saltutil.refresh_grains and saltutil.refresh_pillar there. Multi-line data belongs in pillar, not in grains.',
    1,
  ),
  PILLAR_RENDER_FAILED: spec(
    "This minion's latest pillar render failed (a YAML or Jinja error, a missing SLS, an SLS that is not a mapping, a PGP block that could not be decrypted, a failed ext_pillar), so a state run was refused, as in Salt; the minion keeps its last good pillar.",
    'Fix the pillar file and line the message names (`brine run <minion> pillar.items` shows them under _errors, `brine doctor master` lists them), then run `saltutil.refresh_pillar`; force=True runs the states on the last good pillar instead.',
    1,
  ),
  PILLARENV_UNKNOWN: spec(
    "A call asked for its pillar from a pillar environment (pillarenv=, or saltenv= with pillarenv_from_saltenv) that the master's pillar_roots does not have, or whose name is not an environment name; nothing was rendered and nothing ran.",
    "Use one of the environments the message lists (the master's pillar_roots keys), or add the environment to pillar_roots on the master and restart it.",
    1,
  ),
  GPG_DECRYPT_FAILED: spec(
    'A PGP message block in a `#!yaml|gpg` (or `#!jinja|yaml|gpg`) pillar file could not be decrypted with the keys of gpg_keydir (no secret key for the key ID named, a damaged block, a key with a passphrase, or no gpg program), and gpg_decrypt_must_succeed is on; the minion keeps its last good pillar.',
    'Import the secret key of the key ID the message names into gpg_keydir (`gpg --homedir <gpg_keydir> --import key.asc`, without a passphrase), or encrypt the value again to a key it holds (`gpg --armor --encrypt -r <key>`); then run saltutil.refresh_pillar. The message names the file and the pillar key, never the data.',
    1,
  ),
  EXT_PILLAR_FAILED: spec(
    'An ext_pillar could not give its data for a minion: a cmd_json/cmd_yaml command that exited non-zero, timed out or printed something that is not a JSON/YAML mapping, a file_tree root_dir that is missing or unreadable, or a git_pillar remote never fetched, a branch gone, its root missing or one of its SLS failing to render. The pillar render failed and the minion keeps its last good pillar.',
    "Run the command the message names by hand on the master (as the master's user, with the minion ID for %s) and fix it, or fix the file_tree directory; then run saltutil.refresh_pillar. The output itself is never quoted (it may hold secrets).",
    1,
  ),
  FILESERVER_UNAVAILABLE: spec(
    'The minion needs files from the master (file_client: remote) but has no connection to one.',
    "Start the minion daemon and check `brine doctor`, or set `file_client: local` to use the minion's own file_roots.",
    1,
  ),
  MINION_NOT_RUNNING: spec(
    '`brine call` without --local runs through the minion daemon on this host (salt-call against the master), and no daemon answers on `<sock_dir>/minion.sock`.',
    'Start the minion (`brine minion -c <dir>` or its service) with the same configuration, or pass --local (or set `file_client: local`) to run the function without a master.',
    1,
  ),
  MINION_NO_MASTER: spec(
    "`brine call` without --local needs the master's files and pillar, and the running minion is not connected to any of its masters (the message names each and why); the call fails at once instead of waiting.",
    'Check that the master named runs and is reachable (`brine doctor minion` on this host), wait for the minion to sign in again, or pass --local to run without a master.',
    1,
  ),

  GITFS_REMOTE_UNREACHABLE: spec(
    'A gitfs remote could not be fetched (unreachable host, refused SSH key or HTTPS credentials, unknown host key, missing repository); the master keeps serving the last good checkout of that remote and retries on the next gitfs_update_interval.',
    "Check the URL and credentials the message names (gitfs_privkey/gitfs_pubkey, gitfs_user/gitfs_password, the host key in the master user's known_hosts or gitfs_ssh_known_hosts), fix them, then run `brine fileserver update` and `brine doctor master`.",
    1,
  ),
  GITFS_CONFIG: spec(
    'A gitfs option or gitfs_remotes entry is malformed (an unknown per-remote parameter, a remote that is neither a URL nor a one-key mapping, a password over plain http without insecure_auth, two remotes with the same name); the master does not start.',
    'Fix the entry the message names (docs/fileserver.md has an example of each option) and restart the master.',
    78,
  ),
  GIT_PILLAR_CONFIG: spec(
    'A git ext_pillar entry or a git_pillar_* option is malformed (a remote that is not `<branch> <URL>` or a one-key mapping of it to its parameters, an unknown per-remote parameter, `base` on a remote whose branch is not __env__, a password over plain http without insecure_auth, two remotes with the same name); the master does not start.',
    'Fix the entry the message names (docs/pillar.md, "git_pillar", has an example of each option) and restart the master.',
    78,
  ),
  GIT_PILLAR_REMOTE_UNREACHABLE: spec(
    "A git_pillar remote could not be fetched (unreachable host, refused SSH key or HTTPS credentials, unknown host key, missing repository); the master keeps rendering pillar from that remote's last good checkout and retries on the next git_pillar_update_interval. A remote never fetched makes the pillar render fail (EXT_PILLAR_FAILED).",
    "Check the URL and credentials the message names (git_pillar_privkey/git_pillar_pubkey, git_pillar_user/git_pillar_password, the host key in the master user's known_hosts or git_pillar_ssh_known_hosts), fix them, then run `brine git-pillar update` and `brine doctor master`.",
    1,
  ),

  // the scheduler
  SCHEDULE_INVALID: spec(
    'A schedule entry (minion config, pillar or schedule.add) has an unknown field, a value of the wrong type, no time or an impossible one (an interval of 0 or less, a cron expression that never fires). That entry does not run; the others do.',
    'Fix the field the message names (docs/schedule.md lists every field); `brine run <minion> schedule.list` shows the errors left.',
    1,
  ),
  SCHEDULE_SAVE_FAILED: spec(
    'A schedule change could not be written to <config_dir>/minion.d/_schedule.conf; it is in effect until the minion restarts.',
    "Make the minion.d directory writable by the minion's user, then run schedule.save.",
    1,
  ),

  // jobs and modules
  UNKNOWN_FUNCTION: spec('The function is not in the module registry.', 'List functions with `brine run <target> sys.list_functions`.', 1),
  BAD_ARGUMENTS: spec('The arguments do not fit the function.', 'See the function signature with `brine run <target> sys.doc <function>`.', 1),
  EXEC_FAILED: spec('The function raised an error while running.', 'Read the message; it comes from the function itself.', 1),
  SERVICE_MANAGER_UNSUPPORTED: spec(
    "No service manager brine can drive on this host: systemd is not running and the os grain is not Debian, Raspbian, Devuan or NILinuxRT (whose /etc/init.d scripts brine runs as Salt's debian_service does).",
    'Manage the process with cmd.run (its init script or supervisor), or run the minion on a host booted with systemd.',
    1,
  ),
  DOCKER_UNAVAILABLE: spec(
    'A dockercompose.* or swarm.* function was called on a minion where docker is not installed or its daemon does not answer.',
    'Install the docker.io package (with docker-compose for compose files) and start the daemon, or point DOCKER_HOST at a running one.',
    1,
  ),
  DOCKER_UNSUPPORTED: spec(
    'A dockercompose.* or swarm.* function was called with a running docker daemon: brine declares these functions (so trees compile and answer test=True) but does not drive compose or swarm yet.',
    'Run `docker compose ...`, `docker swarm ...`, `docker service ...` or `docker node ...` with cmd.run instead.',
    1,
  ),
  MODULE_LOAD_FAILED: spec(
    'A custom module, state or grains file (synced from the master or in module_dirs) could not be loaded: it throws on import, exports the wrong shape, has an unsafe name or reuses an existing name. The other files still loaded.',
    'Fix or rename the file named in the message in the master file_roots (`_modules/`, `_states/`, `_grains/`), then run `saltutil.sync_all` again.',
    1,
  ),
  JOB_TIMEOUT: spec('The function ran longer than its timeout and was stopped.', 'Raise the timeout (`timeout=` for cmd.*), or find why it hangs.', 1),
  INVALID_JID: spec('A job ID is not 20 digits.', 'Use a jid as printed by `brine run -v` or `brine jobs list`.', 2),
  INVALID_BATCH: spec(
    'A batch option is out of range: -b/--batch must be a count of at least 1 or a percentage from 1% to 100%, --batch-wait a number of seconds >= 0.',
    'Give e.g. `-b 2` or `-b 25%`; nothing was sent.',
    2,
  ),
  TARGET_INVALID: spec('A target expression cannot be parsed.', 'Fix the expression; for -E it must be a valid regular expression.', 2),
  NO_MINIONS_MATCHED: spec('No accepted minion matched the target.', 'Check the target against `brine key -L`.', 2),
  USAGE: spec('The command line is not valid.', 'See `brine <command> --help`.', 64),
  INTERNAL: spec('An unexpected internal error.', 'Please report it with the log lines around it.', 1),

  // the mine
  MINE_UNAVAILABLE: spec(
    'A mine function needs the master (it keeps the mine) but this minion has no connection to one, or runs without the minion daemon.',
    'Run it through the minion daemon (`brine run`) and check the connection with `brine doctor`; nothing was stored.',
    1,
  ),
  MINE_DATA_TOO_LARGE: spec(
    'Mine data is larger than the protocol allows (1 MiB of JSON per minion, 8 MiB per mine.get answer).',
    'Mine smaller data (a narrower function or arguments), or narrow the mine.get target or function list; nothing was stored.',
    1,
  ),

  // the REST API and access control
  API_LISTEN_FAILED: spec(
    'The master cannot serve the REST API on api host:port, or its TLS certificate and key cannot be used.',
    'Stop whatever holds the port (`ss -ltnp`), set another `api: {port: ...}`, or fix ssl_crt/ssl_key (a PEM certificate and its private key).',
    1,
  ),
  EAUTH_CONFIG: spec(
    'external_auth is not usable: a backend that brine does not have, an ACL that is not a list, or a file backend without a readable ^filename.',
    'Fix external_auth in the master config (docs/api.md shows the format); the message names the backend and key.',
    78,
  ),
  EAUTH_UNAVAILABLE: spec(
    'The eauth backend named at login cannot be used here: it is not configured in external_auth, or the PAM binding (authenticate-pam) failed to load.',
    'Use an eauth listed in external_auth, or install the optional dependency authenticate-pam (it needs libpam0g-dev and a compiler) and restart the master.',
    1,
  ),
  HTPASSWD_HASH_UNSUPPORTED: spec(
    "A user's line in the htpasswd file uses a hash brine cannot check (DES crypt, SHA-crypt $5$/$6$, or an unknown $id$); the login is refused.",
    'Re-create the entry with bcrypt (`htpasswd -B`), MD5 (`htpasswd -m`) or SHA1 (`htpasswd -s`).',
    1,
  ),
  LOGIN_FAILED: spec('The user name, password or eauth backend given at login is wrong.', 'Check the credentials and the eauth name (pam or file); repeated failures are throttled.', 1),
  LOGIN_THROTTLED: spec(
    'Too many failed logins for this user name or from this address in api_login_window; this attempt was not checked.',
    'Wait for the time given in Retry-After (or the message) and log in with the right password; raise api_login_failures only if legitimate users hit it.',
    1,
  ),
  TOKEN_MISSING: spec(
    'An API request carried no token: no X-Auth-Token header, no session cookie (and for /events no ?token=).',
    'Log in with POST /login and send the token it returns in X-Auth-Token.',
    1,
  ),
  TOKEN_INVALID: spec('The API token is not one the master issued, was revoked by /logout, or is empty.', 'Log in again with POST /login and use the new token.', 1),
  TOKEN_EXPIRED: spec('The API token is older than token_expire.', 'Log in again with POST /login; raise token_expire if sessions must last longer.', 1),
  TOKEN_KEY_CHANGED: spec('The API token was issued before the master key changed, so it is no longer honoured.', 'Log in again with POST /login.', 1),
  TOKEN_USER_REMOVED: spec(
    "The API token's user is no longer in its eauth backend (removed from the eauth file) or has no external_auth entries; every token of that user was revoked.",
    'Log in as a user that exists; to end the sessions of a user at once without removing it, run `brine api tokens revoke --user NAME`.',
    1,
  ),
  ACL_DENIED: spec(
    "The user's external_auth ACL does not allow this function, target or argument; nothing ran.",
    'Ask for an ACL entry that covers it (docs/api.md: ACL format), or use a function and target your entries allow; the master log names user, target and function.',
    1,
  ),
  PILLAR_OVERRIDE_DENIED: spec(
    'A job passed an inline pillar (pillar=) but no ACL entry of the user grants @pillar_override; nothing ran.',
    "Run it without pillar= (put the data in the pillar files instead), or ask the administrator for the '@pillar_override' entry in external_auth or publisher_acl (docs/access-control.md).",
    1,
  ),
  CSRF_REFUSED: spec(
    'A state-changing API request authenticated only by the session cookie came without X-Requested-With: XMLHttpRequest or an allowed Origin.',
    'Send the token in X-Auth-Token, or send X-Requested-With: XMLHttpRequest from the web view.',
    1,
  ),
  API_BAD_REQUEST: spec(
    "An API request is malformed: the lowstate is not a list of mappings, a field has the wrong type, the body cannot be parsed, or a client or function brine's API does not offer.",
    'Send a list of {client, fun, tgt, arg, kwarg} mappings as JSON, YAML or a form (docs/api.md lists the clients and functions).',
    1,
  ),
  API_BODY_TOO_LARGE: spec('An API request body is larger than the api max_body limit; it was not read.', 'Send a smaller request, or raise `api: {max_body: ...}`.', 1),
  API_TIMEOUT: spec(
    'An API client sent its request headers or body too slowly (api header_timeout/body_timeout).',
    'Send the whole request promptly; a slow network may need larger header_timeout/body_timeout.',
    1,
  ),
  API_NOT_FOUND: spec('No API endpoint, minion, key or job by that name.', 'Check the path against docs/api.md, and the ID with GET /minions, /keys or /jobs.', 1),
  API_STREAMS_LIMIT: spec(
    "Too many GET /events streams are open: the API keeps at most 8 per user and 64 in all, so one client cannot hold the master's memory and sockets.",
    'Close the streams you no longer read (each browser tab of the web view holds one), or share one stream between your consumers.',
    1,
  ),

  // NATS (issue 13: brine on a nats-server cluster)
  NATS_KEY_UNSUPPORTED: spec(
    'A brine key that is not Ed25519 (an EC P-256 key) was to be used as a NATS identity; NATS nkeys are Ed25519 only.',
    'Give that master or minion an Ed25519 key (move its .pem aside, restart it, accept the new key), or keep it on the built-in transport.',
    65,
  ),
  NATS_KEY_INVALID: spec(
    'An nkey, nkey seed or NATS operator file is malformed: bad base32, a failed checksum, a wrong prefix or length.',
    'Check the value for a typo or truncation; for a file under <pki_dir>/nats, restore it from your backup (the message names it).',
    65,
  ),
  NATS_JWT_INVALID: spec(
    'A NATS JWT is malformed or its signature does not verify for the issuer it names.',
    'Issue the JWT again from a master (`brine nats server-config` for the server side); never edit a JWT by hand.',
    65,
  ),
  NATS_CLAIMS_UPDATE_FAILED: spec(
    'A master could not push an account JWT to the NATS servers (no answer, or the servers refused it), so a key change has not reached NATS yet.',
    'Check that the NATS servers run with the configuration from `brine nats server-config` and list this master (--master-key); then repeat the `brine key` command.',
    1,
  ),
  NATS_UNAVAILABLE: spec(
    'No NATS server of nats_servers could be reached, or JetStream did not answer (no quorum, a stream missing): with transport: nats nothing moves until one does.',
    'Check nats_servers and that the nats-server processes run (`nats-server -c <file>`, configured by `brine nats server-config`) and can reach each other; returns stay queued on the minions meanwhile.',
    69,
  ),
  NATS_ROUTE_SECRET_INVALID: spec(
    'The NATS cluster route password file (--cluster-password-file, default <pki_dir>/nats/route-password) does not hold a route password brine can use.',
    'Put one line of 32 to 256 letters, digits, - or _ in it, or remove it so `brine nats server-config` makes a new one; every server of the cluster needs the same file.',
    78,
  ),
  NATS_ENROLMENT_INVALID: spec(
    'The minion has no usable NATS enrolment file (nats_enrolment): it is missing, not JSON, or lacks the sign-in JWT, the BRINE account or the masters to trust.',
    'On a master run `brine nats enrolment -o <file>`, copy the file to the minion as nats_enrolment (default <pki_dir>/nats-enrolment.json) and restart the minion.',
    78,
  ),
  NATS_KV_UNAVAILABLE: spec(
    'The shared key bucket in NATS JetStream cannot be reached or written (servers down, no JetStream quorum, or the bucket missing), so key changes are not shared between masters yet.',
    "Check that a majority of the NATS servers run with JetStream (their monitor port's /healthz and /jsz); the master keeps working on its own key files and publishes its changes when the bucket answers again.",
    1,
  ),
  NATS_KV_VALUE_INVALID: spec(
    "An entry of the shared key bucket is not a valid key record (bad JSON, a field of the wrong type, a value that is not a public key, or a name that is no minion ID); it was skipped and this master's key files were left as they were.",
    'Repeat the `brine key` command for that minion on any master so the entry is written again, or delete the entry named in the log from the bucket.',
    65,
  ),
  NATS_KEY_SYNC_CONFLICT: spec(
    "Two masters changed the same minion's keys at the same time; the change already in the shared key bucket was kept and this master's own change to that minion was undone.",
    'Check the result with `brine key -L` (or `brine key -f <id>`) on any master, and repeat the command if it is not what you wanted.',
    1,
  ),
  NATS_REVOCATION_INCOMPLETE: spec(
    'After several attempts the account JWT on the NATS servers still lacks a revocation this master pushed, so a deleted, rejected or replaced key may still be able to connect.',
    'Check that the NATS servers answer and that this master is an operator signing key (`brine nats server-config --master-key`), then repeat the `brine key` command.',
    1,
  ),
  JOB_SIGNATURE_INVALID: spec(
    "A job or find_job arrived on a minion's NATS job subject without a valid signature of a master the minion trusts (unsigned, signed by another key, altered, expired or replayed); it was dropped and not run.",
    'If a new master sends it, give the minion an enrolment file that lists that master (`brine nats enrolment -o <file>` on a master, copied to nats_enrolment) and restart the minion; otherwise something other than a master can publish on the job subject: check who holds NATS credentials and that cluster routes require them.',
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/** The one error class: a stable code, a message and an optional cause. */
export class BrineError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BrineError';
    this.code = code;
    this.details = options.details ?? {};
  }

  /**
   * An outcome that is expected and can come thousands of times a second (a busy master's door
   * answer, an attempt abandoned on purpose): made without capturing a stack trace, which would
   * cost more than everything else the minion does with it.
   */
  static expected(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}): BrineError {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new BrineError(code, message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  get fix(): string {
    return ERRORS[this.code].fix;
  }

  get exitCode(): number {
    return ERRORS[this.code].exit;
  }

  /** The form that travels on the wire: a code plus a message, never a thrown object. */
  toWire(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isBrineError(err: unknown, code?: ErrorCode): err is BrineError {
  return err instanceof BrineError && (code === undefined || err.code === code);
}

/** Wraps anything thrown into a BrineError, keeping the original as the cause. */
export function toBrineError(err: unknown, fallback: ErrorCode = 'INTERNAL'): BrineError {
  if (err instanceof BrineError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new BrineError(fallback, message, { cause: err });
}

/** One line for a terminal: `CODE: message (fix)`. */
export function formatError(err: BrineError): string {
  return `${err.code}: ${err.message}\n  fix: ${err.fix}`;
}
