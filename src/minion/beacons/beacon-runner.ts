// Runs the configured beacons every loop_interval (Salt's minion handle_beacons): each beacon's
// options decided per tick (enabled, interval, disable_during_state_run, run_once), its instance
// polled and its events fired on salt/beacon/<id>/<name>/<tag>. A configuration problem is logged
// once per distinct configuration and that beacon does not run; the others go on. Ticks never
// overlap: a slow poll delays the next tick instead of stacking.

import type { Clock, TimerHandle } from '../../util/clock.js';
import { toBrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { splitBeaconConfig } from '../../beacons/beacon-config.js';
import { BeaconIntervals } from '../../beacons/interval.js';
import type { BeaconContext, BeaconData, BeaconInstance } from '../../beacons/types.js';
import { beaconModules } from './beacon-modules.js';
import { beaconCheck } from './beacon-store.js';

export interface BeaconRunnerDeps {
  id: string;
  clock: Clock;
  logger: Logger;
  /** Seconds between ticks (Salt's loop_interval). */
  loopIntervalS: number;
  /** The beacons to run now: config and pillar merged. */
  config(): Record<string, unknown>;
  /** Fires one beacon event on the master's bus (dropped when no master is connected). */
  fire(tag: string, data: Record<string, unknown>): void;
  /** A state.* job runs now (disable_during_state_run). */
  stateRunning(): boolean;
  call: BeaconContext['call'];
  /** run_once: turns the beacon off after its first events. */
  disable(name: string): void;
}

export class BeaconRunner {
  private readonly intervals = new BeaconIntervals();
  private readonly instances = new Map<string, BeaconInstance>();
  /** The last problem logged per beacon, so a bad configuration is logged once, not every tick. */
  private readonly reported = new Map<string, string>();
  private timer: TimerHandle | undefined;
  private stopped = false;
  /** Events fired since start (brine doctor, tests). */
  fired = 0;

  constructor(private readonly deps: BeaconRunnerDeps) {}

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    for (const i of this.instances.values()) i.close?.();
    this.instances.clear();
  }

  /** One pass over the beacons (exported for tests; the timer calls it). */
  async tick(): Promise<void> {
    const config = this.deps.config();
    const names = config.enabled === false ? [] : Object.keys(config).filter((n) => n !== 'enabled');
    for (const [name, inst] of this.instances) {
      if (names.includes(name)) continue;
      inst.close?.();
      this.instances.delete(name);
      this.intervals.forget(name);
    }
    for (const name of names) await this.runOne(name, config[name]);
  }

  private async runOne(name: string, raw: unknown): Promise<void> {
    const { id, clock, logger } = this.deps;
    const problem = await beaconCheck(name, raw);
    const split = splitBeaconConfig(name, raw);
    if (problem !== undefined || typeof split === 'string') {
      this.close(name);
      const message = problem?.message ?? '';
      if (this.reported.get(name) !== message) {
        if (problem?.code === 'BEACON_UNAVAILABLE') logger.error({ beacon: name, code: problem.code }, `Beacon ${name} not running: ${message}`);
        else logger.error({ beacon: name, code: 'BEACON_CONFIG_INVALID' }, `Beacon ${name} configuration invalid, not running: ${message}`);
      }
      this.reported.set(name, message);
      return;
    }
    this.reported.delete(name);
    const { options, config } = split;
    if (!options.enabled) {
      this.close(name);
      return;
    }
    if (!this.intervals.due(name, options.interval, this.deps.loopIntervalS)) return;
    const mod = (await beaconModules()).get(options.module);
    if (mod === undefined) return;
    if (options.disableDuringStateRun && this.deps.stateRunning()) {
      // as Salt: a beacon with a close() (inotify's notifier) is closed, so what changes during
      // the state run is not reported; the others are skipped and keep their state (load's last
      // averages, service's last status, journald's place in the journal)
      if (mod.closeDuringStateRun === true) {
        if (this.instances.has(name)) logger.info({ beacon: name }, `Closing beacon ${name}. State run in progress.`);
        this.close(name);
      } else {
        logger.debug({ beacon: name }, `Skipping beacon ${name}. State run in progress.`);
      }
      return;
    }
    let inst = this.instances.get(name);
    if (inst === undefined) {
      inst = mod.create({ id, clock, logger, call: this.deps.call });
      this.instances.set(name, inst);
    }
    let events: BeaconData[];
    try {
      events = await inst.poll(config);
    } catch (err) {
      logger.error({ beacon: name, err: toBrineError(err).message }, `Unable to run beacon ${name}: ${toBrineError(err).message}`);
      return;
    }
    for (const e of events) {
      const { tag, ...data } = e;
      const full = `salt/beacon/${id}/${name}/${tag ?? ''}`;
      if (data.id === undefined) data.id = id;
      this.fired++;
      this.deps.fire(full, data);
    }
    if (options.runOnce && events.length > 0) this.deps.disable(name);
  }

  private close(name: string): void {
    this.instances.get(name)?.close?.();
    this.instances.delete(name);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.tick()
        .catch((err: unknown) => this.deps.logger.error({ err: toBrineError(err).message }, `the beacons' tick failed: ${toBrineError(err).message}`))
        .finally(() => this.schedule());
    }, this.deps.loopIntervalS * 1000);
  }
}
