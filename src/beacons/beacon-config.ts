// A beacon's configuration as Salt reads it (salt/beacons/__init__.py, salt/utils/beacons.py): the
// list-of-dicts form (`- interval: 5`) or a mapping, merged into one mapping; the options every
// beacon takes (enabled, interval, disable_during_state_run, beacon_module, run_once) split from
// what the beacon module itself reads.

import { isPlainObject } from '../protocol/schema.js';

export interface BeaconOptions {
  /** The beacon module (beacon_module:, else the configured name): two beacons of one module. */
  module: string;
  enabled: boolean;
  /** Seconds between polls; 0 = every loop_interval. */
  interval: number;
  disableDuringStateRun: boolean;
  runOnce: boolean;
}

const HIDDEN = new Set(['enabled', 'interval', 'disable_during_state_run', 'beacon_module', 'run_once']);

/** Salt's list_to_dict: a list of one-key mappings merged in order; a mapping as it is; anything else undefined. */
export function listToDict(config: unknown): Record<string, unknown> | undefined {
  if (isPlainObject(config)) return { ...config };
  if (!Array.isArray(config)) return undefined;
  const out: Record<string, unknown> = {};
  for (const item of config) {
    if (!isPlainObject(item)) return undefined;
    Object.assign(out, item);
  }
  return out;
}

/** Splits one beacon's configuration; a string error when its shape is not Salt's. */
export function splitBeaconConfig(name: string, config: unknown): { options: BeaconOptions; config: Record<string, unknown> } | string {
  const all = listToDict(config);
  if (all === undefined) return `the configuration of beacon ${name} must be a list of mappings (- key: value) or a mapping, got ${JSON.stringify(config)}`;
  const interval = all.interval === undefined ? 0 : Number(all.interval);
  if (!Number.isFinite(interval) || interval < 0) return `beacon ${name}: interval must be a number of seconds, got ${JSON.stringify(all.interval)}`;
  const module = all.beacon_module === undefined ? name : all.beacon_module;
  if (typeof module !== 'string') return `beacon ${name}: beacon_module must be a beacon name, got ${JSON.stringify(module)}`;
  const own = Object.fromEntries(Object.entries(all).filter(([k]) => !HIDDEN.has(k)));
  return {
    options: { module, enabled: all.enabled !== false, interval, disableDuringStateRun: all.disable_during_state_run === true, runOnce: all.run_once === true },
    config: own,
  };
}

/**
 * The beacons a minion runs: its config's `beacons:` merged with its pillar's (Salt's
 * config.merge: a pillar beacon replaces a config beacon of the same name). `enabled: False` at the
 * top turns them all off.
 */
export function mergeBeaconSources(fromOpts: unknown, fromPillar: unknown): Record<string, unknown> {
  return { ...(isPlainObject(fromOpts) ? fromOpts : {}), ...(isPlainObject(fromPillar) ? fromPillar : {}) };
}
