// The reactor (docs/reactor.md): when `reactor:` is set, every event on the master's bus is
// offered to the reactor engine (src/reactor), which renders the matching reactor SLS files and
// runs their reactions through the master's job tracker, runners and wheel functions. The recent
// reactions feed the web view (GET /reactions).

import type { MasterOptions } from '../../config/index.js';
import type { FileBackend } from '../../fileserver/index.js';
import { formatJid } from '../../jobs/index.js';
import { masterMinion, parseReactorMap, Reactor, type ReactionRecord } from '../../reactor/index.js';
import type { Clock } from '../../util/clock.js';
import type { Disposable } from '../../util/disposable.js';
import type { Logger } from '../../util/logger.js';
import type { EventBus } from '../event-bus.js';
import { type ReactorClientDeps, reactorClients, reactorSlsReader } from '../reactor-clients.js';
import type { MasterFeature } from './master-feature.js';
import { masterMinionId } from './orchestrate.js';

export interface ReactorFeatureDeps extends Omit<ReactorClientDeps, 'logger' | 'clock'> {
  opts: MasterOptions;
  events: EventBus;
  /** The master's file server, for salt:// reactor SLS paths and their includes. */
  files: FileBackend;
  logger: Logger;
  clock: Clock;
}

const STOP_WAIT_MS = 5000;

export class ReactorFeature implements MasterFeature {
  readonly name = 'reactor';
  /** Undefined when `reactor:` is empty (nothing subscribes to the bus). */
  readonly engine: Reactor | undefined;
  private readonly clients: ReturnType<typeof reactorClients>;
  private subscription: Disposable | undefined;
  /** Ends the salt[...] calls of reactions in flight when the master stops. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: ReactorFeatureDeps) {
    const { opts, logger, clock } = deps;
    // a malformed reactor option fails the master's start here (CONFIG_VALUE), before any server
    const map = parseReactorMap(opts.reactor);
    this.clients = reactorClients({ ...deps, logger: logger.child({ component: 'reactor' }) });
    if (map.length === 0) return;
    const readSls = reactorSlsReader(deps.files);
    this.engine = new Reactor({
      map,
      clients: this.clients,
      readSls,
      loadFile: (name) => readSls(`salt://${name}`),
      opts: { ...opts },
      grains: {},
      // Salt's MasterMinion: salt['cmd.run'] and the other execution functions, on the master host
      call: masterMinion({ id: masterMinionId(opts.id), opts, signal: this.stopping.signal, jid: () => formatJid(clock.now() * 1000) }),
      workers: opts.reactor_worker_threads,
      hwm: opts.reactor_worker_hwm,
      logger: logger.child({ component: 'reactor' }),
      clock,
    });
  }

  start(): void {
    const engine = this.engine;
    if (!engine) return;
    this.subscription = this.deps.events.subscribe((e) => engine.onEvent(e));
    this.deps.logger.info({ globs: parseReactorMap(this.deps.opts.reactor).map((e) => e.glob) }, 'reactor started');
  }

  /** The recent reactions, newest first (the web view's list). */
  recent(limit?: number): ReactionRecord[] {
    return this.engine?.recent.list(limit) ?? [];
  }

  /** Waits up to 5 s for the reactions in flight (a long runner must not hold the master's stop). */
  async stop(): Promise<void> {
    this.subscription?.dispose();
    this.stopping.abort();
    try {
      await this.engine?.closeWithin(STOP_WAIT_MS);
    } finally {
      this.clients.close();
    }
  }
}
