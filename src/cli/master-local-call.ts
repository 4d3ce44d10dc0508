// salt.cmd's execution functions on the master: Salt runs them with the master's options (a
// MasterMinion); brine runs them as `brine call --local` does, in a worker thread, with the
// master's ID, file_roots and pillar_roots and a cachedir of their own under the master's.
// The pillar is rendered only with `with_pillar=True`, as Salt's salt.cmd does. Loaded lazily:
// a master that never gets a salt.cmd never loads the execution modules.

import * as path from 'node:path';
import type { MasterOptions } from '../config/index.js';
import type { RunnerHost } from '../api/index.js';
import { BrineError, isErrorCode } from '../util/errors.js';
import type { Logger } from '../util/logger.js';

export function masterLocalCall(master: MasterOptions, masterId: string, logger: Logger): NonNullable<RunnerHost['localCall']> {
  return async (fun, arg, kwarg) => {
    const [{ loadConfig }, { asMinionOptions }, { runLocalCall }, { collectMinionGrains }, { WorkerExecutor }] = await Promise.all([
      import('../config/load.js'),
      import('../config/options.js'),
      import('../minion/local-call.js'),
      import('../minion/minion-grains.js'),
      import('../minion/worker-executor.js'),
    ]);
    const { with_pillar: withPillar, ...rest } = kwarg;
    const cachedir = path.join(master.cachedir, 'salt-cmd');
    // no minion config file is read (the directory holds none): the master's trees and ID
    const opts = asMinionOptions(
      loadConfig('minion', {
        configDir: cachedir,
        env: {},
        requireFile: false,
        overrides: { id: masterId, file_client: 'local', file_roots: master.file_roots, pillar_roots: master.pillar_roots, cachedir, log_level: master.log_level },
      }),
    );
    const log = { info: () => undefined, warn: (o: object, msg: string) => logger.warn(o, `salt.cmd: ${msg}`), error: (o: object, msg: string) => logger.error(o, `salt.cmd: ${msg}`) };
    const { grains } = await collectMinionGrains({ id: masterId, config: opts, logger: log });
    const executor = new WorkerExecutor(0);
    try {
      const withP = withPillar === true || withPillar === 'True' || withPillar === 'true';
      const result = await runLocalCall(fun, arg, rest, {
        opts,
        minionId: masterId,
        grains,
        localFiles: true,
        ...(withP ? { localPillar: true } : {}),
        signal: new AbortController().signal,
        executor,
        log,
      });
      if (result.error) throw new BrineError(isErrorCode(result.error.code) ? result.error.code : 'EXEC_FAILED', result.error.message);
      return result.return;
    } finally {
      executor.close();
    }
  };
}
