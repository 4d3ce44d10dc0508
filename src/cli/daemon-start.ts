// What `brine master` and `brine minion` do around starting the daemon itself: refuse unsafe
// local directories before anything is opened (threats.md #34), and log to stderr and log_file
// (reopened on SIGHUP for logrotate).

import * as os from 'node:os';
import type { CommonOptions } from '../config/index.js';
import { LogFile } from '../util/log-file.js';
import { createLogger, type Logger } from '../util/logger.js';
import { checkPrivateDirs } from '../util/private-dirs.js';

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
}

/**
 * stderr at log_level and log_file at log_level_logfile (Salt's pair of options), in log_fmt.
 * SIGHUP reopens the file, so logrotate can rename it and signal the daemon; it also keeps
 * SIGHUP from ending the daemon, which is Node's default.
 */
export function openDaemonLog(name: string, opts: Pick<CommonOptions, 'log_level' | 'log_level_logfile' | 'log_fmt' | 'log_file'>): DaemonLog {
  const file = LogFile.open(opts.log_file);
  const logger = createLogger({ name, level: opts.log_level, format: opts.log_fmt, sinks: [{ level: opts.log_level_logfile ?? opts.log_level, write: (line) => file.write(line) }] });
  process.on('SIGHUP', () => {
    try {
      file.reopen();
      logger.info({ file: opts.log_file }, `reopened log_file ${opts.log_file} (SIGHUP)`);
    } catch (err) {
      logger.error({ err, file: opts.log_file }, `cannot reopen log_file ${opts.log_file} on SIGHUP; still writing to the file open before. Fix the path or its permissions and send SIGHUP again`);
    }
  });
  return { logger, file };
}
