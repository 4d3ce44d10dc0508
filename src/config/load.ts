// Loads a role's configuration the Salt way (`<dir>/<role>`, then `<dir>/<role>.d/*.conf`
// sorted, later files win per top-level key), but validates strictly: a wrong type, a value
// outside an enum or a one-typo-away key stops start-up with a message naming file and option.

import { join, resolve } from 'node:path';
import { BrineError } from '../util/errors.js';
import { checkValue, describeValue, isPlainMapping } from './check-value.js';
import { defaultFor, type Role } from './option-spec.js';
import { listDropIns, readConfigFile } from './read-file.js';
import { prependRootDir, resolveTrees } from './root-dir.js';
import { findOption, optionsFor } from './schema.js';
import { suggestOption } from './typo.js';

export const DEFAULT_CONFIG_DIR = '/etc/brine';
/** `sources` value for an option nobody set. */
export const DEFAULT_SOURCE = 'default';
/** `sources` value for config_dir, which comes from where the files were found. */
export const DERIVED_SOURCE = 'derived';
/** `sources` value for `overrides` (command-line flags). */
export const OVERRIDE_SOURCE = 'command line';

export interface LoadOptions {
  /** Wins over env.BRINE_CONFIG_DIR and the default /etc/brine. */
  configDir?: string;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Applied after all files (e.g. `-l debug`); undefined values are skipped. */
  overrides?: Record<string, unknown>;
  /** Fail with CONFIG_NOT_FOUND when `<dir>/<role>` does not exist. */
  requireFile?: boolean;
}

export interface LoadedConfig {
  readonly role: Role;
  /** Absolute. */
  readonly configDir: string;
  /** The files actually read, in the order they were applied. */
  readonly files: readonly string[];
  /** Effective options: defaults, then files, then overrides, validated and typed. */
  readonly opts: Record<string, unknown>;
  /** For each key in opts: the file that set it, 'default', 'derived' or 'command line'. */
  readonly sources: Record<string, string>;
}

interface Setting {
  value: unknown;
  source: string;
}

function where(source: string): string {
  return source === OVERRIDE_SOURCE ? 'from the command line' : `in ${source}`;
}

/** Validates one layer (a file or the overrides) and writes it over `into`. */
function applyLayer(into: Map<string, Setting>, data: Record<string, unknown>, source: string, configDir: string): void {
  for (const [key, raw] of Object.entries(data)) {
    if (raw === undefined) continue;
    const spec = findOption(key);
    if (spec === undefined) {
      const suggestion = suggestOption(key);
      if (suggestion !== undefined) {
        throw new BrineError('CONFIG_UNKNOWN_KEY', `unknown option '${key}' ${where(source)}: did you mean '${suggestion}'?`, {
          details: { option: key, file: source, suggestion },
        });
      }
      // Salt reads module settings (`mysql.host`, ...) from the same file: keep them untouched.
      into.set(key, { value: raw, source });
      continue;
    }
    if (spec.derived) {
      if (raw === configDir) continue;
      throw new BrineError(
        'CONFIG_VALUE',
        `option '${key}' ${where(source)} cannot be set: it is the directory the configuration is read from (${configDir}); use -c/--config-dir or BRINE_CONFIG_DIR instead`,
        {
          details: { option: key, file: source },
        },
      );
    }
    const checked = checkValue(spec, raw);
    if (!checked.ok) {
      throw new BrineError(checked.code, `option '${key}' ${where(source)} must be ${checked.expected}, got ${describeValue(raw)}`, {
        details: { option: key, file: source, expected: checked.expected },
      });
    }
    into.set(key, { value: checked.value, source });
  }
}

/** Rules between options: a liveness timeout shorter than the interval would drop every quiet connection. */
function checkRelations(settings: Map<string, Setting>): void {
  const num = (name: string) => settings.get(name)?.value;
  const interval = num('heartbeat_interval');
  const timeout = num('heartbeat_timeout');
  if (typeof interval === 'number' && typeof timeout === 'number' && timeout <= interval) {
    const src = settings.get('heartbeat_timeout')!.source;
    throw new BrineError(
      'CONFIG_VALUE',
      `option 'heartbeat_timeout' ${where(src)} (${timeout} s) must be longer than heartbeat_interval (${interval} s), or every quiet connection would be dropped; 3x the interval is usual`,
    );
  }
  const base = num('recon_default');
  const max = num('recon_max');
  if (typeof base === 'number' && typeof max === 'number' && max < base) {
    const src = settings.get('recon_max')!.source;
    throw new BrineError('CONFIG_VALUE', `option 'recon_max' ${where(src)} (${max} ms) must be at least recon_default (${base} ms)`);
  }
}

export function loadConfig(role: Role, opts: LoadOptions = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const fromEnv = env.BRINE_CONFIG_DIR === '' ? undefined : env.BRINE_CONFIG_DIR;
  const configDir = resolve(opts.configDir ?? fromEnv ?? DEFAULT_CONFIG_DIR);

  const settings = new Map<string, Setting>();
  for (const spec of optionsFor(role)) {
    const value = defaultFor(spec, role);
    if (value !== undefined) settings.set(spec.name, { value, source: DEFAULT_SOURCE });
  }
  settings.set('config_dir', { value: configDir, source: DERIVED_SOURCE });

  const files: string[] = [];
  const baseFile = join(configDir, role);
  const candidates: Array<{ file: string; required: boolean }> = [
    { file: baseFile, required: opts.requireFile ?? false },
    // A drop-in that vanishes between listing and reading is simply skipped.
    ...listDropIns(join(configDir, `${role}.d`)).map((file) => ({ file, required: false })),
  ];
  for (const { file, required } of candidates) {
    const data = readConfigFile(file, required);
    if (data === undefined) continue;
    files.push(file);
    applyLayer(settings, data, file, configDir);
  }
  if (opts.overrides !== undefined) applyLayer(settings, opts.overrides, OVERRIDE_SOURCE, configDir);

  // root_dir last, so that it applies whichever layer set it and whichever set the paths.
  const rootSetting = settings.get('root_dir');
  const rootDir = resolve(typeof rootSetting?.value === 'string' ? rootSetting.value : '/');
  if (rootSetting !== undefined) rootSetting.value = rootDir;
  for (const [name, setting] of settings) {
    const spec = findOption(name);
    if (spec?.path && typeof setting.value === 'string') setting.value = prependRootDir(rootDir, setting.value);
    else if (spec?.trees && isPlainMapping(setting.value)) setting.value = resolveTrees(rootDir, setting.value);
  }

  checkRelations(settings);

  // Object.fromEntries defines own properties, so a `__proto__` key cannot reach a prototype.
  return {
    role,
    configDir,
    files,
    opts: Object.fromEntries([...settings].map(([k, s]) => [k, s.value])),
    sources: Object.fromEntries([...settings].map(([k, s]) => [k, s.source])),
  };
}
