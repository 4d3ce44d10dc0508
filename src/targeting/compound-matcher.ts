// Compound and nodegroup targets. The master evaluates the tree as set algebra over accepted
// IDs (`not X` = all accepted minus X), each term with its own engine and Salt's greedy rule; a
// minion evaluates the same tree as booleans over its own ID and grains.

import { BrineError } from '../util/errors.js';
import { parseCompound, type CompoundNode } from './compound-parser.js';
import { grainPcreTargetMatcher, grainTargetMatcher, ipcidrTargetMatcher } from './grain-matchers.js';
import { globMatcher, listMatcher, pcreMatcher, requireString } from './id-matchers.js';
import { pillarPcreTargetMatcher, pillarTargetMatcher } from './pillar-matchers.js';
import { expandNodegroup, expandNodegroupRefs } from './nodegroups.js';
import { DEFAULT_DELIMITER, type FleetView, type SelfView, type Target, type TargetMatcher, type TargetResult } from './types.js';

type Term = Extract<CompoundNode, { kind: 'term' }>;

function engineMatcher(term: Term): TargetMatcher {
  switch (term.engine) {
    case 'glob':
      return globMatcher;
    case 'E':
      return pcreMatcher;
    case 'L':
      return listMatcher;
    case 'G':
      return grainTargetMatcher;
    case 'P':
      return grainPcreTargetMatcher;
    case 'S':
      return ipcidrTargetMatcher;
    case 'I':
      return pillarTargetMatcher;
    case 'J':
      return pillarPcreTargetMatcher;
    case 'N':
      throw new BrineError('TARGET_INVALID', `${term.word.text} at position ${term.word.pos}: nodegroups are expanded by the master; a minion cannot evaluate N@`);
  }
}

// Salt passes a term's own delimiter (G;@a;b) or ':', never --delimiter, to compound engines
const termDelimiter = (term: Term) => term.delimiter ?? DEFAULT_DELIMITER;

function evalSet(node: CompoundNode, fleet: FleetView, missing: Set<string>, negated: boolean): Set<string> {
  switch (node.kind) {
    case 'term': {
      const r = engineMatcher(node).expected(node.pattern, { ...fleet, delimiter: termDelimiter(node) });
      // IDs named by L@ that are not accepted are reported, unless the list is excluded
      if (!negated) for (const m of r.missing) missing.add(m);
      return new Set(r.matched);
    }
    case 'not': {
      const excluded = evalSet(node.operand, fleet, missing, !negated);
      return new Set(fleet.ids.filter((id) => !excluded.has(id)));
    }
    case 'and': {
      const left = evalSet(node.left, fleet, missing, negated);
      const right = evalSet(node.right, fleet, missing, negated);
      return new Set([...left].filter((id) => right.has(id)));
    }
    case 'or':
      return new Set([...evalSet(node.left, fleet, missing, negated), ...evalSet(node.right, fleet, missing, negated)]);
  }
}

function evalBool(node: CompoundNode, self: SelfView): boolean {
  switch (node.kind) {
    case 'term':
      return engineMatcher(node).matchesSelf(node.pattern, { ...self, delimiter: termDelimiter(node) });
    case 'not':
      return !evalBool(node.operand, self);
    case 'and':
      return evalBool(node.left, self) && evalBool(node.right, self);
    case 'or':
      return evalBool(node.left, self) || evalBool(node.right, self);
  }
}

/** Master side: expected minions for a compound expression whose N@ terms are already expanded. */
export function compoundExpected(expr: string, fleet: FleetView): TargetResult {
  const tree = parseCompound(expr);
  // Salt: without a minion data cache, a compound target expects every accepted minion
  if (!fleet.dataCache) return { matched: [...fleet.ids], missing: [] };
  const missing = new Set<string>();
  const matched = evalSet(tree, fleet, missing, false);
  // keep the accepted keys' order, so output is stable
  return { matched: fleet.ids.filter((id) => matched.has(id)), missing: [...missing] };
}

function compoundText(tgt: Target): string {
  return typeof tgt === 'string' ? tgt : tgt.join(' ');
}

export const compoundMatcher: TargetMatcher = {
  type: 'compound',
  expected(tgt, fleet) {
    return compoundExpected(expandNodegroupRefs(compoundText(tgt), fleet.nodegroups), fleet);
  },
  matchesSelf(tgt, self) {
    return evalBool(parseCompound(compoundText(tgt)), self);
  },
};

export const nodegroupMatcher: TargetMatcher = {
  type: 'nodegroup',
  expected(tgt, fleet) {
    const name = requireString(tgt, 'nodegroup');
    const expr = expandNodegroup(name, fleet.nodegroups);
    try {
      return compoundExpected(expr, fleet);
    } catch (err) {
      // the operator typed a name: say which definition is broken
      if (err instanceof BrineError) throw new BrineError(err.code, `nodegroup '${name}' in the master config: ${err.message}`, { cause: err, details: { ...err.details, nodegroup: name } });
      throw err;
    }
  },
  matchesSelf() {
    throw new BrineError('TARGET_INVALID', 'a nodegroup target must be expanded into a compound one by the master before it reaches a minion');
  },
};
