// The control socket's access settings from the master's options: sock_group (who can connect),
// publisher_acl and its blacklist (what they may run), and how to see accounts and targets.
// A bad setting stops start-up with a coded error before the socket exists.

import * as path from 'node:path';
import type { MasterOptions } from '../config/index.js';
import { TARGET_TYPES, type TargetType } from '../protocol/index.js';
import { matchTarget, type MatchOptions } from '../targeting/index.js';
import { unsearchableByGroup } from '../transport/index.js';
import { BrineError } from '../util/errors.js';
import { lookupGroupId, readLocalAccount } from '../util/local-account.js';
import type { Logger } from '../util/logger.js';
import type { ControlAccess } from './control-server.js';
import { publisherPolicy } from './publisher-acl.js';

export interface ControlAccessDeps {
  logger: Logger;
  acceptedIds(): string[];
  targeting: Pick<MatchOptions, 'grains' | 'pillar' | 'dataCache' | 'nodegroups'>;
}

function isTargetType(t: string): t is TargetType {
  return (TARGET_TYPES as readonly string[]).includes(t);
}

/** sock_group's gid, or undefined when it is empty; CONFIG_VALUE for a group /etc/group lacks. */
export function sockGroupId(opts: Pick<MasterOptions, 'sock_group'>): number | undefined {
  if (opts.sock_group === '') return undefined;
  const gid = lookupGroupId(opts.sock_group);
  if (gid === undefined) {
    throw new BrineError('CONFIG_VALUE', `sock_group '${opts.sock_group}' is not a group in /etc/group; create it (groupadd ${opts.sock_group}) or set sock_group to an existing group`, {
      details: { option: 'sock_group' },
    });
  }
  return gid;
}

export function controlAccess(opts: MasterOptions, deps: ControlAccessDeps): ControlAccess {
  const policy = publisherPolicy(opts);
  const group = sockGroupId(opts);
  if (group !== undefined) {
    const blocked = unsearchableByGroup(opts.sock_dir, group);
    if (blocked.length > 0) {
      deps.logger.warn(
        { dirs: blocked, sock_group: opts.sock_group },
        `sock_group ${opts.sock_group} is set, but its members cannot search ${blocked.join(', ')} above sock_dir ${path.resolve(opts.sock_dir)}, so they cannot reach the control socket; run chmod o+x ${blocked.join(' ')} (or give those directories group ${opts.sock_group} and g+x)`,
      );
    }
  } else if (Object.keys(policy.acl).length > 0) {
    deps.logger.warn({}, 'publisher_acl is set but sock_group is not, so only root and the master user can reach the control socket; set sock_group to the group whose members publisher_acl names');
  }
  return {
    policy,
    ...(group === undefined ? {} : { group }),
    masterUid: () => process.getuid?.() ?? 0,
    account: (uid, gid) => readLocalAccount(uid, gid),
    minionsOf: (tgt, tgtType, delimiter, within) => {
      if (!isTargetType(tgtType)) throw new BrineError('TARGET_INVALID', `unknown target type '${tgtType}' in a publisher_acl entry`);
      const ids = within === undefined ? deps.acceptedIds() : deps.acceptedIds().filter((id) => within.has(id));
      return matchTarget(tgt, tgtType, ids, { ...deps.targeting, ...(delimiter ? { delimiter } : {}) }).matched;
    },
  };
}
