// Salt's state.orchestrate runner (salt/runners/state.py orchestrate): the master renders an SLS
// from its own file server as the minion `<master id>_master` and runs it with the state engine
// (requisites, failhard, test=True) whose states are the salt.* orchestration steps. Its return
// is Salt's: {data: {<master>_master: highstate}, outputter: highstate, retcode}.

import * as fs from 'node:fs/promises';
import type { FileBackend } from '../fileserver/index.js';
import { createDefaultRegistry, type ExecContext } from '../modules/index.js';
import { buildHigh, compileRequest, functionMap, highToSalt, runCompiled, type SlsFiles, type StateEnv, type StateFunction } from '../state/index.js';
import type { Clock } from '../util/clock.js';
import { BrineError, isBrineError } from '../util/errors.js';
import { checkResult } from './check-result.js';
import type { OrchestrateHost } from './host.js';
import { saltFunction } from './salt-function.js';
import { saltState } from './salt-state.js';
import type { OrchestrationRun } from './step-publish.js';
import { saltParallelRunners, saltRunner, saltWheel } from './salt-runner.js';
import { saltWaitForEvent } from './wait-for-event.js';

export interface OrchestrateRequest {
  /** SLS names: 'orch.deploy' or 'a,b' or a list. */
  mods: string[];
  saltenv: string;
  test: boolean;
  /** pillar=: the orchestration's pillar (a mapping). */
  pillar: Record<string, unknown>;
  user: string;
  jid: string;
}

export interface OrchestrateReturn {
  data: Record<string, unknown>;
  outputter: 'highstate';
  retcode: number;
}

/** The master's file server as the state engine reads SLS files. */
export function backendFiles(files: FileBackend): SlsFiles {
  return {
    read: async (p, saltenv) => {
      const found = files.find(saltenv, p);
      return found ? fs.readFile(found.realPath, 'utf8') : undefined;
    },
    listEnvs: async () => files.envs(),
  };
}

/** The orchestration states of one run. */
export function orchestrationStates(run: OrchestrationRun, clock: Clock): StateFunction[] {
  return [saltState(run), saltFunction(run), saltRunner(run), saltWheel(run), saltParallelRunners(run), saltWaitForEvent(run, clock)];
}

export interface OrchestrateDeps {
  host: OrchestrateHost;
  files: SlsFiles;
  /** The master's options, as the SLS sees them in `opts`. */
  config: Readonly<Record<string, unknown>>;
  clock: Clock;
}

function envOf(d: OrchestrateDeps, req: OrchestrateRequest, signal: AbortSignal): StateEnv {
  const exec: ExecContext = {
    minionId: d.host.masterId,
    grains: () => ({ id: d.host.masterId }),
    config: { ...d.config, id: d.host.masterId, test: req.test },
    signal,
    jid: req.jid,
    pillar: () => req.pillar,
  };
  const run: OrchestrationRun = { host: d.host, user: req.user, jid: req.jid, signal };
  return { files: d.files, exec, registry: createDefaultRegistry(), functions: functionMap(orchestrationStates(run, d.clock)) };
}

/** Runs an orchestration; compile errors are its return (Salt's list of messages, retcode 1), never a throw. */
export async function orchestrate(d: OrchestrateDeps, req: OrchestrateRequest, signal: AbortSignal): Promise<OrchestrateReturn> {
  const env = envOf(d, req, signal);
  let running: unknown;
  try {
    const run = await compileRequest(env, { mods: req.mods, saltenv: req.saltenv });
    running = run ? await runCompiled(env, run, req.test) : {};
  } catch (err) {
    if (!isBrineError(err, 'STATE_COMPILE_FAILED') && !isBrineError(err, 'RENDER_FAILED')) throw err;
    const messages = err.details.return;
    running = Array.isArray(messages) ? messages : [err.message];
  }
  const data = { [d.host.masterId]: running };
  return { data, outputter: 'highstate', retcode: checkResult(data) ? 0 : 1 };
}

/** state.orchestrate_show_sls: the rendered high data, {<master>_master: {id: {state: [args]}}}. */
export async function orchestrateShowSls(d: OrchestrateDeps, req: OrchestrateRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
  const high = await buildHigh(envOf(d, req, signal), { mods: req.mods, saltenv: req.saltenv });
  if (!high) throw new BrineError('STATE_COMPILE_FAILED', `no SLS named ${req.mods.join(', ')}`);
  return { [d.host.masterId]: highToSalt(high) };
}
