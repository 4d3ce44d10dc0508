// Beacons (issue 25 point 6): the minion's `beacons:` (config and pillar) run every loop_interval by
// the BeaconRunner, their events fired on the master's bus as salt/beacon/<id>/<beacon>/...;
// beacons.* change the configuration through the BeaconStore. A beacon runs whether or not a
// master is connected; its events while none is are dropped (Salt's sync=False send), logged at
// debug. Each event is also on the minion's own bus as Salt's `__beacons_return` (its reactor).

import { BrineError, toBrineError } from '../../util/errors.js';
import type { BeaconControl } from '../../modules/index.js';
import { formatJid } from '../../jobs/jid.js';
import { BeaconRunner } from '../beacons/beacon-runner.js';
import { BeaconStore } from '../beacons/beacon-store.js';
import type { PillarStore } from '../pillar-store.js';
import type { EventsFeature } from './events.js';
import type { MinionFeature, MinionParts } from './feature.js';
import type { JobPort } from './job-port.js';

export class BeaconsFeature implements MinionFeature {
  readonly name = 'beacons';
  readonly store: BeaconStore;
  readonly runner: BeaconRunner;

  constructor(parts: Pick<MinionParts, 'opts' | 'id' | 'clock' | 'logger'>, pillar: PillarStore, events: EventsFeature, jobs: JobPort) {
    const { opts, id, clock, logger } = parts;
    this.store = new BeaconStore(opts.beacons, () => pillar.get(), String(opts.config_dir));
    this.runner = new BeaconRunner({
      id,
      clock,
      logger,
      loopIntervalS: opts.loop_interval,
      config: () => this.store.merged(),
      fire: (tag, data) => {
        // Salt's minion puts its beacons' events on its own bus as __beacons_return (a minion's reactor hears them)
        events.local.fire({ tag: '__beacons_return', data: { beacons: [{ tag, data }] } });
        try {
          if (!events.master.fireBeacon(tag, data)) logger.debug({ tag }, `beacon event ${tag} dropped: no master is connected`);
        } catch (err) {
          logger.warn({ tag, code: toBrineError(err).code }, `beacon event ${tag} not sent: ${toBrineError(err).message}`);
        }
      },
      stateRunning: () => jobs.running().some((j) => /^state\./.test(j.fun)),
      call: async (fun, arg) => {
        const r = await jobs.runFunction(fun, arg, {}, formatJid(clock.now() * 1000));
        // the code travels with the failure: a beacon tells an unknown function from one that failed
        if (!r.success) throw new BrineError(r.error?.code ?? 'EXEC_FAILED', r.error?.message ?? `${fun} failed`);
        return r.return;
      },
      disable: (name) => this.store.enableBeacon(name, false),
    });
  }

  /** beacons.* (ExecContext.beacons). */
  get control(): BeaconControl {
    return this.store;
  }

  start(): void {
    this.runner.start();
  }

  stop(): void {
    this.runner.stop();
  }
}
