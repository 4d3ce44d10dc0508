// What a target selects by minion ID alone. A user limited to some minions must get the same
// answer whatever the other minions' grains and pillar hold (threats.md #43), so the ACL asks
// this, never the data, about minions outside the user's: a term that reads data (G@, P@, S@,
// I@, J@, N@, or a grain/pillar/ipcidr/nodegroup target) is "unknown", and the expression is
// evaluated in three-valued (Kleene) logic.

import { parseCompound, type CompoundNode } from './compound-parser.js';
import { globMatcher, listMatcher, pcreMatcher } from './id-matchers.js';
import { DEFAULT_DELIMITER, type Target, type TargetMatcher, type TargetType } from './types.js';

/** true, false, or undefined when the answer depends on the minion's data. */
type Tri = boolean | undefined;

const BY_ID: ReadonlyMap<string, TargetMatcher> = new Map<string, TargetMatcher>([
  ['glob', globMatcher],
  ['pcre', pcreMatcher],
  ['list', listMatcher],
  ['E', pcreMatcher],
  ['L', listMatcher],
]);

function byId(matcher: TargetMatcher | undefined, pattern: Target, id: string): Tri {
  if (!matcher) return undefined;
  return matcher.matchesSelf(pattern, { id, grains: {}, delimiter: DEFAULT_DELIMITER });
}

function evalTri(node: CompoundNode, id: string): Tri {
  switch (node.kind) {
    case 'term':
      return byId(BY_ID.get(node.engine), node.pattern, id);
    case 'not': {
      const v = evalTri(node.operand, id);
      return v === undefined ? undefined : !v;
    }
    case 'and': {
      const l = evalTri(node.left, id);
      const r = evalTri(node.right, id);
      if (l === false || r === false) return false;
      return l === true && r === true ? true : undefined;
    }
    case 'or': {
      const l = evalTri(node.left, id);
      const r = evalTri(node.right, id);
      if (l === true || r === true) return true;
      return l === false && r === false ? false : undefined;
    }
  }
}

/**
 * A test of whether the target selects an ID whatever that minion's grains, pillar, address or
 * nodegroup membership are. Throws TARGET_INVALID for an expression that cannot be parsed.
 */
export function selectsByNameAlone(tgt: Target, tgtType: TargetType): (id: string) => boolean {
  if (tgtType === 'compound') {
    const tree = parseCompound(tgt);
    return (id) => evalTri(tree, id) === true;
  }
  const matcher = BY_ID.get(tgtType);
  return (id) => byId(matcher, tgt, id) === true;
}
