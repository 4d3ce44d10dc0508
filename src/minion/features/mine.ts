// Mine: the minion's mine_functions (config merged with pillar) run every mine_interval and sent
// to the master, and mine.* for jobs. A masterless minion (file_client: local) keeps its own mine
// in its cachedir and starts its updates at once; otherwise the mine is the master's, reached over
// the session, and each sign-in (a restarted or failed-over master) gets an update, as Salt does.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { MinionStatus } from '../../protocol/index.js';
import { formatJid } from '../../jobs/jid.js';
import type { ExecContext, ExecResult, Grains, ModuleRegistry } from '../../modules/index.js';
import { LocalMine } from '../mine/local-mine.js';
import { MasterMine, type MineBackend } from '../mine/master-mine.js';
import { MINE_FUNCTION_TIMEOUT_S, MineService } from '../mine/mine-service.js';
import type { PillarStore } from '../pillar-store.js';
import type { MinionLink } from '../minion-link.js';
import type { LinkAccess, LinkMessage, MinionFeature } from './feature.js';
import type { JobPort } from './job-port.js';

export interface MineParts {
  opts: MinionOptions;
  id: string;
  clock: Clock;
  logger: Logger;
  grains: () => Grains;
  pillar: PillarStore;
  jobs: JobPort;
  registry: { load(): Promise<ModuleRegistry>; hasFunction(fun: string): boolean | Promise<boolean> };
}

/** The mine service over either backend; the subclasses say when updates start and what a link brings. */
abstract class MineFeature implements MinionFeature {
  readonly name = 'mine';
  readonly service: MineService;

  constructor(
    protected readonly parts: MineParts,
    backend: MineBackend,
  ) {
    const { opts, clock, logger, pillar, jobs, registry } = parts;
    this.service = new MineService({
      master: backend,
      // mine.valid runs inside a job, so the registry is there; a mine update may come first
      hasFunction: (fun) => registry.hasFunction(fun),
      run: (fun, arg, kwarg) => jobs.runFunction(fun, arg, kwarg, formatJid(clock.now() * 1000), MINE_FUNCTION_TIMEOUT_S),
      configured: opts.mine_functions,
      pillar,
      clock,
      logger,
      intervalMs: opts.mine_enabled ? opts.mine_interval * 60_000 : undefined,
    });
  }

  stop(): void {
    this.service.stop();
  }

  /** A mine.* call from a job's template (a blocking salt[...] call), run inline with the mine service. */
  async hostCall(fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<ExecResult> {
    const { grains, id, opts, registry } = this.parts;
    const loaded = await registry.load();
    const ctx: ExecContext = { grains, minionId: id, config: opts, signal: new AbortController().signal, jid: 'mine', mine: this.service };
    return loaded.call(fun, arg, kwarg, ctx);
  }

  status(): Pick<MinionStatus, 'mine'> {
    const last = this.service.status;
    return last === undefined ? {} : { mine: last };
  }
}

/** file_client: local: this minion's own mine; it needs no session, so its updates start now. */
export class LocalMineFeature extends MineFeature {
  constructor(parts: MineParts) {
    super(parts, new LocalMine(parts.opts.cachedir, parts.id, parts.grains));
  }

  start(): void {
    this.service.onReady();
  }
}

/** file_client: remote: the master's mine; each sign-in gets an update. */
export class MasterMineFeature extends MineFeature {
  private readonly master: MasterMine;

  constructor(parts: MineParts, links: LinkAccess) {
    const master = new MasterMine(() => links.all(), parts.clock);
    super(parts, master);
    this.master = master;
  }

  onReady(): void {
    this.service.onReady();
  }

  onMessage(m: LinkMessage): boolean {
    if (m.t !== 'mine_reply') return false;
    this.master.onReply(m);
    return true;
  }

  onDown(link: MinionLink): void {
    this.master.onLinkDown(link);
  }
}
