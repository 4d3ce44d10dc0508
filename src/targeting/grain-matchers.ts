// Grain targets: grain (`key:value`, glob on the value) and grain_pcre (regex on the value), and
// ipcidr (an address or network against the `ipv4`/`ipv6` grains). On the master they read the
// minion data cache with Salt's greedy rule: a minion with no cached grains stays expected.

import { BrineError } from '../util/errors.js';
import { requireString } from './id-matchers.js';
import { inNetwork, parseIpAddress, parseIpNetwork, type IpAddress, type IpNetwork } from './ip-address.js';
import { compileValueGlob, compileValueRegex, subdictMatcher } from './subdict-match.js';
import { DEFAULT_DELIMITER, type FleetView, type Grains, type TargetMatcher } from './types.js';

/**
 * Salt's _check_cache_minions with greedy=True: every accepted ID, minus those whose cached
 * grains do not match. With minion_data_cache off, every accepted ID.
 */
export function greedyFilter(fleet: FleetView, test: (grains: Grains) => boolean): string[] {
  if (!fleet.dataCache) return [...fleet.ids];
  return fleet.ids.filter((id) => {
    const grains = fleet.grains(id);
    return grains === undefined || test(grains);
  });
}

/** How the value part of `key:value` is read: an fnmatch glob, a regular expression, or exact text. */
export type ValueMode = 'glob' | 'pcre' | 'exact';

/** Checks a grain expression up front so a typo is an error, not a silent "no match". */
export function checkGrainExpr(expr: string, delimiter: string, mode: ValueMode, flag: string, what = 'grain name'): void {
  const delim = delimiter === '' ? DEFAULT_DELIMITER : delimiter;
  const at = expr.indexOf(delim);
  if (at <= 0) {
    throw new BrineError(
      'TARGET_INVALID',
      `the ${flag} target ${JSON.stringify(expr)} is not key${delim}value: it needs a ${what}, then ${JSON.stringify(delim)}, then the value (e.g. os${delim}Debian)`,
    );
  }
  if (mode === 'exact') return;
  // the longest value part; the shorter ones subdict_match may try are no larger programs
  const pattern = expr.slice(at + delim.length);
  const c = mode === 'pcre' ? compileValueRegex(pattern) : compileValueGlob(pattern);
  if (!c.ok) {
    const what = mode === 'pcre' ? 'is not a valid regular expression' : 'is not a usable glob';
    throw new BrineError('TARGET_INVALID', `the ${flag} target ${JSON.stringify(expr)}: ${JSON.stringify(pattern)} ${what}: ${c.problem}`);
  }
}

function grainMatcher(type: 'grain' | 'grain_pcre', regex: boolean, flag: string): TargetMatcher {
  return {
    type,
    expected(tgt, fleet) {
      const expr = requireString(tgt, type);
      checkGrainExpr(expr, fleet.delimiter, regex ? 'pcre' : 'glob', flag);
      const match = subdictMatcher({ delimiter: fleet.delimiter, regex });
      return { matched: greedyFilter(fleet, (g) => match(g, expr)), missing: [] };
    },
    matchesSelf(tgt, self) {
      const expr = requireString(tgt, type);
      checkGrainExpr(expr, self.delimiter, regex ? 'pcre' : 'glob', flag);
      return subdictMatcher({ delimiter: self.delimiter, regex })(self.grains, expr);
    },
  };
}

export const grainTargetMatcher = grainMatcher('grain', false, '-G');
export const grainPcreTargetMatcher = grainMatcher('grain_pcre', true, '-P');

type IpTarget = { kind: 'address'; addr: IpAddress } | { kind: 'network'; net: IpNetwork };

/** Python's order: an address first, else a network; anything else is refused. */
export function parseIpTarget(expr: string, flag = '-S'): IpTarget {
  const addr = parseIpAddress(expr);
  if (addr) return { kind: 'address', addr };
  const parsed = parseIpNetwork(expr);
  if ('network' in parsed) return { kind: 'network', net: parsed.network };
  throw new BrineError('TARGET_INVALID', `the ${flag} target ${JSON.stringify(expr)} is not an IP address or network: ${parsed.problem}`);
}

/** Salt's ipcidr match against the `ipv4` or `ipv6` grain (a list of address strings). */
export function ipGrainsMatch(target: IpTarget, grains: Grains): boolean {
  const version = target.kind === 'address' ? target.addr.version : target.net.version;
  const key = version === 4 ? 'ipv4' : 'ipv6';
  if (!Object.hasOwn(grains, key)) return false;
  const raw = grains[key];
  const list = Array.isArray(raw) ? raw : [raw];
  for (const item of list) {
    if (typeof item !== 'string') continue;
    const a = parseIpAddress(item);
    if (!a || a.version !== version) continue;
    if (target.kind === 'address' ? a.text === target.addr.text : inNetwork(a, target.net)) return true;
  }
  return false;
}

export const ipcidrTargetMatcher: TargetMatcher = {
  type: 'ipcidr',
  expected(tgt, fleet) {
    const target = parseIpTarget(requireString(tgt, 'ipcidr'));
    return { matched: greedyFilter(fleet, (g) => ipGrainsMatch(target, g)), missing: [] };
  },
  matchesSelf(tgt, self) {
    return ipGrainsMatch(parseIpTarget(requireString(tgt, 'ipcidr')), self.grains);
  },
};
