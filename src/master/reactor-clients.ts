// What the reactor runs reactions with on the master (src/reactor's ReactorClients): local
// reactions publish through the same JobTracker as `brine run` (targeting, the job cache, the
// job events), runner reactions run as runner jobs (runner-job.ts: salt/run events, the job
// cache, the master's own runners such as state.orchestrate) and wheel reactions call the wheel
// functions, both over an in-master ApiBackend.

import * as fs from 'node:fs';
import { runRunner, WHEELS, type ApiBackend, type RunnerHost } from '../api/index.js';
import { Authenticator } from '../auth/index.js';
import type { MasterOptions } from '../config/index.js';
import { parseSaltUrl, readFileChunk, type FileBackend } from '../fileserver/index.js';
import type { JobCache } from '../jobs/index.js';
import { TARGET_TYPES, type TargetType } from '../protocol/index.js';
import type { ReactorClients } from '../reactor/index.js';
import type { Clock } from '../util/clock.js';
import { BrineError, isBrineError, isErrorCode } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { createApiBackend, type MasterView } from './api-backend.js';
import type { MasterTargeting } from './features/master-feature.js';
import type { JobTracker } from './job-tracker.js';

export interface ReactorClientDeps {
  opts: MasterOptions;
  master: MasterView;
  jobs: JobTracker;
  cache: JobCache;
  targeting: MasterTargeting;
  /** The master's side of the runners (src/master/features/runners.ts). */
  runnerHost: RunnerHost;
  logger: Logger;
  clock: Clock;
}

const NO_SINK = { onReturn: () => {}, onDone: () => {} };

/** The clients, and a close for the API token store a wheel `token.*` reaction may have opened. */
export function reactorClients(d: ReactorClientDeps): ReactorClients & { close(): void } {
  let backend: ApiBackend | undefined;
  let auth: Authenticator | undefined;
  // built on the first runner or wheel reaction: a master whose reactor only publishes jobs opens no token store
  const api = (): ApiBackend => {
    auth ??= Authenticator.forMaster(d.opts, { keyFingerprint: d.master.identity.fingerprint, clock: d.clock, logger: d.logger });
    backend ??= createApiBackend({
      master: d.master,
      auth,
      jobs: d.jobs,
      cache: d.cache,
      grainsOf: d.targeting.grains,
      targeting: d.targeting,
      runnerHost: d.runnerHost,
      logger: d.logger,
      clock: d.clock,
    });
    return backend;
  };
  const unknown = (kind: 'runner' | 'wheel', fun: string): BrineError =>
    new BrineError('UNKNOWN_FUNCTION', `${kind} function '${fun.slice(0, 100)}' is not available on this master; the ${kind} functions brine has are listed in docs/api.md`);
  const wheel = (fun: string, c: { arg: unknown[]; kwarg: Record<string, unknown> }): Promise<unknown> => {
    const fn = WHEELS.get(fun);
    if (!fn) return Promise.reject(unknown('wheel', fun));
    try {
      return Promise.resolve(fn(api(), c));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  // a runner job as Salt's reactor runs one through its RunnerClient, under the user 'Reactor'
  const runner = async (fun: string, c: { arg: unknown[]; kwarg: Record<string, unknown> }): Promise<unknown> => {
    let reply: Awaited<ReturnType<typeof runRunner>>;
    try {
      reply = await runRunner(api(), d.runnerHost, { fun, arg: c.arg, kwarg: c.kwarg, user: 'Reactor' });
    } catch (err) {
      if (isBrineError(err, 'RUNNER_UNKNOWN')) throw unknown('runner', fun);
      throw err;
    }
    if (!reply.done) return { jid: reply.jid };
    if (reply.error) throw new BrineError(isErrorCode(reply.error.code) ? reply.error.code : 'INTERNAL', reply.error.message);
    return reply.return;
  };
  return {
    local: async (r, user) => {
      if (!(TARGET_TYPES as readonly string[]).includes(r.tgtType)) throw new BrineError('TARGET_INVALID', `unknown tgt_type '${r.tgtType.slice(0, 32)}'; use one of ${TARGET_TYPES.join(', ')}`);
      const published = d.jobs.publish(
        { t: 'publish', tgt: r.tgt, tgtType: r.tgtType as TargetType, fun: r.fun, arg: r.arg, kwarg: r.kwarg, user, ...(r.timeout ? { timeout: r.timeout } : {}) },
        NO_SINK,
      );
      return { jid: published.jid };
    },
    runner,
    wheel,
    close: () => auth?.close(),
  };
}

/** Reads a reactor SLS: an absolute path, or salt://path[?saltenv=env] from the master's file server. */
export function reactorSlsReader(files: FileBackend): (ref: string) => string | undefined {
  return (ref) => {
    if (!ref.startsWith('salt://')) {
      try {
        return fs.readFileSync(ref, 'utf8');
      } catch {
        return undefined;
      }
    }
    const { path: rel, saltenv } = parseSaltUrl(ref, 'base');
    const found = files.find(saltenv, rel);
    return found ? readFileChunk(found, 0, found.stat.size).toString('utf8') : undefined;
  };
}
