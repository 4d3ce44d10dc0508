// The `beacons` module (Salt's salt/modules/beacons.py): list, list_available, add, modify, delete,
// save, enable, disable, enable_beacon, disable_beacon and reset, answered in Salt's shapes
// ({comment, result}; list as YAML text unless return_yaml=False). They change the running
// minion's beacons (ctx.beacons), so they run inline in the minion daemon.

import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import type { BeaconControl, ExecContext, ModuleFunction } from './types.js';

function beaconsOf(ctx: ExecContext, fun: string): BeaconControl {
  if (!ctx.beacons)
    throw new BrineError('EXEC_FAILED', `${fun} changes the running minion's beacons; run it as a job (brine run, or brine call without --local), not from a template or brine call --local`);
  return ctx.beacons;
}

const NAME = { name: 'name', type: 'string', required: true, doc: 'the beacon, as configured under beacons:' } as const;
const TEST = { name: 'test', type: 'bool', default: false, doc: 'say what would change, change nothing' } as const;

export const beaconsFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'beacons.list',
    doc: 'The configured beacons (minion config, beacons.add and pillar), as YAML text or, with return_yaml=False, a mapping.',
    params: [
      { name: 'return_yaml', type: 'bool', default: true, doc: 'YAML text (the default) or the mapping' },
      { name: 'include_pillar', type: 'bool', default: true, doc: 'include beacons configured in pillar' },
      { name: 'include_opts', type: 'bool', default: true, doc: 'include beacons configured in the minion config' },
    ],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => beaconsOf(ctx, 'beacons.list').list({ return_yaml: a.named.return_yaml, include_pillar: a.named.include_pillar, include_opts: a.named.include_opts }),
  }),
  defineFunction({
    name: 'beacons.list_available',
    doc: 'The beacon modules this minion can run.',
    params: [{ name: 'return_yaml', type: 'bool', default: true, doc: 'YAML text (the default) or the list' }],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => {
      const names = await beaconsOf(ctx, 'beacons.list_available').listAvailable();
      return a.named.return_yaml ? `beacons:\n${names.map((n) => `- ${n}`).join('\n')}\n` : names;
    },
  }),
  defineFunction({
    name: 'beacons.add',
    doc: "Add a beacon to the running minion (validated first); beacons.save keeps it across restarts. Example: beacons.add ps \"[{'processes': {'salt-master': 'stopped'}}]\"",
    params: [NAME, { name: 'beacon_data', type: 'any', required: true, doc: "the beacon's configuration, Salt's list of mappings" }, TEST],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => beaconsOf(ctx, 'beacons.add').add(a.named.name, a.named.beacon_data, a.named.test),
  }),
  defineFunction({
    name: 'beacons.modify',
    doc: "Replace a beacon's configuration on the running minion (validated first).",
    params: [NAME, { name: 'beacon_data', type: 'any', required: true, doc: "the beacon's new configuration" }],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => beaconsOf(ctx, 'beacons.modify').modify(a.named.name, a.named.beacon_data),
  }),
  defineFunction({
    name: 'beacons.delete',
    doc: 'Remove a beacon from the running minion (pillar beacons are changed in pillar).',
    params: [NAME],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => beaconsOf(ctx, 'beacons.delete').delete(a.named.name),
  }),
  defineFunction({
    name: 'beacons.save',
    doc: "Write the minion's beacons (not pillar's) to <config_dir>/minion.d/beacons.conf.",
    params: [],
    kwargs: true,
    inline: true,
    run: async (ctx) => beaconsOf(ctx, 'beacons.save').save(),
  }),
  defineFunction({
    name: 'beacons.enable',
    doc: 'Turn all beacons on.',
    params: [],
    kwargs: true,
    inline: true,
    run: async (ctx) => beaconsOf(ctx, 'beacons.enable').enable(true),
  }),
  defineFunction({
    name: 'beacons.disable',
    doc: 'Turn all beacons off (their configuration stays).',
    params: [],
    kwargs: true,
    inline: true,
    run: async (ctx) => beaconsOf(ctx, 'beacons.disable').enable(false),
  }),
  defineFunction({
    name: 'beacons.enable_beacon',
    doc: 'Turn one beacon on.',
    params: [{ ...NAME, required: false, default: '' }],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => beaconsOf(ctx, 'beacons.enable_beacon').enableBeacon(a.named.name, true),
  }),
  defineFunction({
    name: 'beacons.disable_beacon',
    doc: 'Turn one beacon off (its configuration stays).',
    params: [{ ...NAME, required: false, default: '' }],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => beaconsOf(ctx, 'beacons.disable_beacon').enableBeacon(a.named.name, false),
  }),
  defineFunction({
    name: 'beacons.reset',
    doc: 'Go back to the beacons the minion started with (changes since, saved or not, are dropped from the running minion).',
    params: [],
    kwargs: true,
    inline: true,
    run: async (ctx) => beaconsOf(ctx, 'beacons.reset').reset(),
  }),
];
