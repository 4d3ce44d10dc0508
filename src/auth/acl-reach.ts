// Which minions a user's ACL entries reach at all, for deciding what of the fleet a user may see
// (the REST API's /events, threats.md #48): every minion when one entry allows a function with
// no target restriction, otherwise the minions of its target-restricted entries. Pure.

import type { AclEntry } from './acl.js';
import { isArgRule } from './acl-patterns.js';

export type MinionScope = { all: true } | { all: false; targets: string[] };

export function minionScope(entries: readonly AclEntry[]): MinionScope {
  const targets: string[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      // '@runner', '@jobs', ... are runner/wheel permissions, not minions
      if (!entry.startsWith('@')) return { all: true };
      continue;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    const keys = Object.keys(entry);
    if (keys.length !== 1) continue; // ignored by the ACL check too
    const key = keys[0]!;
    if (key.startsWith('@')) continue;
    // {'cmd.run': {args: [...]}} restricts arguments on every minion
    if (isArgRule(entry[key])) return { all: true };
    targets.push(key);
  }
  return { all: false, targets };
}
