// The fix line for a target that does not parse or matches nothing, per target type: the
// catalogue's one fix per code cannot say what a -C term looks like and what a -G one does.

import type { TargetType } from '../protocol/index.js';

const CHECK_IDS = 'check it against the accepted IDs in `brine key -L`';

const FIXES: Readonly<Record<TargetType, string>> = {
  glob: `The target is a shell-style glob on the minion ID (quote it so the shell does not expand *); ${CHECK_IDS}.`,
  pcre: `-E takes a regular expression matched from the start of the minion ID (Python re syntax); ${CHECK_IDS}.`,
  list: '-L takes minion IDs separated by commas, exactly as `brine key -L` lists them.',
  grain: "-G takes grain:glob (nested keys joined by ':', or --delimiter); see a minion's value with `brine run <id> grains.get <grain>`.",
  grain_pcre: "-P takes grain:regex (nested keys joined by ':', or --delimiter); see a minion's value with `brine run <id> grains.get <grain>`.",
  pillar: "-I takes pillar_key:glob, matched against the master's pillar cache; see a minion's value with `brine run <id> pillar.get <key>`.",
  pillar_pcre: "-J takes pillar_key:regex, matched against the master's pillar cache; see a minion's value with `brine run <id> pillar.get <key>`.",
  pillar_exact: "--pillar-exact takes pillar_key:value, compared exactly with the master's pillar cache; see a minion's value with `brine run <id> pillar.get <key>`.",
  ipcidr: '-S takes one IP address or network in CIDR form (10.0.0.0/8, 2001:db8::/32), matched against the ipv4/ipv6 grains.',
  compound:
    "-C takes terms joined by and, or, not and parentheses: a bare word is a glob on the ID; G@grain:glob, P@grain:regex, I@pillar:glob, J@pillar:regex, E@regex, L@id1,id2, S@cidr, N@nodegroup (e.g. 'G@os:Debian and web* or L@db1,db2').",
  nodegroup: "-N takes the name of a nodegroup in the master's nodegroups option; list them with `brine config show --role master`.",
};

/** The fix line for a TARGET_INVALID or NO_MINIONS_MATCHED on a target of this type. */
export function targetFix(tgtType: TargetType): string {
  return FIXES[tgtType];
}
