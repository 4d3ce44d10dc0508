// Salt's ACL check (salt/utils/minions.py auth_check and spec_check), pure: the entries of
// external_auth and publisher_acl, who they apply to, and whether one request is allowed.
// Differences from Salt, all in the direction of refusing: a target that matches zero minions
// is never allowed under a target-restricted entry (CVE-2022-22941, threats.md #20); function
// name patterns and argument rules must match the whole text (Salt's re.match lets 'cmd.run'
// allow 'cmd.run_all' and '^ls' allow 'ls /x; id', threats.md #47); function names inside the
// arguments of functions that call other functions are checked too (CVE-2013-4435, #21); a
// target-restricted user's target is evaluated only inside the minions it may use, so
// allow/deny says nothing about other minions' grains or pillar (#43); a `pillar=` override
// needs '@pillar_override' (#45).

import { globMatch } from '../util/glob.js';
import { argsCheck, funCheck, funMatches, hasArgRuleFor, isArgRule, isPlainObject } from './acl-patterns.js';
import { NESTED, type Call } from './acl-nested.js';
import { decideTarget, intersectScopes, unionScopes, type MinionsOf, type Scope } from './acl-scope.js';
import { carriesPillarOverride, PILLAR_OVERRIDE, pillarOverrideGrants } from './pillar-override.js';

export { funMatches } from './acl-patterns.js';
export type { MinionsOf } from './acl-scope.js';

/** One ACL entry as Salt writes it: 'test.*', '@runner', '@wheel', '@jobs', 'manage.*' (runner fun
 *  names are allowed under @runner-style entries too: Salt form '@runner': ['jobs.*'] ),
 *  {'web*': ['test.*', 'cmd.run']} (target-restricted, target is a glob or compound 'G@os:Debian'),
 *  {'cmd.run': {args: ['ls /srv/[a-z]+'], kwargs: {cwd: '/tmp'}}} (argument rules, whole-text
 *  regexes), '@pillar_override' (may pass pillar=, alone or in a target-restricted list). */
export type AclEntry = string | Record<string, unknown>;

export interface AclRequest {
  client: 'local' | 'runner' | 'wheel';
  fun: string;
  tgt?: string | string[];
  tgtType?: string;
  arg?: unknown[];
  kwarg?: Record<string, unknown>;
}

/**
 * `within`: the request may run only on these minions (the user's, for a target-restricted
 * user); the publisher evaluates the target among them alone. Absent: anywhere the target says.
 * `code`: a refusal with its own error code (a `pillar=` override without the grant).
 */
export type AclDecision = { allowed: true; within?: string[] } | { allowed: false; reason: string; code?: 'PILLAR_OVERRIDE_DENIED' };

const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

/** A user-name key matches exactly or as a glob (Salt's expr_match, glob part). */
function userKeyMatches(key: string, user: string): boolean {
  return key === user || globMatch(key, user);
}

/** The entries that apply to `user`: its own key, every 'group%' key for its groups, and '*'.
 *  Keys may be globs as in Salt (publisher_acl and external_auth user names). */
export function entriesFor(table: Record<string, readonly AclEntry[]>, user: string, groups: readonly string[]): AclEntry[] {
  const out: AclEntry[] = [];
  if (user === '') return out;
  for (const key of Object.keys(table)) {
    if (!hasOwn(table, key)) continue;
    const entries = table[key];
    if (!Array.isArray(entries)) continue;
    if (key.endsWith('%')) {
      if (groups.includes(key.slice(0, -1))) out.push(...entries);
    } else if (userKeyMatches(key, user)) {
      out.push(...entries);
    }
  }
  return out;
}

/** Where the entries let `call` run: 'all' (an unrestricted or argument-rule entry), the union
 *  of the minions every target-restricted entry allowing it matches, or undefined (nowhere). */
function localCallScope(entries: readonly AclEntry[], call: Call, minionsOf: MinionsOf): Scope | undefined {
  let scope: Scope | undefined;
  for (const entry of entries) {
    if (typeof entry === 'string') {
      if (!entry.startsWith('@') && funMatches(entry, call.fun)) return 'all';
      continue;
    }
    if (!isPlainObject(entry)) continue;
    const keys = Object.keys(entry);
    if (keys.length !== 1) continue; // Salt: invalid entry, ignored
    const key = keys[0]!;
    if (key.startsWith('@')) continue; // runner/wheel entries never allow a minion function
    const value = entry[key];
    if (isArgRule(value)) {
      if (funMatches(key, call.fun) && argsCheck(value, call.args, call.kwargs)) return 'all';
      continue;
    }
    if (funCheck(value, call.fun, call.args, call.kwargs)) scope = unionScopes(scope, new Set(minionsOf(key, 'compound')));
  }
  return scope;
}

/** Where the entries grant '@pillar_override' (for runner and wheel calls only the unrestricted form counts). */
function pillarOverrideScope(entries: readonly AclEntry[], client: AclRequest['client'], minionsOf: MinionsOf): Scope | undefined {
  const grants = pillarOverrideGrants(entries);
  if (grants.everywhere) return 'all';
  if (client !== 'local' || grants.targets.length === 0) return undefined;
  return new Set(grants.targets.flatMap((t) => minionsOf(t, 'compound')));
}

