// The module registry a minion runs jobs with: the built-ins, custom states synced from the
// master (<cachedir>/extmods/states), custom modules from module_dirs and then those synced
// from the master (<cachedir>/extmods/modules). Built the same way by the daemon (at start and
// after saltutil.sync_*), each job worker thread and brine call, so all see the same functions.

import { existsSync } from 'node:fs';
import { extmodsDir, loadModuleDirs, type ModuleLoadLogger, type ModuleRegistry } from '../modules/index.js';
import { builtinStateFunctions } from '../state/modules/index.js';
import { loadCustomStates } from '../state/custom-states.js';
import { createMinionRegistry } from '../state/minion-registry.js';

export interface ExtensionsConfig {
  module_dirs?: readonly string[];
  cachedir?: string;
}

export interface MinionRegistryBuild {
  registry: ModuleRegistry;
  /** Files that failed to load, by kind of directory they are in. */
  problems: { kind: 'modules' | 'states'; file: string; reason: string }[];
}

export async function buildMinionRegistry(config: ExtensionsConfig, logger: ModuleLoadLogger): Promise<MinionRegistryBuild> {
  const cachedir = typeof config.cachedir === 'string' && config.cachedir !== '' ? config.cachedir : undefined;
  const problems: MinionRegistryBuild['problems'] = [];
  let registry: ModuleRegistry;
  if (cachedir !== undefined) {
    const taken = new Set(builtinStateFunctions.map((f) => f.name));
    const custom = await loadCustomStates(extmodsDir(cachedir, 'states'), taken, logger);
    problems.push(...custom.report.skipped.map((s) => ({ kind: 'states' as const, ...s })));
    registry = createMinionRegistry(custom.states.length > 0 ? { stateFunctions: [...builtinStateFunctions, ...custom.states] } : {});
  } else {
    registry = createMinionRegistry();
  }
  const dirs = (config.module_dirs ?? []).filter((d): d is string => typeof d === 'string');
  // the synced directory exists only after a first sync; a missing one is not worth a warning
  const synced = cachedir === undefined ? undefined : extmodsDir(cachedir, 'modules');
  if (synced !== undefined && existsSync(synced)) dirs.push(synced);
  const report = await loadModuleDirs(registry, dirs, logger);
  problems.push(...report.skipped.map((s) => ({ kind: 'modules' as const, ...s })));
  return { registry, problems };
}
