// Shared pieces of the CLI commands: config loading from -c/--config-dir, and
// the one place errors become a message and an exit code.

// the loader and option types only: the config barrel also loads `config show` and the docs generator
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { asMasterOptions, asMinionOptions, type MasterOptions, type MinionOptions } from '../config/options.js';
import { BrineError, formatError, toBrineError } from '../util/errors.js';
import { isSaltLogLevel } from '../util/log-levels.js';

export interface ConfigFlags {
  configDir?: string;
  logLevel?: string;
}

function overrides(flags: ConfigFlags): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (flags.logLevel !== undefined) {
    if (!isSaltLogLevel(flags.logLevel)) throw new BrineError('USAGE', `unknown log level '${flags.logLevel}': use one of all, garbage, trace, debug, profile, info, warning, error, critical, quiet`);
    out.log_level = flags.logLevel;
  }
  return out;
}

/**
 * Loads a role's configuration. A directory named explicitly (-c or BRINE_CONFIG_DIR) must hold
 * the role's file, so a typo in the path is an error rather than a silent run on defaults; the
 * default /etc/brine may be absent, as with Salt.
 */
export function loadRole(role: 'master' | 'minion', flags: ConfigFlags): LoadedConfig {
  const explicit = flags.configDir !== undefined || Boolean(process.env.BRINE_CONFIG_DIR);
  const opts: Parameters<typeof loadConfig>[1] = { env: process.env, overrides: overrides(flags), requireFile: explicit };
  if (flags.configDir !== undefined) opts.configDir = flags.configDir;
  return loadConfig(role, opts);
}

export function masterOptions(flags: ConfigFlags): MasterOptions {
  return asMasterOptions(loadRole('master', flags));
}

export function minionOptions(flags: ConfigFlags): MinionOptions {
  return asMinionOptions(loadRole('minion', flags));
}

/** Prints a coded error with its fix and exits with its code. */
export function fail(err: unknown): never {
  const e = toBrineError(err);
  process.stderr.write(`${formatError(e)}\n`);
  process.exit(e.exitCode);
}

/** A command's action: its resolved number becomes the exit status; a throw is printed by `fail`. */
export function exitWith<A extends unknown[]>(action: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      process.exitCode = await action(...args);
    } catch (err) {
      fail(err);
    }
  };
}

/** Runs `stop` once on SIGTERM or SIGINT, then exits 0 (1 if stopping failed). */
export function onSignals(stop: () => Promise<void> | void): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    Promise.resolve(stop()).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
