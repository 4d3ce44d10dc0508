// The log lines a short-lived CLI command prints on stderr with `-l LEVEL`, in salt's console
// form (`[DEBUG   ] message`). Without -l nothing is printed: the config's log_level is the
// daemons' and would otherwise change the output of every script that runs `brine run`.

import { isSaltLogLevel, passesLogLevel, type SaltLogLevel } from '../util/log-levels.js';

export type ConsoleLog = (level: SaltLogLevel, message: string) => void;

/** A logger for `-l`'s level; one that prints nothing when the flag was not given. */
export function consoleLog(flag: string | undefined, write: (line: string) => void = (line) => process.stderr.write(line)): ConsoleLog {
  if (flag === undefined || !isSaltLogLevel(flag)) return () => undefined;
  return (level, message) => {
    if (passesLogLevel(level, flag)) write(`[${level.toUpperCase().padEnd(8)}] ${message}\n`);
  };
}
