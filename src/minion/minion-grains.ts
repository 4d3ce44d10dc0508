// The grains a minion reports: core grains, then custom grains synced from the master
// (<cachedir>/extmods/grains) over them, then the static grains file (<config_dir>/grains, which
// grains.present and grains.setval write), then `grains:` from the config over all (Salt's order).
// Imports single files, not index files: `brine call` uses this and must start quickly.

import type { ModuleLoadLogger } from '../modules/custom-modules.js';
import { loadCustomGrains } from '../modules/custom-grains.js';
import { extmodsDir } from '../modules/extmods-sync.js';
import { grainsFilePath, readGrainsFile } from '../modules/grains-file.js';
import { collectGrains } from '../modules/grains.js';
import type { Grains } from '../modules/types.js';
import { errorMessage } from '../util/errors.js';

export interface MinionGrainsOptions {
  id: string;
  config: Readonly<Record<string, unknown>> & { grains?: Record<string, unknown>; cachedir?: string };
  logger: ModuleLoadLogger;
}

export async function collectMinionGrains(o: MinionGrainsOptions): Promise<{ grains: Grains; problems: { file: string; reason: string }[] }> {
  const core = await collectGrains({ id: o.id, config: o.config });
  const problems: { file: string; reason: string }[] = [];
  let fromFile: Record<string, unknown> = {};
  const file = grainsFilePath(o.config);
  try {
    fromFile = readGrainsFile(file);
  } catch (err) {
    problems.push({ file, reason: errorMessage(err) });
  }
  const cachedir = o.config.cachedir;
  if (typeof cachedir !== 'string' || cachedir === '') return { grains: { ...core, ...fromFile, ...(o.config.grains ?? {}) }, problems };
  const custom = await loadCustomGrains(extmodsDir(cachedir, 'grains'), { grains: core, opts: o.config }, o.logger);
  return { grains: { ...core, ...custom.grains, ...fromFile, ...(o.config.grains ?? {}) }, problems: [...problems, ...custom.skipped] };
}
