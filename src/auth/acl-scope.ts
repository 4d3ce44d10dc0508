// The minions a target-restricted user may reach, and the one decision about a request's target
// inside them. A target is evaluated against the other minions' data nowhere: a target such as
// `web1 or ( db1 and J@dbpass:^h )` from a user limited to web* used to be refused exactly when
// db1's pillar matched, so allow/deny read the pillar one character at a time (threats.md #43).
// Now the answer depends only on minion IDs and on the data of the user's own minions.

import { selectsByNameAlone, type TargetType } from '../targeting/index.js';

/** Every minion (an unrestricted entry), or the set a target-restricted entry matches. */
export type Scope = 'all' | ReadonlySet<string>;

/**
 * The accepted minions a target matches; with `within`, the target is evaluated among those
 * minions alone (their grains and pillar, nobody else's).
 */
export type MinionsOf = (tgt: string | string[], tgtType: string, within?: ReadonlySet<string>) => string[];

export function intersectScopes(a: Scope, b: Scope): Scope {
  if (a === 'all') return b;
  if (b === 'all') return a;
  return new Set([...a].filter((id) => b.has(id)));
}

export function unionScopes(a: Scope | undefined, b: Scope): Scope {
  if (a === undefined) return b;
  if (a === 'all' || b === 'all') return 'all';
  return new Set([...a, ...b]);
}

export type TargetDecision = { allowed: true; within: string[] } | { allowed: false; reason: string };

/**
 * For a scoped request: refused when the target names, by ID alone, an accepted minion outside
 * the scope (`*`, `db1`, `L@db1`: Salt refuses these too), or when it matches none of the minions
 * inside it (zero minions is never "all", threats.md #20). Otherwise the job may run, on the
 * target's minions inside the scope only (`within`). Minions outside the scope are never
 * evaluated against their grains or pillar, so nothing in the answer depends on them.
 */
export function decideTarget(tgt: string | string[], tgtType: string, scope: ReadonlySet<string>, minionsOf: MinionsOf, what: string): TargetDecision {
  const named = selectsByNameAlone(tgt, tgtType as TargetType);
  if (minionsOf('*', 'glob').some((id) => !scope.has(id) && named(id))) {
    return { allowed: false, reason: `the target names minions outside those you may run ${what} on` };
  }
  // evaluated among the scope's minions alone: no other minion's data is read, not even for time
  const within = minionsOf(tgt, tgtType, scope).filter((id) => scope.has(id));
  if (within.length === 0) return { allowed: false, reason: `the target matches none of the minions you may run ${what} on` };
  return { allowed: true, within: [...scope] };
}
