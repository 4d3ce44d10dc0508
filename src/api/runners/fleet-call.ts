// A job the runners send to minions and wait for (Salt's runners use a LocalClient the same
// way): manage.status pings, manage.versions asks test.version, jobs.active saltutil.running.

import type { JobReturn, PublishRequest } from '../../protocol/index.js';
import { isBrineError } from '../../util/errors.js';
import type { RunnerBackend } from '../backend.js';

export interface FleetAnswers {
  /** Every minion the target matched (accepted keys). */
  minions: string[];
  returns: Map<string, JobReturn>;
}

export function fleetCall(b: RunnerBackend, req: { tgt: string | string[]; tgtType: string; fun: string; arg?: unknown[]; timeout?: number; user: string }): Promise<FleetAnswers> {
  return new Promise((resolve, reject) => {
    const returns = new Map<string, JobReturn>();
    // the master may report the job done before the publish promise settles: answer once both have
    let minions: string[] | undefined;
    let done = false;
    const finish = () => {
      if (done && minions !== undefined) resolve({ minions, returns });
    };
    const publish: PublishRequest = {
      t: 'publish',
      tgt: req.tgt,
      tgtType: req.tgtType as PublishRequest['tgtType'],
      fun: req.fun,
      arg: (req.arg ?? []) as PublishRequest['arg'],
      kwarg: {},
      ...(req.timeout !== undefined && req.timeout > 0 ? { timeout: req.timeout } : {}),
      user: req.user,
    };
    b.publish(publish, {
      onReturn: (r) => returns.set(r.minion, r),
      onDone: () => {
        done = true;
        finish();
      },
    }).then(
      (pub) => {
        minions = pub.minions;
        finish();
      },
      (err) => {
        if (isBrineError(err, 'NO_MINIONS_MATCHED')) resolve({ minions: [], returns });
        else reject(err);
      },
    );
  });
}
