// A job executor (the runner's injected boundary to worker threads) whose calls the test finishes
// by jid, so that the order of starts and ends is the test's, not the machine's.

import type { JobExecutor } from '../../src/minion/index.js';
import type { ExecResult } from '../../src/modules/index.js';

/** What a terminated call (kill, timeout, shutdown) settles with; the runner's own result wins. */
export const TERMINATED: ExecResult = { return: 'terminated', retcode: 1, success: false };

export function manualExecutor() {
  /** Started and not finished yet, by jid. */
  const live = new Map<string, (r: ExecResult) => void>();
  /** Jids in the order their calls started, and each call's function at the same index. */
  const started: string[] = [];
  const startedFuns: string[] = [];
  const executor: JobExecutor = {
    start: (call) => {
      started.push(call.jid);
      startedFuns.push(call.fun);
      let settle!: (r: ExecResult) => void;
      const result = new Promise<ExecResult>((resolve) => {
        settle = (r) => {
          live.delete(call.jid);
          resolve(r);
        };
      });
      live.set(call.jid, settle);
      return { result, abort: () => undefined, terminate: () => settle(TERMINATED), pids: () => [] };
    },
    close: () => undefined,
  };
  const finish = (jid: string): void => live.get(jid)?.({ return: { done: jid }, retcode: 0, success: true });
  return { executor, live, started, startedFuns, finish };
}
