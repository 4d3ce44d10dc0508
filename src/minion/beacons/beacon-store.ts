// The minion's beacon configuration and beacons.* on it, with Salt's answers
// (salt/modules/beacons.py, salt/utils/beacons.py): the `beacons:` of the minion config, changed in
// memory by add/modify/delete/enable/disable until `save` writes it to
// <config_dir>/minion.d/beacons.conf, merged with the pillar's `beacons:` (the pillar's win). reset
// goes back to the configuration the daemon started with.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { listToDict, mergeBeaconSources, splitBeaconConfig } from '../../beacons/beacon-config.js';
import { beaconModules } from './beacon-modules.js';
import type { BeaconControl } from '../../modules/index.js';
import { isPlainObject } from '../../protocol/index.js';

type Answer = { comment: string; result: boolean };

/**
 * PyYAML's safe_dump(default_flow_style=False): block style, keys sorted, a final newline. The
 * emitter lives with the Jinja engine, loaded on first use so that a minion starts without it.
 */
const safeDump = async (v: unknown): Promise<string> => {
  const { yamlDump } = await import('../../render/jinja/yaml-emitter.js');
  const text = yamlDump(v, false);
  return text.endsWith('\n') ? text : `${text}\n`;
};

/** Why beacon `name` cannot run with `config`: a configuration to fix, or a beacon this host cannot run. */
export interface BeaconRefusal {
  code: 'BEACON_CONFIG_INVALID' | 'BEACON_UNAVAILABLE';
  message: string;
}

/** Why `config` cannot run as beacon `name`, or undefined when it can. */
export async function beaconCheck(name: string, config: unknown): Promise<BeaconRefusal | undefined> {
  const split = splitBeaconConfig(name, config);
  if (typeof split === 'string') return { code: 'BEACON_CONFIG_INVALID', message: split };
  const BEACONS = await beaconModules();
  const mod = BEACONS.get(split.options.module);
  if (mod === undefined) return { code: 'BEACON_CONFIG_INVALID', message: `Beacon "${split.options.module}" is not available (brine has ${[...BEACONS.keys()].join(', ')}).` };
  const invalid = mod.validate(split.config);
  if (invalid !== undefined) return { code: 'BEACON_CONFIG_INVALID', message: invalid };
  const why = mod.unavailable?.(split.config);
  return why === undefined ? undefined : { code: 'BEACON_UNAVAILABLE', message: `Beacon "${mod.name}" is not available here: ${why}.` };
}

/** Why `config` is not a valid configuration for beacon `name` (or cannot run here), or undefined. */
export async function beaconProblem(name: string, config: unknown): Promise<string | undefined> {
  return (await beaconCheck(name, config))?.message;
}

/** Sets `enabled` in a beacon's config, in its own form (a list gets an `- enabled:` item, as Salt does). */
function withEnabled(config: unknown, on: boolean): unknown {
  if (Array.isArray(config)) return [...config.filter((i) => !(isPlainObject(i) && 'enabled' in i)), { enabled: on }];
  return { ...(listToDict(config) ?? {}), enabled: on };
}

export class BeaconStore implements BeaconControl {
  private opts: Record<string, unknown>;
  private readonly initial: Record<string, unknown>;

  constructor(
    fromOpts: unknown,
    private readonly pillar: () => Readonly<Record<string, unknown>>,
    private readonly configDir: string,
  ) {
    this.initial = structuredClone(isPlainObject(fromOpts) ? fromOpts : {});
    this.opts = structuredClone(this.initial);
  }

  /** What runs: config and pillar merged. */
  merged(): Record<string, unknown> {
    return mergeBeaconSources(this.opts, this.pillar().beacons);
  }

  async list(o: { include_pillar: boolean; include_opts: boolean; return_yaml: boolean }): Promise<unknown> {
    const beacons = { ...(o.include_opts ? this.opts : {}), ...(o.include_pillar && isPlainObject(this.pillar().beacons) ? (this.pillar().beacons as Record<string, unknown>) : {}) };
    if (Object.keys(beacons).length === 0) return { beacons: {} };
    return o.return_yaml ? safeDump({ beacons }) : beacons;
  }

  /** The beacons this host can run (Salt lists those whose __virtual__ loads). */
  async listAvailable(): Promise<string[]> {
    return [...(await beaconModules()).values()]
      .filter((b) => b.unavailable?.({}) === undefined)
      .map((b) => b.name)
      .sort();
  }

  async add(name: string, config: unknown, test: boolean): Promise<Answer> {
    if (name in this.merged()) return { comment: `Beacon ${name} is already configured.`, result: false };
    const problem = await beaconCheck(name, config);
    // Salt's add answers `Beacon "<module>" is not available.` before validating: here with the reason
    if (problem?.code === 'BEACON_UNAVAILABLE') return { comment: problem.message, result: false };
    if (problem !== undefined) return { comment: `Beacon ${name} configuration invalid, not adding.\n${problem.message}`, result: false };
    if (test) return { comment: `Beacon: ${name} would be added.`, result: true };
    this.opts[name] = config;
    return { comment: `Added beacon: ${name}.`, result: true };
  }

  async modify(name: string, config: unknown): Promise<Answer> {
    if (!(name in this.merged())) return { comment: `Beacon ${name} is not configured.`, result: false };
    const problem = await beaconCheck(name, config);
    if (problem?.code === 'BEACON_UNAVAILABLE') return { comment: problem.message, result: false };
    if (problem !== undefined) return { comment: `Beacon ${name} configuration invalid, not modifying.\n${problem.message}`, result: false };
    this.opts[name] = config;
    return { comment: `Modified beacon: ${name}.`, result: true };
  }

  async delete(name: string): Promise<Answer> {
    if (!(name in this.opts)) {
      const inPillar = name in this.merged();
      return { comment: inPillar ? `Beacon ${name} is configured in pillar; remove it there.` : `Beacon ${name} is not configured.`, result: false };
    }
    delete this.opts[name];
    return { comment: `Deleted beacon: ${name}.`, result: true };
  }

  async save(): Promise<Answer> {
    const file = path.join(this.configDir, 'minion.d', 'beacons.conf');
    const beacons = Object.fromEntries(Object.entries(this.opts));
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, Object.keys(beacons).length > 0 ? await safeDump({ beacons }) : '', { mode: 0o600 });
    } catch (err) {
      return { comment: `Unable to write to beacons file at ${file}. Check permissions. (${String(err)})`, result: false };
    }
    return { comment: `Beacons saved to ${file}.`, result: true };
  }

  enable(on: boolean): Answer {
    this.opts.enabled = on;
    return { comment: on ? 'Enabled beacons on minion.' : 'Disabled beacons on minion.', result: true };
  }

  enableBeacon(name: string, on: boolean): Answer {
    if (name === '') return { comment: 'Beacon name is required.', result: false };
    const merged = this.merged();
    if (!(name in merged) || name === 'enabled') return { comment: `Beacon ${name} is not currently configured.`, result: false };
    this.opts[name] = withEnabled(merged[name], on);
    return { comment: `${on ? 'Enabled' : 'Disabled'} beacon ${name} on minion.`, result: true };
  }

  async reset(): Promise<Answer> {
    this.opts = structuredClone(this.initial);
    return { comment: 'Beacon configuration reset.', result: true };
  }
}
