// The control socket: `brine doctor` reads the running daemon's own view (links, RTT, return
// queue) and `brine call` without --local runs a function through the daemon's master session.
// A diagnostic aid: a minion that cannot open it still runs.

import { toBrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { MinionStatus } from '../../protocol/index.js';
import type { UnixListener } from '../../transport/index.js';
import { minionSocketPath, startMinionControl } from '../control-server.js';
import { runControlCall, type ControlCallHost } from '../control-call.js';
import type { LinkAccess, MinionFeature } from './feature.js';
import type { EventsFeature } from './events.js';
import type { JobsFeature } from './jobs.js';
import type { PillarFeature } from './pillar.js';
import type { MasterPresence } from './presence.js';
import type { ReturnsFeature } from './returns.js';

/** The features `brine call`'s local jobs use: the links, the pillar, the job runner and the returns; and the bus event.fire reaches. */
export interface CallFeatures {
  presence: MasterPresence;
  pillar: PillarFeature;
  jobs: JobsFeature;
  returns: ReturnsFeature;
  events: EventsFeature;
}

export class ControlFeature implements MinionFeature {
  readonly name = 'control';
  private listener: UnixListener | undefined;
  private stopped = false;
  private readonly callHost: ControlCallHost;
  private readonly events: EventsFeature;

  constructor(
    private readonly parts: { opts: MinionOptions; id: string; logger: Logger; links: LinkAccess },
    private readonly status: () => MinionStatus,
    { presence, pillar, jobs, returns, events }: CallFeatures,
  ) {
    const { opts, id, links } = parts;
    this.events = events;
    this.callHost = {
      id,
      masterless: opts.file_client === 'local' || opts.master_type === 'disable',
      links: () => links.all(),
      lastDown: (link) => presence.lastDown(link),
      newJid: () => jobs.newJid(),
      refreshPillar: () => pillar.refresh(),
      run: (job) => jobs.runner.run(job),
      kill: (jid) => jobs.runner.kill(jid),
      deliver: (ret) => returns.own(ret),
    };
  }

  async start(): Promise<void> {
    const { opts, logger } = this.parts;
    const socketPath = minionSocketPath(opts);
    try {
      const listener = await startMinionControl(socketPath, {
        logger,
        status: () => this.status(),
        call: (req, cancelled) => runControlCall(this.callHost, req, cancelled),
        fire: (tag, data) => void this.events.access.fireLocal(tag, data),
      });
      if (this.stopped) void listener.close();
      else this.listener = listener;
    } catch (err) {
      logger.warn(
        { socket: socketPath, err: toBrineError(err).message },
        `cannot open the minion control socket ${socketPath}; brine doctor will not see this minion's own view. Give each minion on a host its own sock_dir.`,
      );
    }
  }

  stop(): void {
    this.stopped = true;
    void this.listener?.close();
  }
}
