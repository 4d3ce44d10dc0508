// Error codes of one area (daemons and control); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const DAEMON_ERRORS = {
  LISTEN_FAILED: spec('The master cannot listen on its port or control socket.', 'Stop whatever holds the port (`ss -ltnp`), or change ret_port/interface.', 1),
  METRICS_LISTEN_FAILED: spec('The master cannot serve /metrics on metrics_host:metrics_port.', 'Stop whatever holds the port (`ss -ltnp`), or set another metrics_port (or metrics_host).', 1),
  MASTER_UNREACHABLE: spec(
    'The CLI (or `brine api`, then as HTTP 503) cannot reach the master through its control socket.',
    'Start the master (`brine master`) or point -c at the config it uses; check sock_dir.',
    2,
  ),
  MASTER_CONNECTION_LOST: spec(
    'The master went away (stopped, restarted or killed) while `brine run` waited for a job: the returns printed are all that arrived; the minions listed as [Master connection lost] had been sent the job and had not returned.',
    'Check why the master stopped (its log, `systemctl status brine-master`); once it runs again, `brine jobs show <jid>` shows the returns that reached it, and `brine jobs active` what still runs.',
    1,
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
} as const satisfies Record<string, ErrorSpec>;