/** Salt's spec_check for runner and wheel: '@runner'/'@runners'/'@wheel', '@<module>' ('@jobs'),
 *  and {'@runner': ['jobs.*']} / {'@jobs': ['list_jobs']} lists. */
function specCallAllowed(entries: readonly AclEntry[], form: 'runner' | 'wheel', call: Call): boolean {
  const comps = call.fun.split('.');
  if (comps.length !== 2 || comps[0] === '' || comps[1] === '') return false;
  const [mod, name] = comps as [string, string];
  const formMatch = (x: string) => x === form || x === `${form}s`;
  for (const entry of entries) {
    if (typeof entry === 'string') {
      if (entry.startsWith('@') && (entry.slice(1) === mod || formMatch(entry.slice(1)))) return true;
      continue;
    }
    if (!isPlainObject(entry)) continue;
    const keys = Object.keys(entry);
    if (keys.length !== 1) continue;
    const key = keys[0]!;
    if (!key.startsWith('@')) continue;
    const what = key.slice(1);
    if (what === mod && funCheck(entry[key], name, call.args, call.kwargs)) return true;
    if (formMatch(what) && funCheck(entry[key], call.fun, call.args, call.kwargs)) return true;
  }
  return false;
}

/** Salt's compound commands: 'test.ping,cmd.run' with one argument list per function. */
function splitCalls(req: AclRequest): Call[] | undefined {
  const kwargs = isPlainObject(req.kwarg) ? req.kwarg : {};
  const args = Array.isArray(req.arg) ? req.arg : [];
  if (!req.fun.includes(',')) return [{ fun: req.fun, args, kwargs }];
  const funs = req.fun.split(',');
  if (funs.some((f) => f === '')) return undefined;
  return funs.map((fun, i) => {
    const a = args[i];
    return { fun, args: Array.isArray(a) ? a : [], kwargs: {} };
  });
}

/** Salt's auth_check: allowed only if some entry permits fun (and its args) for every function
 *  of the request, including those named in its arguments (threats.md #21). Target-restricted
 *  entries give a scope (the minions their targets match); the request's target is then judged
 *  by `decideTarget` and runs only inside it. `minionsOf` returns the accepted minions a target
 *  matches (the master's matchTarget). Zero minions is NOT "all" (threats.md #20). */
export function checkAcl(entries: readonly AclEntry[], req: AclRequest, minionsOf: MinionsOf): AclDecision {
  if (typeof req.fun !== 'string' || req.fun === '') return { allowed: false, reason: 'no function named' };
  if (entries.length === 0) return { allowed: false, reason: 'no ACL entry applies to this user' };
  const calls = splitCalls(req);
  if (!calls) return { allowed: false, reason: `malformed compound function list '${req.fun}'` };
  // a compound command ('test.ping,state.apply') publishes the request's kwargs with it too
  const requestOverride = carriesPillarOverride({ args: [], kwargs: isPlainObject(req.kwarg) ? req.kwarg : {} }, false);
  let scope: Scope = 'all';
  const seen = new Set<string>();
  const queue: Array<{ client: AclRequest['client']; call: Call; nestedIn?: string }> = calls.map((call) => ({ client: req.client, call }));
  while (queue.length > 0) {
    const { client, call, nestedIn } = queue.shift()!;
    const where = nestedIn ? ` (named in the arguments of ${nestedIn})` : '';
    const key = `${client}:${call.fun}:${JSON.stringify(call.args)}:${JSON.stringify(call.kwargs)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > 64) return { allowed: false, reason: 'too many nested function calls in the arguments' };
    if (client === 'local') {
      const callScope = localCallScope(entries, call, minionsOf);
      if (callScope === undefined) {
        const rules = hasArgRuleFor(entries, call.fun) ? ' with these arguments (each argument rule must match the whole argument)' : '';
        return { allowed: false, reason: `'${call.fun}'${where} is not allowed${rules}` };
      }
      scope = intersectScopes(scope, callScope);
    } else if (!specCallAllowed(entries, client, call)) {
      if (call.fun.split('.').length !== 2) return { allowed: false, reason: `'${call.fun}' is not a <module>.<function> name` };
      return { allowed: false, reason: `${client} function '${call.fun}'${where} is not allowed` };
    }
    const nested = NESTED.get(call.fun);
    if (carriesPillarOverride(call, nested !== undefined) || (requestOverride && nestedIn === undefined)) {
      const granted = pillarOverrideScope(entries, client, minionsOf);
      if (granted === undefined) {
        return { allowed: false, code: 'PILLAR_OVERRIDE_DENIED', reason: `a pillar= override on ${call.fun}${where} needs its own grant, '${PILLAR_OVERRIDE}', which no entry of this user has` };
      }
      scope = intersectScopes(scope, granted);
    }
    if (!nested) continue;
    for (const r of nested(call)) {
      if ('invalid' in r) return { allowed: false, reason: `${call.fun}: ${r.invalid}` };
      queue.push({ client: r.client, call: { fun: r.fun, args: [], kwargs: {} }, nestedIn: call.fun });
    }
  }
  if (req.client !== 'local' || scope === 'all') return { allowed: true };
  return decideTarget(req.tgt ?? '', req.tgtType ?? 'glob', scope, minionsOf, req.fun);
}
