// `pillar=` overrides (state.apply, state.sls, state.highstate, pillar.items, ...) are a
// permission of their own. An inline pillar is data the SLS templates interpolate, so a value
// with newlines adds states: with only state.apply a user could run anything (threats.md #45).
// The grant is the pseudo-function '@pillar_override', spelled like Salt's other '@' entries:
//   - '@pillar_override'                              on every minion
//   - {'web*': ['state.apply', '@pillar_override']}   on the minions that entry's target matches

import { isPlainObject } from './acl-patterns.js';

export const PILLAR_OVERRIDE = '@pillar_override';

/** The keyword a function takes an inline pillar by (Salt's pillar_override). */
const PILLAR_KWARG = 'pillar';

/** A mapping holds a `pillar` key somewhere inside (the kwargs a scheduled or nested call will get). */
function nestedPillarKey(value: unknown, depth = 0): boolean {
  if (depth > 32) return true; // too deep to inspect: treated as carrying one, so it needs the grant
  if (Array.isArray(value)) return value.some((v) => nestedPillarKey(v, depth + 1));
  if (!isPlainObject(value)) return false;
  for (const k of Object.keys(value)) {
    if (k === PILLAR_KWARG && value[k] !== null && value[k] !== undefined) return true;
    if (nestedPillarKey(value[k], depth + 1)) return true;
  }
  return false;
}

/**
 * Whether a call passes an inline pillar: a `pillar` keyword (not None) on any function, or, for
 * a function that runs another one (`runsOthers`: schedule.add, module.run, publish.publish, ...),
 * a `pillar` key anywhere in its arguments, since those become the nested call's keywords.
 */
export function carriesPillarOverride(call: { args: readonly unknown[]; kwargs: Record<string, unknown> }, runsOthers: boolean): boolean {
  const direct = call.kwargs[PILLAR_KWARG];
  if (Object.hasOwn(call.kwargs, PILLAR_KWARG) && direct !== null && direct !== undefined) return true;
  return runsOthers && (nestedPillarKey(call.kwargs) || nestedPillarKey(call.args));
}

/** Where the entries grant '@pillar_override': 'all', the targets of the mappings that list it, or nowhere. */
export function pillarOverrideGrants(entries: readonly unknown[]): { everywhere: boolean; targets: string[] } {
  const targets: string[] = [];
  for (const entry of entries) {
    if (entry === PILLAR_OVERRIDE) return { everywhere: true, targets: [] };
    if (!isPlainObject(entry)) continue;
    const keys = Object.keys(entry);
    if (keys.length !== 1 || keys[0]!.startsWith('@')) continue;
    const value = entry[keys[0]!];
    const list = Array.isArray(value) ? value : [value];
    if (list.includes(PILLAR_OVERRIDE)) targets.push(keys[0]!);
  }
  return { everywhere: false, targets };
}
