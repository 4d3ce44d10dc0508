// Events as a job's worker thread fires them: each is a blocking call to the host thread
// (ExecContext.syncHost), which holds the master session and the local bus and runs event.* there.
// So `module.run: event.send` in a state, or salt['event.send'] in a template, fires as a job does.

import { BrineError, isErrorCode } from '../../util/errors.js';
import type { MinionEventAccess, SyncHost } from '../../modules/index.js';

export function eventsThroughHost(sync: SyncHost): MinionEventAccess {
  const call = (fun: string, data: Record<string, unknown>, tag: string): unknown => {
    const r = sync.call(fun, [data, tag], {});
    if (r.success) return r.return;
    const code = r.error && isErrorCode(r.error.code) ? r.error.code : 'EVENT_REFUSED';
    throw new BrineError(code, r.error?.message ?? String(r.return));
  };
  return {
    fireMaster: async (tag, data) => {
      call('event.fire_master', data, tag);
    },
    fireLocal: (tag, data) => call('event.fire', data, tag) === true,
  };
}
