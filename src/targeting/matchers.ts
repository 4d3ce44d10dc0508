// Target matchers (Salt's CkMinions for the master, and the minion's own re-check), one per
// target type, found through a Map: glob, pcre, list, grain, grain_pcre, ipcidr, compound, nodegroup.

import { BrineError } from '../util/errors.js';
import { compoundMatcher, nodegroupMatcher } from './compound-matcher.js';
import { grainPcreTargetMatcher, grainTargetMatcher, ipcidrTargetMatcher } from './grain-matchers.js';
import { globMatcher, listMatcher, pcreMatcher } from './id-matchers.js';
import { pillarExactTargetMatcher, pillarPcreTargetMatcher, pillarTargetMatcher } from './pillar-matchers.js';
import { expandNodegroup, expandNodegroupRefs } from './nodegroups.js';
import { DEFAULT_DELIMITER, type FleetView, type Grains, type MatchOptions, type Target, type TargetMatcher, type TargetResult, type TargetType } from './types.js';

const MATCHERS: ReadonlyMap<string, TargetMatcher> = new Map(
  [
    globMatcher,
    pcreMatcher,
    listMatcher,
    grainTargetMatcher,
    grainPcreTargetMatcher,
    ipcidrTargetMatcher,
    compoundMatcher,
    nodegroupMatcher,
    pillarTargetMatcher,
    pillarPcreTargetMatcher,
    pillarExactTargetMatcher,
  ].map((m) => [m.type, m]),
);

/** The matcher for a target type; TARGET_INVALID for a type brine does not support. */
export function matcherFor(tgtType: string): TargetMatcher {
  const m = MATCHERS.get(tgtType);
  if (!m) {
    throw new BrineError('TARGET_INVALID', `target type ${JSON.stringify(tgtType)} is not supported; use one of ${[...MATCHERS.keys()].join(', ')}`);
  }
  return m;
}

export function supportedTargetTypes(): string[] {
  return [...MATCHERS.keys()];
}

function delimiterOf(delimiter: string | undefined): string {
  return delimiter === undefined || delimiter === '' ? DEFAULT_DELIMITER : delimiter;
}

/**
 * Expected minions for a target among `ids` (the accepted keys): Salt's check_minions with
 * greedy=True, reading cached grains through `opts.grains`. Throws TARGET_INVALID for an
 * expression that cannot be evaluated (malformed compound, unknown nodegroup, loop, bad regex).
 */
export function matchTarget(tgt: Target, tgtType: TargetType, ids: readonly string[], opts: MatchOptions = {}): TargetResult {
  const fleet: FleetView = {
    ids,
    grains: opts.grains ?? (() => undefined),
    pillar: opts.pillar ?? (() => undefined),
    dataCache: opts.dataCache ?? true,
    delimiter: delimiterOf(opts.delimiter),
    nodegroups: opts.nodegroups ?? {},
  };
  return matcherFor(tgtType).expected(tgt, fleet);
}

/**
 * A minion's check that a publish is meant for it, against its own ID and grains. Throws
 * TARGET_INVALID for an expression that cannot be evaluated (the caller drops the job and logs it).
 */
export function minionMatches(tgt: Target, tgtType: TargetType, id: string, grains: Grains = {}, delimiter?: string, pillar?: Grains): boolean {
  return matcherFor(tgtType).matchesSelf(tgt, { id, grains, delimiter: delimiterOf(delimiter), ...(pillar ? { pillar } : {}) });
}

/**
 * The target as sent to minions: a nodegroup becomes the compound expression it stands for, and
 * N@ inside a compound target is expanded (minions do not know the master's nodegroups).
 */
export function targetForMinions(tgt: Target, tgtType: TargetType, nodegroups: Readonly<Record<string, unknown>>): { tgt: Target; tgtType: TargetType } {
  if (tgtType === 'nodegroup') {
    if (typeof tgt !== 'string') throw new BrineError('TARGET_INVALID', 'a nodegroup target is one nodegroup name');
    return { tgt: expandNodegroup(tgt, nodegroups), tgtType: 'compound' };
  }
  if (tgtType === 'compound') return { tgt: expandNodegroupRefs(tgt, nodegroups), tgtType };
  return { tgt, tgtType };
}
