// Salt's log level names, apart from the logger itself: the config schema and the CLI check
// them, and loading pino (the logger) for that alone costs every `brine call` and job worker.

export const SALT_LOG_LEVELS = ['all', 'garbage', 'trace', 'debug', 'profile', 'info', 'warning', 'error', 'critical', 'quiet'] as const;
export type SaltLogLevel = (typeof SALT_LOG_LEVELS)[number];

export function isSaltLogLevel(level: string): level is SaltLogLevel {
  return (SALT_LOG_LEVELS as readonly string[]).includes(level);
}

/** Whether a line at `level` passes a `threshold` (the order of SALT_LOG_LEVELS, quiet above all). */
export function passesLogLevel(level: SaltLogLevel, threshold: SaltLogLevel): boolean {
  return SALT_LOG_LEVELS.indexOf(level) >= SALT_LOG_LEVELS.indexOf(threshold);
}
