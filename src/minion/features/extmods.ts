// Extensions: the module registry (execution modules, state modules, renderers) and the custom
// modules, states and grains synced from the master (saltutil.sync_*). With module_dirs or synced
// modules the registry is built at start, so their problems are reported then; otherwise on first
// use, so a minion that runs no job never loads that code. A sync builds it again.

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { MinionStatus } from '../../protocol/index.js';
import type { ModuleRegistry } from '../../modules/index.js';
import { extmodsDir } from '../../modules/extmods-sync.js';
import type { ExtmodKind, ExtmodProblem, ExtmodProblems } from '../extmod-problems.js';
import type { MinionRegistryBuild } from '../minion-extensions.js';
import type { MinionFeature } from './feature.js';
import type { JobPort } from './job-port.js';

export class ExtensionsFeature implements MinionFeature {
  readonly name = 'extmods';
  private built: ModuleRegistry | undefined;
  /** A first-use build in progress (one build for concurrent callers). */
  private loading: Promise<ModuleRegistry> | undefined;

  constructor(
    private readonly parts: { opts: MinionOptions; logger: Logger },
    private readonly problems: ExtmodProblems,
    private readonly jobs: JobPort,
    /** What a sync_grains changes besides the registry: the grains, and the pillar rendered with them. */
    private readonly grains: { refresh(): Promise<ExtmodProblem[]> },
    private readonly pillar: { refreshAfterGrains(): Promise<void> },
  ) {}

  async start(): Promise<void> {
    if (!hasExtensions(this.parts.opts)) return;
    const built = await buildRegistry(this.parts.opts, this.parts.logger);
    this.built = built.registry;
    this.problems.note(['modules', 'states'], built.problems);
  }

  /** The registry: at once when built (a job starts in the same tick), else built now. */
  registry(): ModuleRegistry | Promise<ModuleRegistry> {
    return this.built ?? this.load();
  }

  /** Whether the minion has this function (a promise while the registry is built). */
  hasFunction(fun: string): boolean | Promise<boolean> {
    return this.built ? this.built.get(fun) !== undefined : this.load().then((r) => r.get(fun) !== undefined);
  }

  /** The registry, built on first use when the start did not need it. */
  load(): Promise<ModuleRegistry> {
    if (this.built) return Promise.resolve(this.built);
    this.loading ??= buildRegistry(this.parts.opts, this.parts.logger).then((built) => {
      // a sync (reload) may have replaced it meanwhile: keep the newer one
      if (this.built === undefined) {
        this.built = built.registry;
        this.problems.note(['modules', 'states'], built.problems);
      }
      this.loading = undefined;
      return this.built;
    });
    return this.loading;
  }

  /**
   * After saltutil.sync_*: a new registry for the jobs that follow (modules, states), and/or
   * grains collected and sent again. Resolves to the synced files that failed to load.
   */
  async reload(kinds: readonly ExtmodKind[]): Promise<ExtmodProblem[]> {
    const { opts, logger } = this.parts;
    const problems: ExtmodProblem[] = [];
    if (kinds.includes('modules') || kinds.includes('states')) {
      const built = await buildRegistry(opts, logger);
      this.built = built.registry;
      this.loading = undefined;
      this.jobs.replaceRegistry(built.registry);
      // module_dirs problems were there before any sync; report those of the synced files
      const all = this.problems.note(['modules', 'states'], built.problems);
      const asked = kinds.filter((k) => k !== 'grains').map((k) => extmodsDir(opts.cachedir, k) + path.sep);
      problems.push(...all.filter((p) => asked.some((dir) => p.file.startsWith(dir))));
    }
    if (kinds.includes('grains')) {
      problems.push(...(await this.grains.refresh()));
      await this.pillar.refreshAfterGrains();
    }
    return problems;
  }

  status(): Pick<MinionStatus, 'customModuleProblems'> {
    return this.problems.status();
  }
}

/** module_dirs, or custom modules or states synced from the master (saltutil.sync_*). */
function hasExtensions(opts: MinionOptions): boolean {
  if ((opts.module_dirs ?? []).length > 0) return true;
  return opts.cachedir !== '' && (existsSync(extmodsDir(opts.cachedir, 'modules')) || existsSync(extmodsDir(opts.cachedir, 'states')));
}

/** The registry's code (execution modules, state compiler, renderers) is loaded only here. */
async function buildRegistry(opts: MinionOptions, logger: Logger): Promise<MinionRegistryBuild> {
  const { buildMinionRegistry } = await import('../minion-extensions.js');
  return buildMinionRegistry(opts, logger);
}
