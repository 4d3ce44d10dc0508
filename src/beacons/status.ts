// status (Salt's salt/beacons/status.py): a health report each poll. `- loadavg: [all]` (or
// `[1-min, 5-min]`, or list indexes for functions that return lists) names status.* functions and
// the fields of each to send; empty, it sends loadavg, cpustats, meminfo, vmstats and time whole.
// One event per poll, tagged with the UTC time in Python's isoformat: {data: {<function>: ...}}.

import { toBrineError } from '../util/errors.js';
import type { BeaconContext, BeaconModule } from './types.js';

const DEFAULTS: Readonly<Record<string, unknown>> = { loadavg: ['all'], cpustats: ['all'], meminfo: ['all'], vmstats: ['all'], time: ['all'] };

/**
 * Salt 3007's tag: datetime.utcnow().isoformat(), naive UTC with microseconds left out when zero
 * (Salt's master branch, after 3007, moved to an aware time that adds +00:00).
 */
export function utcIsoformat(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-12-07T09:30:01.123Z
  const frac = iso.slice(20, 23);
  return `${iso.slice(0, 19)}${frac === '000' ? '' : `.${frac}000`}`;
}

/** Python's repr of a dict key in a KeyError's text: 'name' for a string, 0 for a number. */
const keyRepr = (k: unknown): string => (typeof k === 'string' ? `'${k.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : String(k));

/** Python's int() of a list index from YAML; undefined where int() raises. */
function indexOf(item: unknown): number | undefined {
  if (typeof item === 'number' && Number.isFinite(item)) return Math.trunc(item);
  if (typeof item === 'string' && /^\s*[+-]?\d+\s*$/.test(item)) return Number.parseInt(item, 10);
  return undefined;
}

/**
 * `data[item]` as Salt's beacon takes it: a mapping by key (a missing key is Salt's "incorrectly
 * configured" text), a list or a string by index. Throws where Salt's beacon raises.
 */
function pick(fun: string, data: unknown, item: unknown): { value: unknown } | { misconfigured: string } {
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const key = typeof item === 'number' || typeof item === 'string' ? String(item) : undefined;
    if (key === undefined || !Object.hasOwn(data, key)) return { misconfigured: `Status beacon is incorrectly configured: ${keyRepr(item)}` };
    return { value: (data as Record<string, unknown>)[key] };
  }
  if (Array.isArray(data) || typeof data === 'string') {
    const i = indexOf(item);
    if (i === undefined) throw new Error(`status.${fun} returned a list; ${JSON.stringify(item)} is not an index (use all or 0, 1, ...)`);
    const at = i < 0 ? data.length + i : i;
    if (at < 0 || at >= data.length) throw new Error(`status.${fun}: index ${i} is out of range (it returned ${data.length} items)`);
    return { value: data[at] };
  }
  throw new Error(`status.${fun} returned ${JSON.stringify(data)}, which has no item ${JSON.stringify(item)}`);
}

async function report(ctx: BeaconContext, config: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const entries = Object.keys(config).length === 0 ? DEFAULTS : config;
  const ret: Record<string, unknown> = {};
  for (const [fun, wanted] of Object.entries(entries)) {
    ret[fun] = {};
    let data: unknown;
    try {
      data = await ctx.call(`status.${fun}`, []);
    } catch (err) {
      // Salt logs a CommandExecutionError at debug and sends {} for that function; a function
      // that does not exist is the operator's typo, said louder
      const e = toBrineError(err, 'EXEC_FAILED');
      const line = `Status beacon attempted to process function ${fun} but encountered error: ${e.message}`;
      if (e.code === 'UNKNOWN_FUNCTION') ctx.logger.warn({ beacon: 'status', fun, code: e.code }, `${line}; brine's status functions: brine call sys.list_functions status`);
      else ctx.logger.debug({ beacon: 'status', fun, code: e.code }, line);
      continue;
    }
    for (const item of Array.isArray(wanted) ? wanted : [wanted]) {
      if (item === 'all') {
        ret[fun] = data;
        continue;
      }
      const got = pick(fun, data, item);
      if ('misconfigured' in got) ret[fun] = got.misconfigured;
      else if (ret[fun] !== null && typeof ret[fun] === 'object' && !Array.isArray(ret[fun])) (ret[fun] as Record<string, unknown>)[String(item)] = got.value;
    }
  }
  return ret;
}

export const statusBeacon: BeaconModule = {
  name: 'status',
  // Salt checks only that the configuration is a list (here: a list or a mapping, which the
  // configuration reader already requires); what a function cannot answer shows in the event
  validate: () => undefined,
  create: (ctx) => ({
    async poll(config) {
      const tag = utcIsoformat(ctx.clock.now());
      return [{ tag, data: await report(ctx, config) }];
    },
  }),
};
