// Which doctor groups run, and the config line each starts with: `brine doctor` runs the minion
// checks when <config dir>/minion exists and the master checks when <config dir>/master does.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_CONFIG_DIR, asMasterOptions, asMinionOptions, type LoadedConfig } from '../../config/index.js';
import { toBrineError } from '../../util/errors.js';
import { loadRole, type ConfigFlags } from '../common.js';
import { fail, ok, warn, type Check } from './check.js';
import { masterChecks } from './master-checks.js';
import { minionChecks } from './minion-checks.js';

export type DoctorGroup = 'minion' | 'master';

export function configDirOf(flags: ConfigFlags): string {
  return path.resolve(flags.configDir ?? (process.env.BRINE_CONFIG_DIR || DEFAULT_CONFIG_DIR));
}

/** The groups `brine doctor` without a subcommand runs: those whose config file exists. */
export function groupsFor(configDir: string, exists: (file: string) => boolean = fs.existsSync): DoctorGroup[] {
  return (['minion', 'master'] as const).filter((role) => exists(path.join(configDir, role)));
}

/** The config line: FAIL with the coded load error, WARN when no file was read (defaults only). */
function loadGroup(role: DoctorGroup, flags: ConfigFlags): { loaded?: LoadedConfig; check: Check } {
  const what = `${role} config`;
  try {
    const loaded = loadRole(role, flags);
    if (loaded.files.length === 0) {
      return {
        loaded,
        check: warn(what, `no ${role} config file in ${loaded.configDir}; checking with the defaults`, `point -c/--config-dir (or BRINE_CONFIG_DIR) at the directory holding the ${role} file`),
      };
    }
    return { loaded, check: ok(what, `${loaded.files.join(', ')} ${loaded.files.length === 1 ? 'is' : 'are'} valid`) };
  } catch (err) {
    const e = toBrineError(err);
    return { check: fail(what, `${e.code}: ${e.message}`, e.fix) };
  }
}

export async function runGroup(role: DoctorGroup, flags: ConfigFlags): Promise<Check[]> {
  const { loaded, check } = loadGroup(role, flags);
  if (!loaded) return [check];
  return role === 'minion' ? minionChecks(asMinionOptions(loaded), check) : masterChecks(asMasterOptions(loaded), check);
}

/** `brine doctor`: every group whose config exists; a FAIL when there is none. */
export async function runAll(flags: ConfigFlags): Promise<Check[]> {
  const dir = configDirOf(flags);
  const groups = groupsFor(dir);
  if (groups.length === 0) {
    return [
      fail(
        'config',
        `neither ${path.join(dir, 'minion')} nor ${path.join(dir, 'master')} exists`,
        'point -c/--config-dir (or BRINE_CONFIG_DIR) at the directory holding the minion or master file, or run brine doctor minion / brine doctor master to check with the defaults',
      ),
    ];
  }
  const out: Check[] = [];
  for (const g of groups) out.push(...(await runGroup(g, flags)));
  return out;
}
