// transport: nats (docs/scale-out.md): this master's side of the cluster instead of the TLS
// listener. The NatsMaster makes a MinionSession for each minion heard from, with the same hooks.

import type { SignIn } from '../sign-in.js';
import type { MineStore } from '../mine-store.js';
import type { LiveSessions } from '../live-sessions.js';
import type { MinionSessionHooks, MinionSessionSettings } from '../minion-session.js';
import { NatsMaster, type NatsMasterDeps } from '../nats-master.js';
import type { MasterFeature } from './master-feature.js';
import { errorMessage } from '../../util/errors.js';

export interface NatsTransportDeps extends Omit<NatsMasterDeps, 'adopt' | 'stopped' | 'mine'> {
  /** This master's mine, shared with the others through the data bucket. */
  mine: MineStore;
  settings: MinionSessionSettings;
  hooks: MinionSessionHooks;
  authorize: SignIn;
  live: LiveSessions;
}

export class NatsTransport implements MasterFeature {
  readonly name = 'nats';
  readonly hub: NatsMaster;
  private stopped = false;

  constructor(private readonly deps: NatsTransportDeps) {
    this.hub = new NatsMaster({
      ...deps,
      adopt: (session) => deps.live.add(session),
      mine: {
        mineOf: (id) => deps.mine.mineOf(id),
        replace: (id, fingerprint, data) => {
          try {
            deps.mine.send(id, fingerprint, data as Parameters<MineStore['send']>[2], true);
          } catch (err) {
            deps.logger.warn({ id, err: errorMessage(err) }, `did not take the mine of ${id} from the shared bucket: ${errorMessage(err)}`);
          }
        },
        purge: (id) => deps.mine.purge(id, 'flushed on another master'),
      },
      stopped: () => this.stopped,
    });
  }

  async start(): Promise<void> {
    await this.hub.start(this.deps.settings, this.deps.hooks, this.deps.authorize);
  }

  /** Closes every session first, then leaves the cluster. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.live.closeAll();
    await this.hub.stop();
  }
}
