// The mine as a job's worker thread reaches it: each mine.* call is a blocking call to the host
// thread (ExecContext.syncHost), which runs it with the minion's live mine service and master
// session (HostServices.hostCall). So `module.run: mine.update` in a state, or ctx.call in a
// custom module, behaves as the same function run as a job.

import { BrineError, isErrorCode } from '../../util/errors.js';
import type { MineAccess, SyncHost } from '../../modules/index.js';

export function mineThroughHost(sync: SyncHost): MineAccess {
  const call = (fun: string, arg: unknown[], kwarg: Record<string, unknown>): unknown => {
    const r = sync.call(fun, arg, kwarg);
    if (r.success) return r.return;
    const code = r.error && isErrorCode(r.error.code) ? r.error.code : 'EXEC_FAILED';
    throw new BrineError(code, r.error?.message ?? String(r.return));
  };
  return {
    update: async (only, clear) => {
      const value = call('mine.update', [], { clear, ...(only === undefined ? {} : { mine_functions: [...only] }) });
      // the host's mine.update answers null when nothing is configured, true when all was sent
      return value === null ? undefined : { sent: [], failed: [] };
    },
    send: async (spec) => {
      const kwarg: Record<string, unknown> = { ...spec.kwarg, mine_function: spec.fun };
      if (spec.allowTgt !== undefined) kwarg.allow_tgt = spec.allowTgt;
      if (spec.allowTgtType !== undefined) kwarg.allow_tgt_type = spec.allowTgtType;
      call('mine.send', [spec.name, ...spec.arg], kwarg);
    },
    // a list of functions always answers {fun: {minion: data}}
    get: async (q) => call('mine.get', [], { tgt: q.tgt, fun: [...q.funs], tgt_type: q.tgtType }) as Record<string, Record<string, unknown>>,
    delete: async (fun) => {
      call('mine.delete', [fun], {});
    },
    flush: async () => {
      call('mine.flush', [], {});
    },
    valid: () => call('mine.valid', [], {}) as Record<string, unknown>,
  };
}
