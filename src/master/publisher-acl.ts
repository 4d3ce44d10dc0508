// Who may do what through the master's control socket (Salt's publisher_acl). Pure: the peer's
// account comes from the kernel (SO_PEERCRED) and /etc, the decision is returned, and the control
// server is the one place that logs and answers it (style.md #13).

import { checkAcl, entriesFor, regexMatchesWhole, type AclEntry } from '../auth/index.js';
import type { ControlRequest, PublishRequest } from '../protocol/index.js';
import { BrineError } from '../util/errors.js';
import { globMatch } from '../util/glob.js';
import type { LocalAccount } from '../util/local-account.js';

export interface PublisherPolicy {
  /** publisher_acl: user (or 'group%') -> ACL entries, keys may be globs. */
  acl: Record<string, readonly AclEntry[]>;
  /** publisher_acl_blacklist: users who may not publish, functions nobody under the ACL may run. */
  blacklist: { users: readonly string[]; modules: readonly string[] };
}

/** `within`: the publish may run only on these minions (a target-restricted user's, threats.md #43). */
export type ControlDecision =
  | { allowed: true; privileged: boolean; within?: string[] }
  | { allowed: false; code: 'PUBLISH_DENIED' | 'CONTROL_DENIED' | 'PILLAR_OVERRIDE_DENIED'; reason: string; fix: string };

/** Expected minions of a target (the master's matchTarget over accepted keys). */
export type MinionsOf = (tgt: string | string[], tgtType: string, within?: ReadonlySet<string>) => string[];

const OPERATION_NAMES: Record<Exclude<ControlRequest['t'], 'publish'>, string> = {
  sessions: 'list minion sessions (brine minions)',
  events: 'follow the event stream (brine events)',
  keys_changed: 'tell the master the key store changed (brine key)',
  match: 'match targets against accepted minions (brine api)',
  active_jids: 'list the active jobs (brine api)',
  emit_hook: 'emit an API hook event (brine api)',
  fire_event: "fire an event on the master's bus (brine event send, brine api)",
  metrics: "read the master's metrics (brine api)",
  fileserver_update: 'update the fileserver backends (brine fileserver update)',
  git_pillar_update: 'fetch the git_pillar remotes (brine git-pillar update)',
  runner: 'run runner functions (brine runner)',
  reactions: "list the reactor's recent reactions (brine api)",
};

/**
 * Salt's expr_match: the pattern equals the text, or matches it as a shell glob, or as a
 * regular expression over the whole text. An invalid regular expression matches nothing.
 */
export function exprMatch(text: string, pattern: string): boolean {
  if (text === pattern || globMatch(pattern, text)) return true;
  // the ACL's cached whole-text regex, on the linear-time engine: the text is the caller's
  return regexMatchesWhole(pattern, text);
}

/** The target as one printable string, for messages and the denial log line. */
export function describeTarget(req: PublishRequest): string {
  return Array.isArray(req.tgt) ? req.tgt.join(',') : req.tgt;
}

/**
 * May `peer` make this control request? Root and the master's own user may do everything;
 * anyone else may only publish, and only what publisher_acl allows (minus the blacklist).
 * `minionsOf` may throw TARGET_INVALID (a malformed target), which the caller reports as such.
 */
export function decideControl(policy: PublisherPolicy, peer: LocalAccount, masterUid: number, req: ControlRequest, minionsOf: MinionsOf): ControlDecision {
  if (peer.uid === 0 || peer.uid === masterUid) return { allowed: true, privileged: true };
  const askAdmin = `ask the master's administrator to run it for you, or to add what you need to publisher_acl for '${peer.name}' or one of its groups (${peer.groups.map((g) => `'${g}%'`).join(', ') || 'none'})`;
  if (req.t !== 'publish') {
    return {
      allowed: false,
      code: 'CONTROL_DENIED',
      reason: `only root and the master's user may ${OPERATION_NAMES[req.t]}; publisher_acl lets other users publish jobs only`,
      fix: `run it as root or as the master's user`,
    };
  }
  if (policy.blacklist.users.some((p) => exprMatch(peer.name, p))) {
    return { allowed: false, code: 'PUBLISH_DENIED', reason: `user '${peer.name}' is in publisher_acl_blacklist`, fix: "ask the master's administrator (the blacklist overrides publisher_acl)" };
  }
  if (policy.blacklist.modules.some((p) => exprMatch(req.fun, p))) {
    return {
      allowed: false,
      code: 'PUBLISH_DENIED',
      reason: `${req.fun} is in publisher_acl_blacklist (modules)`,
      fix: "ask the master's administrator to run it (the blacklist overrides publisher_acl)",
    };
  }
  const entries = entriesFor(policy.acl, peer.name, peer.groups);
  if (entries.length === 0) {
    return { allowed: false, code: 'PUBLISH_DENIED', reason: `publisher_acl has no entry for user '${peer.name}' or its groups`, fix: askAdmin };
  }
  const decision = checkAcl(entries, { client: 'local', fun: req.fun, tgt: req.tgt, tgtType: req.tgtType, arg: req.arg, kwarg: req.kwarg }, minionsOf);
  if (decision.allowed) return { allowed: true, privileged: false, ...(decision.within ? { within: decision.within } : {}) };
  if (decision.code === 'PILLAR_OVERRIDE_DENIED') {
    return {
      allowed: false,
      code: decision.code,
      reason: `publisher_acl does not let '${peer.name}' pass pillar=: ${decision.reason}`,
      fix: `run it without pillar=, or ${askAdmin} (the entry '@pillar_override')`,
    };
  }
  return { allowed: false, code: 'PUBLISH_DENIED', reason: `publisher_acl does not let '${peer.name}' run ${req.fun} on '${describeTarget(req)}': ${decision.reason}`, fix: askAdmin };
}

function stringList(value: unknown, what: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new BrineError('CONFIG_TYPE', `${what} must be a list of strings`);
  return value as string[];
}

/** The policy from the master's options; throws CONFIG_TYPE for a shape Salt would not accept. */
export function publisherPolicy(opts: { publisher_acl: Record<string, unknown>; publisher_acl_blacklist: Record<string, unknown> }): PublisherPolicy {
  const acl: Record<string, readonly AclEntry[]> = {};
  for (const [who, entries] of Object.entries(opts.publisher_acl)) {
    if (!Array.isArray(entries) || entries.some((e) => typeof e !== 'string' && (typeof e !== 'object' || e === null || Array.isArray(e)))) {
      throw new BrineError('CONFIG_TYPE', `publisher_acl: the entry for '${who}' must be a list of functions ('test.*') or target mappings ({'web*': ['test.*']})`);
    }
    acl[who] = entries as AclEntry[];
  }
  const unknown = Object.keys(opts.publisher_acl_blacklist).filter((k) => k !== 'users' && k !== 'modules');
  if (unknown.length > 0) throw new BrineError('CONFIG_VALUE', `publisher_acl_blacklist accepts only 'users' and 'modules', not ${unknown.map((k) => `'${k}'`).join(', ')}`);
  return {
    acl,
    blacklist: {
      users: stringList(opts.publisher_acl_blacklist.users, 'publisher_acl_blacklist.users'),
      modules: stringList(opts.publisher_acl_blacklist.modules, 'publisher_acl_blacklist.modules'),
    },
  };
}
