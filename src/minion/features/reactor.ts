// A minion's own reactor (Salt's reactor engine on a minion, docs/reactor.md "On a minion"): with
// `reactor:` in the minion config, every event on the minion's bus (event.fire, its beacons) is
// offered to the reactor engine (src/reactor), whose `caller.<fun>` reactions run on this minion
// as brine call would run them (the job runner: its functions, custom modules, state lock).
// `salt[...]` in the SLS runs the minion's functions; `opts`, `grains`, `pillar` are its own.

import * as fs from 'node:fs/promises';
// the files themselves, not fileserver/index.js: that loads the module registry (cp.*), which an idle minion does not need
import { parseSaltUrl } from '../../fileserver/path-check.js';
import type { ExecResult } from '../../modules/index.js';
import { saltStamp } from '../../protocol/index.js';
// the engine's files, not reactor/index.js: that also exports the master's MasterMinion, which loads the module registry
// the engine and the file roots load at start, and only with `reactor:` set (issue 27, thinmin2)
import { type ReactorEngineSettings, reactorEngineSettings } from '../../reactor/engine-option.js';
import type { FunctionCall, Reactor } from '../../reactor/engine.js';
import { parseReactorMap, type ReactorEntry } from '../../reactor/reactor-map.js';
import type { Disposable } from '../../util/disposable.js';
import { BrineError, isBrineError, isErrorCode } from '../../util/errors.js';
import type { FilesFeature } from './files.js';
import type { EventsFeature } from './events.js';
import type { MinionFeature, MinionParts } from './feature.js';
import type { GrainsFeature } from './grains.js';
import type { JobPort } from './job-port.js';
import type { PillarFeature } from './pillar.js';

/** How long a stopping minion waits for the reactions in flight. */
const STOP_WAIT_MS = 5000;

export interface MinionReactorServices {
  events: EventsFeature;
  jobs: JobPort;
  /** A jid no other job of this minion uses (brine call's). */
  newJid(): string;
  /** This minion's ID: a caller reaction is a job targeted at it, as brine call's. */
  id: string;
  files: FilesFeature;
  grains: GrainsFeature;
  pillar: PillarFeature;
}

export class MinionReactorFeature implements MinionFeature {
  readonly name = 'reactor';
  /** Undefined when `reactor:` is empty, and until start. */
  engine: Reactor | undefined;
  private subscription: Disposable | undefined;
  private readonly map: ReactorEntry[];
  private readonly settings: ReactorEngineSettings;

  constructor(
    private readonly parts: Pick<MinionParts, 'opts' | 'logger' | 'clock'>,
    private readonly services: MinionReactorServices,
  ) {
    // a malformed reactor option or engine setting fails the minion's start (CONFIG_VALUE)
    this.map = parseReactorMap(parts.opts.reactor);
    this.settings = reactorEngineSettings(parts.opts.engines) ?? {};
  }

  async start(): Promise<void> {
    const { map, services, settings: engine } = this;
    if (map.length === 0) return;
    const { opts, logger, clock } = this.parts;
    const [{ Reactor }, { FileRoots, readFileChunk }] = await Promise.all([import('../../reactor/engine.js'), import('../../fileserver/roots.js')]);
    const run = (fun: string, call: FunctionCall): Promise<ExecResult> => services.jobs.runFunction(fun, call.arg, call.kwarg, services.newJid());
    // includes come from this minion's own file_roots: a render cannot wait for the master's file server
    const roots = new FileRoots(opts);
    const reactor = new Reactor({
      map,
      role: 'minion',
      clients: {
        // a local job of this minion, as brine call's through the daemon: job slots, the state run lock, saltutil.running
        caller: async (fun, call) => {
          const r = await services.jobs.run({ t: 'job', jid: services.newJid(), fun, arg: call.arg, kwarg: call.kwarg, tgt: services.id, tgtType: 'glob' });
          if (r.error) throw new BrineError(isErrorCode(r.error.code) ? r.error.code : 'EXEC_FAILED', `caller.${fun}: ${r.error.message}`);
          if (!r.success) throw new BrineError('EXEC_FAILED', `caller.${fun} did not succeed (retcode ${r.retcode}): ${JSON.stringify(r.ret)?.slice(0, 300)}`);
          return r.ret;
        },
      },
      call: async (fun, arg, kwarg) => {
        const r = await run(fun, { arg, kwarg });
        if (r.error) throw new BrineError(r.error.code, `salt['${fun.slice(0, 100)}']: ${r.error.message}`);
        return r.return;
      },
      readSls: (ref) => this.readSls(ref),
      loadFile: (name) => {
        const found = roots.find('base', name);
        return found ? readFileChunk(found, 0, found.stat.size).toString('utf8') : undefined;
      },
      opts: { ...opts },
      grains: () => services.grains.current,
      pillar: () => ({ ...services.pillar.store.get() }),
      workers: engine.worker_threads ?? opts.reactor_worker_threads,
      hwm: engine.worker_hwm ?? opts.reactor_worker_hwm,
      logger: logger.child({ component: 'reactor' }),
      clock,
    });
    this.engine = reactor;
    // Salt's events carry _stamp; event.fire's data gets it here, on the minion's bus
    this.subscription = services.events.local.subscribe((e) => reactor.onEvent({ tag: e.tag, data: '_stamp' in e.data ? e.data : { ...e.data, _stamp: saltStamp(clock.now()) } }));
    logger.info({ globs: map.map((e) => e.glob) }, "reactor started on the minion's own event bus");
  }

  async stop(): Promise<void> {
    this.subscription?.dispose();
    await this.engine?.closeWithin(STOP_WAIT_MS);
  }

  /** An absolute path, or salt://path[?saltenv=env] through this minion's file client (its file_roots, or the master's). */
  private async readSls(ref: string): Promise<string | undefined> {
    try {
      if (!ref.startsWith('salt://')) return await fs.readFile(ref, 'utf8');
      const { saltenv } = parseSaltUrl(ref, 'base');
      const { localPath } = await this.services.files.client.cacheFile(ref, saltenv);
      return await fs.readFile(localPath, 'utf8');
    } catch (err) {
      if (isBrineError(err, 'FILE_NOT_FOUND') || (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
}
