// Pillar targets: pillar (`key:value`, glob on the value), pillar_pcre (regex) and pillar_exact
// (the value's text, exactly). On the master they read the master's pillar cache with Salt's
// greedy rule (a minion with no cached pillar stays expected and re-checks the target itself).

import { parseCompound, type CompoundNode } from './compound-parser.js';
import { checkGrainExpr } from './grain-matchers.js';
import { requireString } from './id-matchers.js';
import { subdictMatcher } from './subdict-match.js';
import type { FleetView, Grains, Target, TargetMatcher, TargetType } from './types.js';

const PILLAR_TYPES: ReadonlySet<TargetType> = new Set(['pillar', 'pillar_pcre', 'pillar_exact']);

function termsByPillar(n: CompoundNode): boolean {
  if (n.kind === 'term') return n.engine === 'I' || n.engine === 'J';
  if (n.kind === 'not') return termsByPillar(n.operand);
  return termsByPillar(n.left) || termsByPillar(n.right);
}

/**
 * Whether a target selects minions by their pillar: a pillar type, or I@ / J@ in a compound.
 * A nodegroup is the operator's own expression, so it does not count. Throws TARGET_INVALID for a
 * compound that cannot be parsed.
 */
export function selectsByPillar(tgt: Target, tgtType: TargetType): boolean {
  if (PILLAR_TYPES.has(tgtType)) return true;
  return tgtType === 'compound' && termsByPillar(parseCompound(tgt));
}

/** Like greedyFilter for grains, over the pillar cache. */
function greedyPillar(fleet: FleetView, test: (pillar: Grains) => boolean): string[] {
  if (!fleet.dataCache) return [...fleet.ids];
  return fleet.ids.filter((id) => {
    const pillar = fleet.pillar(id);
    return pillar === undefined || test(pillar);
  });
}

function pillarMatcher(type: 'pillar' | 'pillar_pcre' | 'pillar_exact', flag: string): TargetMatcher {
  const regex = type === 'pillar_pcre';
  const exact = type === 'pillar_exact';
  const mode = regex ? 'pcre' : exact ? 'exact' : 'glob';
  return {
    type,
    expected(tgt, fleet) {
      const expr = requireString(tgt, type);
      checkGrainExpr(expr, fleet.delimiter, mode, flag, 'pillar key');
      const match = subdictMatcher({ delimiter: fleet.delimiter, regex, exact });
      return { matched: greedyPillar(fleet, (p) => match(p, expr)), missing: [] };
    },
    matchesSelf(tgt, self) {
      const expr = requireString(tgt, type);
      checkGrainExpr(expr, self.delimiter, mode, flag, 'pillar key');
      return subdictMatcher({ delimiter: self.delimiter, regex, exact })(self.pillar ?? {}, expr);
    },
  };
}

export const pillarTargetMatcher = pillarMatcher('pillar', '-I');
export const pillarPcreTargetMatcher = pillarMatcher('pillar_pcre', '-J');
export const pillarExactTargetMatcher = pillarMatcher('pillar_exact', 'pillar_exact');
