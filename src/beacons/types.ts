// What a beacon is (Salt's salt/beacons/*.py): a validate function and a poll that returns the
// events to fire, each `{tag?, ...data}` (the tag is appended to salt/beacon/<id>/<beacon>/). A
// beacon that keeps state between polls (inotify's watches, load's last values) is an instance
// made once per configured beacon and closed when its configuration goes or a state run starts.

import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/** One event of a beacon: its data, with `tag` appended to the beacon's tag when present. */
export type BeaconData = Record<string, unknown> & { tag?: string };

export interface BeaconContext {
  readonly id: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Runs an execution function on this minion (Salt's __salt__ in a beacon), resolving to its return. */
  call(fun: string, arg: unknown[]): Promise<unknown>;
}

export interface BeaconInstance {
  /** The events since the last poll; `config` is the beacon's options as a mapping (Salt's list_to_dict). */
  poll(config: Readonly<Record<string, unknown>>): Promise<BeaconData[]> | BeaconData[];
  /** Drops what it holds (watches); the next poll starts again. */
  close?(): void;
}

export interface BeaconModule {
  readonly name: string;
  /** Why this configuration is invalid (Salt's validate comment), or undefined when it is valid. */
  validate(config: Readonly<Record<string, unknown>>): string | undefined;
  /** Why this beacon cannot run on this host with this configuration (Salt's __virtual__ refusing it), or undefined. */
  unavailable?(config: Readonly<Record<string, unknown>>): string | undefined;
  /** Salt's module has a close(): disable_during_state_run closes the instance instead of skipping it. */
  readonly closeDuringStateRun?: boolean;
  create(ctx: BeaconContext): BeaconInstance;
}

/** Salt's percentage thresholds: `63%`, `63`, 63. */
export function percentOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number.parseFloat(value.replace('%', '')) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}
