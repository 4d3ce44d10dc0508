// Orchestration on the master (Salt's state.orchestrate / state.orch / state.orchestrate_show_sls
// runners), reached through the runner registry: the registry's runner job (src/api/runner-job.ts)
// is the orchestration's one job in the cache (fun runner.state.orchestrate, returned by
// `<master id>_master`) and its jid the orchestration's; the steps publish their jobs through the
// JobTracker, and call runners and wheel functions as jobs of their own, under their own jids.
// Stopping the master stops running orchestrations.

import * as os from 'node:os';
import type { JidGenerator } from '../../jobs/index.js';
import type { Clock } from '../../util/clock.js';
import { BrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { FileBackend } from '../../fileserver/index.js';
import type { EventBus } from '../event-bus.js';
import type { JobTracker } from '../job-tracker.js';
import type { FullReturn, FunctionCall, GatheredJob, OrchestrateHost } from '../../orchestrate/index.js';
import { backendFiles, orchestrate, orchestrateArgs, orchestrateShowSls, type OrchestrateDeps } from '../../orchestrate/index.js';
import type { MasterFeature } from './master-feature.js';

export interface OrchestrateFeatureDeps {
  config: Readonly<Record<string, unknown>>;
  files: FileBackend;
  jobs: () => JobTracker;
  events: EventBus;
  jids: JidGenerator;
  match(tgt: string | string[], tgtType: string): { matched: string[] };
  /** salt.runner, salt.parallel_runners and salt.wheel: the runner registry's jobs (orchestrate-calls.ts). */
  runner(fun: string, call: FunctionCall, user: string): Promise<FullReturn>;
  wheel(fun: string, call: FunctionCall, user: string): Promise<FullReturn>;
  /** salt.function's fail_function: an execution function on the master (salt.cmd's); absent when the daemon loads none. */
  localCall?: ((fun: string, arg: unknown[], kwarg: Record<string, unknown>) => Promise<unknown>) | undefined;
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
export function orchestrateRunners(o: Pick<Orchestrate, 'run' | 'showSls'>): Map<string, (b: unknown, c: FunctionCall & { user?: string; jid?: string }) => Promise<unknown>> {
  const run = async (_b: unknown, c: FunctionCall & { user?: string; jid?: string }): Promise<unknown> => {
    // the registry's runner job gives the jid the orchestration's steps name (`salt/run/<jid>/args`)
    if (c.jid === undefined) throw new BrineError('RUNNER_UNAVAILABLE', 'state.orchestrate runs only as a runner job: call it through brine runner or the API runner client');
    return o.run({ arg: c.arg, kwarg: c.kwarg }, c.user ?? 'root', c.jid);
  };
  const show = (_b: unknown, c: FunctionCall & { user?: string }): Promise<unknown> => o.showSls({ arg: c.arg, kwarg: c.kwarg }, c.user ?? 'root');
  return new Map([...ORCHESTRATE_FUNS.map((f) => [f, run] as const), ['state.orchestrate_show_sls', show] as const]);
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
      // a nested orchestration (salt.runner state.orchestrate) is a runner job of its own too
      runner: (fun, call, user) => d.runner(fun, call, user),
      wheel: (fun, call, user) => d.wheel(fun, call, user),
      localCall: (fun, arg) => {
        if (d.localCall === undefined) return Promise.reject(new BrineError('RUNNER_UNAVAILABLE', `fail_function ${fun}: this master runs no execution functions itself (salt.cmd is not wired)`));
        return d.localCall(fun, arg, {});
      },
    };
    this.deps = { host, files: backendFiles(d.files), config: d.config, clock: d.clock };
  }

  /**
   * state.orchestrate under the registry's runner job `jid`: Salt's runner return. The job, its
   * events and its return in the job cache are the registry's (one job per orchestration).
   */
  async run(call: FunctionCall, user: string, jid: string): Promise<unknown> {
    const args = orchestrateArgs(call, this.d.config.test === true);
    this.d.logger.info({ jid, mods: args.mods, test: args.test, user }, `orchestration ${jid} of ${args.mods.join(',')} started`);
    const ret = await orchestrate(this.deps, { ...args, user, jid }, this.stopping.signal);
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
