// Error codes of one area (jobs and modules); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const JOB_ERRORS = {
  UNKNOWN_FUNCTION: spec('The function is not in the module registry.', 'List functions with `brine run <target> sys.list_functions`.', 1),
  BAD_ARGUMENTS: spec('The arguments do not fit the function.', 'See the function signature with `brine run <target> sys.doc <function>`.', 1),
  EXEC_FAILED: spec('The function raised an error while running.', 'Read the message; it comes from the function itself.', 1),
  SERVICE_MANAGER_UNSUPPORTED: spec(
    'No service manager brine can drive on this host: systemd is not running, and the host is none whose /etc/init.d scripts brine runs as Salt does (debian_service on Debian, Raspbian, Devuan, NILinuxRT; rh_service on Red Hat family releases before systemd; linux_service on another Linux whose init is sysvinit or unknown). The message names the os grain and why.',
    'Manage the process with cmd.run (its init script or supervisor), or run the minion on a host booted with systemd.',
    1,
  ),
  SERVICE_FUNCTION_UNAVAILABLE: spec(
    "The host's service provider has no such function, as in Salt: linux_service (plain /etc/init.d scripts, no boot-link tool) cannot tell or change what starts at boot (service.enable, enabled, disabled, get_enabled ...). The service states then say 'Enable is not available on this minion' as Salt's do.",
    "Manage the rc links with file.symlink or cmd.run, or leave 'enable' out of the service state.",
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
  TARGET_INVALID: spec('A target expression cannot be parsed.', 'Fix the expression as the message says; `brine run` prints the fix for the target type used (-E, -C, -G ...).', 2),
  NO_MINIONS_MATCHED: spec('No accepted minion matched the target.', 'Check the target against `brine key -L`.', 2),
  USAGE: spec('The command line is not valid.', 'See `brine <command> --help`.', 64),
  INTERNAL: spec('An unexpected internal error.', 'Please report it with the log lines around it.', 1),
} as const satisfies Record<string, ErrorSpec>;
