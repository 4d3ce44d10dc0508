// Orchestration on the master (Salt's state.orchestrate / state.orch / state.orchestrate_show_sls
// runners): each run under its own runner jid, recorded in the job cache as Salt records a runner
// job (fun runner.state.orchestrate, returned by `<master id>_master`); its steps publish their
// jobs through the JobTracker like any other. Stopping the master stops running orchestrations.

import * as os from 'node:os';
import type { JidGenerator, JobCache } from '../../jobs/index.js';
import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { FileBackend } from '../../fileserver/index.js';
import type { EventBus } from '../event-bus.js';
import type { JobTracker } from '../job-tracker.js';
import type { FunctionCall, GatheredJob, OrchestrateHost } from '../../orchestrate/index.js';
import { backendFiles, orchestrate, orchestrateArgs, orchestrateShowSls, type OrchestrateDeps } from '../../orchestrate/index.js';
import type { MasterFeature } from './master-feature.js';

export interface OrchestrateFeatureDeps {
  config: Readonly<Record<string, unknown>>;
  files: FileBackend;
  jobs: () => JobTracker;
  events: EventBus;
  cache: JobCache;
  jids: JidGenerator;
  match(tgt: string | string[], tgtType: string): { matched: string[] };
  /** Runner and wheel functions for salt.runner / salt.wheel (the API's registry today). */
  runner(fun: string, call: FunctionCall, user: string): Promise<unknown>;
  wheel(fun: string, call: FunctionCall, user: string): Promise<unknown>;
  clock: Clock;
  logger: Logger;
}

/** Salt's master ID: the `id` option, else `<hostname>_master`. */
export function masterMinionId(id: unknown): string {
  return typeof id === 'string' && id !== '' ? id : `${os.hostname()}_master`;
}

export const ORCHESTRATE_FUNS = ['state.orchestrate', 'state.orch', 'state.sls'] as const;

/**
 * The orchestration runners (state.orchestrate and its aliases, state.orchestrate_show_sls) for
 * the runner registry's extraRunners: `brine runner`, the API and the reactor reach them alike.
 */
export function orchestrateRunners(
  orchestrate: (what: 'run' | 'show', call: FunctionCall, user: string) => Promise<unknown>,
): Map<string, (b: unknown, c: FunctionCall & { user?: string }) => Promise<unknown>> {
  const entry = (what: 'run' | 'show') => (_b: unknown, c: FunctionCall & { user?: string }) => orchestrate(what, { arg: c.arg, kwarg: c.kwarg }, c.user ?? 'root');
  return new Map([...ORCHESTRATE_FUNS.map((f) => [f, entry('run')] as const), ['state.orchestrate_show_sls', entry('show')] as const]);
}

export class Orchestrate implements MasterFeature {
  readonly name = 'orchestrate';
  private readonly stopping = new AbortController();
  private readonly deps: OrchestrateDeps;

  constructor(private readonly d: OrchestrateFeatureDeps) {
    const host: OrchestrateHost = {
      masterId: masterMinionId(d.config.id),
      publishAndGather: (req, signal) => this.publishAndGather(req, signal),
      match: async (tgt, tgtType) => d.match(tgt, tgtType),
      fire: (tag, data) => {
        d.events.fire(tag, data);
      },
      subscribe: (fn) => d.events.subscribe(fn),
      // an orchestration may run another (salt.runner state.orchestrate, parallel_runners)
      runner: (fun, call, user) => ((ORCHESTRATE_FUNS as readonly string[]).includes(fun) ? this.run(call, user) : d.runner(fun, call, user)),
      wheel: (fun, call, user) => d.wheel(fun, call, user),
    };
    this.deps = { host, files: backendFiles(d.files), config: d.config, clock: d.clock };
  }

  /** state.orchestrate: Salt's runner return; the run is in the job cache under its runner jid. */
  async run(call: FunctionCall, user: string): Promise<unknown> {
    const args = orchestrateArgs(call, this.d.config.test === true);
    const jid = this.d.jids.next();
    const masterId = this.deps.host.masterId;
    const startedAt = this.d.clock.now();
    const fun = 'runner.state.orchestrate';
    this.d.cache.saveJob({
      jid,
      fun,
      arg: [args.mods.join(',')],
      kwarg: { saltenv: args.saltenv, test: args.test, pillar: args.pillar },
      tgt: masterId,
      tgtType: 'list',
      user,
      minions: [masterId],
      startedAt,
    });
    this.d.logger.info({ jid, mods: args.mods, test: args.test, user }, `orchestration ${jid} of ${args.mods.join(',')} started`);
    const ret = await orchestrate(this.deps, { ...args, user, jid }, this.stopping.signal);
    try {
      this.d.cache.saveReturn({ jid, minion: masterId, fun, return: ret, retcode: ret.retcode, success: ret.retcode === 0, receivedAt: this.d.clock.now() });
    } catch (err) {
      this.d.logger.error({ jid, err: errorMessage(err) }, `orchestration ${jid} finished but its return could not be stored: ${errorMessage(err)}; free disk space or fix cachedir`);
    }
    this.d.logger.info({ jid, retcode: ret.retcode }, `orchestration ${jid} finished with retcode ${ret.retcode}`);
    return ret;
  }

  /** state.orchestrate_show_sls: the rendered steps, nothing run. */
  showSls(call: FunctionCall, user: string): Promise<unknown> {
    const args = orchestrateArgs(call, this.d.config.test === true);
    return orchestrateShowSls(this.deps, { ...args, user, jid: this.d.jids.next() }, this.stopping.signal);
  }

  stop(): void {
    this.stopping.abort(new Error('the master is stopping'));
  }

  private publishAndGather(req: Parameters<OrchestrateHost['publishAndGather']>[0], signal: AbortSignal): Promise<GatheredJob> {
    const tracker = this.d.jobs();
    return new Promise((resolve, reject) => {
      const returns: GatheredJob['returns'] = [];
      let jid = '';
      let notConnected: string[] = [];
      const finish = (noResponse: string[]): void => {
        signal.removeEventListener('abort', onAbort);
        const got = new Set(returns.map((r) => r.minion));
        resolve({ jid, returns, missing: [...new Set([...notConnected, ...noResponse])].filter((m) => !got.has(m)) });
      };
      const sink = { onReturn: (r: GatheredJob['returns'][number]) => returns.push(r), onDone: (done: { noResponse: string[] }) => finish(done.noResponse) };
      const onAbort = (): void => {
        tracker.unsubscribe(sink);
        reject(signal.reason);
      };
      try {
        signal.throwIfAborted();
        const published = tracker.publish({ t: 'publish', ...req }, sink);
        jid = published.jid;
        notConnected = published.notConnected;
        signal.addEventListener('abort', onAbort, { once: true });
      } catch (err) {
        reject(err);
      }
    });
  }
}
