// What orchestration's salt.runner, salt.parallel_runners and salt.wheel steps call: the runner
// registry's jobs over the runners' backend (no API needed, as Salt's orchestration calls its
// master's functions itself), each a job of its own with its jid and salt/run or salt/wheel events.
// Wheel functions get the API's token store only where the master serves an API (token.revoke).

import { runRunner, runWheelJob, type RunnerBackend, type RunnerHost } from '../api/index.js';
import type { Authenticator } from '../auth/index.js';
import type { FullReturn, FunctionCall } from '../orchestrate/index.js';

export interface OrchestrateCallDeps {
  /** The runner registry's backend and host (built after the orchestration feature). */
  runners(): { backend: RunnerBackend; host: RunnerHost };
  /** The API's token store, when the master serves the API. */
  auth(): Authenticator | undefined;
}

export function orchestrateCalls(d: OrchestrateCallDeps): {
  runner(fun: string, call: FunctionCall, user: string): Promise<FullReturn>;
  wheel(fun: string, call: FunctionCall, user: string): Promise<FullReturn>;
} {
  return {
    runner: async (fun, call, user) => {
      const { backend, host } = d.runners();
      const r = await runRunner(backend, host, { fun, arg: call.arg, kwarg: call.kwarg, user });
      if (!r.done) return { jid: r.jid, return: undefined, success: true };
      return { jid: r.jid, return: r.return, success: r.success };
    },
    wheel: async (fun, call, user) => {
      const auth = d.auth();
      const job = await runWheelJob({ ...d.runners().backend, ...(auth ? { auth } : {}) }, { fun, arg: call.arg, kwarg: call.kwarg, user });
      return { jid: job.data.jid, return: job.data.return, success: job.data.success };
    },
  };
}
