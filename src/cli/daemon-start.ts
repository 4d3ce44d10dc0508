// What `brine master` and `brine minion` do around starting the daemon itself: refuse unsafe
// local directories before anything is opened (threats.md #34), log to stderr and log_file
// (reopened on SIGHUP for logrotate), and switch to `user:` once the daemon has bound its port.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommonOptions } from '../config/index.js';
import { configWarnings, type WarningContext } from '../config/start-warnings.js';
import { LogFile } from '../util/log-file.js';
import { createLogger, type Logger } from '../util/logger.js';
import { checkPrivateDirs } from '../util/private-dirs.js';
import { assertReachable, resolveRunAs, switchUser } from './run-as.js';

/** The directories a daemon keeps its control socket, keys and cache in. */
export function privateDirsOf(opts: Pick<CommonOptions, 'sock_dir' | 'pki_dir' | 'cachedir'>): Array<{ option: string; path: string }> {
  return [
    { option: 'sock_dir', path: opts.sock_dir },
    { option: 'pki_dir', path: opts.pki_dir },
    { option: 'cachedir', path: opts.cachedir },
  ];
}

/** Throws UNSAFE_DIR when another local user could change one of the daemon's directories. */
export function checkDaemonDirs(opts: Pick<CommonOptions, 'sock_dir' | 'pki_dir' | 'cachedir'>, alsoTrusted?: number): void {
  const me = os.userInfo();
  checkPrivateDirs(privateDirsOf(opts), { uid: me.uid, userName: me.username, ...(alsoTrusted === undefined ? {} : { alsoTrusted }) });
}

export interface DaemonLog {
  logger: Logger;
  file: LogFile;
  /** Removes the SIGHUP handler and closes log_file: for a daemon stopped inside a process that goes on (tests). */
  dispose(): void;
}

/**
 * stderr at log_level and log_file at log_level_logfile (Salt's pair of options), in log_fmt.
 * SIGHUP reopens the file, so logrotate can rename it and signal the daemon; it also keeps
 * SIGHUP from ending the daemon, which is Node's default.
 */
export function openDaemonLog(name: string, opts: Pick<CommonOptions, 'log_level' | 'log_level_logfile' | 'log_fmt' | 'log_file'>): DaemonLog {
  const file = LogFile.open(opts.log_file);
  const logger = createLogger({ name, level: opts.log_level, format: opts.log_fmt, sinks: [{ level: opts.log_level_logfile ?? opts.log_level, write: (line) => file.write(line) }] });
  const onHup = (): void => {
    try {
      file.reopen();
      logger.info({ file: opts.log_file }, `reopened log_file ${opts.log_file} (SIGHUP)`);
    } catch (err) {
      logger.error({ err, file: opts.log_file }, `cannot reopen log_file ${opts.log_file} on SIGHUP; still writing to the file open before. Fix the path or its permissions and send SIGHUP again`);
    }
  };
  process.on('SIGHUP', onHup);
  return {
    logger,
    file,
    dispose() {
      process.off('SIGHUP', onHup);
      file.close();
    },
  };
}

/** Creates `dir` (0700) and returns the directories above it that this call created. */
function createdAbove(dir: string): string[] {
  const first = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const out: string[] = [];
  if (first === undefined) return out;
  for (let d = path.dirname(dir); d.length >= first.length && d !== path.dirname(d); d = path.dirname(d)) out.push(d);
  return out;
}

export interface DaemonStart {
  logger: Logger;
  /** Call once the daemon has bound its port and made its directories: switches to `user:`. */
  started(): void;
  /** Call once the daemon has stopped (or failed to start): releases log_file and its SIGHUP handler. */
  dispose(): void;
}

/** A directory whose group grants access (the master's sock_dir with sock_group). */
export interface SharedDir {
  dir: string;
  gid: number;
}

/** The shared directory, what is in it and what is above it that has its group: kept on `user:`. */
function groupOwned(shared: SharedDir): string[] {
  const dir = path.resolve(shared.dir);
  const out: string[] = [];
  for (const name of fs.readdirSync(dir)) if (fs.lstatSync(path.join(dir, name)).gid === shared.gid) out.push(path.join(dir, name));
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) if (fs.statSync(d, { throwIfNoEntry: false })?.gid === shared.gid) out.push(d);
  return out;
}

/**
 * Everything before a daemon opens its port: the user to become, the directory check, the log.
 * `shared`: the directories brine creates above it become 0750 of its group (members must reach
 * the socket), and the switch to `user:` leaves that group alone.
 */
export function prepareDaemon(name: 'master' | 'minion' | 'api', opts: CommonOptions, shared?: SharedDir): DaemonStart {
  const runAs = resolveRunAs(opts.user);
  checkDaemonDirs(opts, runAs?.uid);
  // made now, so that the directories brine creates above them are known and handed over too
  const created =
    runAs === undefined
      ? []
      : privateDirsOf(opts).flatMap((d) => {
          const above = createdAbove(d.path);
          if (shared !== undefined && path.resolve(d.path) === path.resolve(shared.dir)) {
            for (const a of above) {
              fs.chownSync(a, -1, shared.gid);
              fs.chmodSync(a, 0o750);
            }
          }
          return above;
        });
  const { logger, file, dispose } = openDaemonLog(name, opts);
  return {
    logger,
    dispose,
    started() {
      if (runAs === undefined) return;
      const dirs = privateDirsOf(opts).map((d) => d.path);
      switchUser(runAs, dirs, [...file.ownedPaths(), ...created], shared === undefined ? [] : groupOwned(shared));
      assertReachable(runAs, [...dirs, opts.log_file]);
      logger.info(
        { user: runAs.name, uid: runAs.uid },
        `brine ${name} now runs as ${runAs.name} (uid ${runAs.uid}); ${privateDirsOf(opts)
          .map((d) => d.option)
          .join(', ')} and log_file belong to it`,
      );
    },
  };
}

/** Logs each start-up warning of the configuration (missing trees, Salt options brine ignores). */
export function logConfigWarnings(logger: Pick<Logger, 'warn'>, opts: Readonly<Record<string, unknown>>, ctx: WarningContext): void {
  for (const w of configWarnings(opts, ctx)) logger.warn({ option: w.option }, w.message);
}
