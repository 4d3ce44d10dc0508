// `brine master` and `brine minion`: run a daemon in the foreground until SIGTERM or SIGINT
// (SIGHUP reopens log_file); started as root with `user:` set, it switches to that user once up.

import type { Command } from 'commander';
import type { MasterOptions } from '../../config/index.js';
import { lookupGroupId } from '../../util/local-account.js';
import { type BrineError, ERRORS } from '../../util/errors.js';
import type { MinionRuntime } from '../../minion/index.js';
import { printable } from '../../util/printable.js';
import { fail, masterOptions, minionOptions, onSignals, type ConfigFlags } from '../common.js';
import { logConfigWarnings, prepareDaemon, type DaemonStart, type SharedDir } from '../daemon-start.js';

// Each daemon loads only its own code: a minion never pulls in the master's SQLite and key store.

/** With sock_group, sock_dir is shared with that group (an unknown group fails in the master). */
function sharedSockDir(opts: MasterOptions): SharedDir | undefined {
  const gid = opts.sock_group === '' ? undefined : lookupGroupId(opts.sock_group);
  return gid === undefined ? undefined : { dir: opts.sock_dir, gid };
}

export function registerDaemons(program: Command): void {
  program
    .command('master')
    .description('run the master in the foreground')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-l, --log-level <level>', "log level: Salt's names (debug, info, warning, error, critical, quiet ...)")
    .action(async (flags: ConfigFlags) => {
      try {
        // before any connection's buffers are allocated (see master-malloc.ts)
        const malloc = (await import('../master-malloc.js')).tuneMasterMalloc();
        const opts = masterOptions(flags);
        const daemon = prepareDaemon('master', opts, sharedSockDir(opts));
        const { logger } = daemon;
        logger.debug(malloc.applied ? `malloc: mmap threshold ${malloc.mmapThreshold} B, trim threshold ${malloc.trimThreshold} B` : `malloc: mmap threshold left as is (${malloc.reason})`);
        const { Master } = await import('../../master/index.js');
        const [{ BRINE_VERSION }, { masterLocalCall }, { masterIdOf }] = await Promise.all([
          import('../../modules/version.js'),
          import('../master-local-call.js'),
          import('../../master/features/runners.js'),
        ]);
        const extras = { version: BRINE_VERSION, localCall: masterLocalCall(opts, masterIdOf(opts), logger) };
        const master = await startOrDispose(daemon, () => Master.start(opts, logger, undefined, extras));
        // once up: a start-up failure stays one coded line; these do not stop the daemon
        logConfigWarnings(logger, opts, { role: 'master', localTrees: true });
        onSignals(() => stopThenDispose(daemon, () => master.stop()));
        daemon.started();
      } catch (err) {
        fail(err);
      }
    });

  program
    .command('minion')
    .description('run a minion in the foreground')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-l, --log-level <level>', "log level: Salt's names (debug, info, warning, error, critical, quiet ...)")
    .option('--show-id', 'print how the minion ID is resolved (as brine doctor id) and exit')
    .action(async (flags: ConfigFlags & { showId?: boolean }) => {
      try {
        if (flags.showId) {
          const { doctorId } = await import('./doctor.js');
          process.exitCode = await doctorId(flags);
          return;
        }
        await runMinionDaemon(flags);
      } catch (err) {
        fail(err);
      }
    });
}

/**
 * Runs a minion in this process until SIGTERM/SIGINT, exiting with the error's code when it
 * must stop for good. `hooks` is for tests only (a wrapper around the link callbacks); `brine
 * minion` passes none.
 */
export async function runMinionDaemon(flags: ConfigFlags, hooks: Pick<MinionRuntime, 'wrapLinkEvents'> = {}): Promise<void> {
  const opts = minionOptions(flags);
  const daemon = prepareDaemon('minion', opts);
  const { logger } = daemon;
  const { Minion } = await import('../../minion/index.js');
  const minion = await startOrDispose(daemon, () =>
    Minion.start(opts, logger, {
      ...hooks,
      onFatal: (err: BrineError) => {
        const headline =
          err.code === 'AUTH_REJECTED' || err.code === 'AUTH_DENIED' || err.code === 'INVALID_ID' || err.code === 'KEY_TYPE_UNSUPPORTED'
            ? "The master has rejected this minion's public key!"
            : err.code === 'MASTER_KEY_CHANGED' || err.code === 'MASTER_FINGER_MISMATCH'
              ? "The master's public key did not authenticate!"
              : 'The minion cannot continue.';
        // the message may be a master's own text (its refusal), and that master may be a fake one
        process.stderr.write(`${headline}\n${err.code}: ${printable(err.message)}\nfix: ${ERRORS[err.code].fix}\nThe minion will now exit.\n`);
        // let the log line flush before leaving
        setTimeout(() => process.exit(err.exitCode), 50);
      },
    }),
  );
  onSignals(() => stopThenDispose(daemon, () => minion.stop()));
  logConfigWarnings(logger, opts, { role: 'minion', localTrees: opts.file_client === 'local' });
  daemon.started();
}

/** Starts the daemon; if that fails, releases the log file and SIGHUP handler before rethrowing. */
async function startOrDispose<T>(daemon: DaemonStart, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    daemon.dispose();
    throw err;
  }
}

/** The stop path: the log file stays open until the daemon has logged its last line. */
async function stopThenDispose(daemon: DaemonStart, stop: () => Promise<void> | void): Promise<void> {
  try {
    await stop();
  } finally {
    daemon.dispose();
  }
}
