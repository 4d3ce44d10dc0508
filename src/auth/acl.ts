// Salt's ACL check (salt/utils/minions.py auth_check and spec_check), pure: the entries of
// external_auth and publisher_acl, who they apply to, and whether one request is allowed.
// Differences from Salt, all in the direction of refusing: a target that matches zero minions
// is never allowed under a target-restricted entry (CVE-2022-22941, threats.md #20); function
// name patterns must match the whole name (Salt's re.match lets 'cmd.run' allow 'cmd.run_all');
// function names inside the arguments of functions that call other functions are checked too
// (CVE-2013-4435, threats.md #21).

import { globMatch } from '../util/glob.js';

/** One ACL entry as Salt writes it: 'test.*', '@runner', '@wheel', '@jobs', 'manage.*' (runner fun
 *  names are allowed under @runner-style entries too: Salt form '@runner': ['jobs.*'] ),
 *  {'web*': ['test.*', 'cmd.run']} (target-restricted, target is a glob or compound 'G@os:Debian'),
 *  {'cmd.run': {args: ['^ls'], kwargs: {cwd: '/tmp'}}} (argument restrictions, regexes as Salt). */
export type AclEntry = string | Record<string, unknown>;

export interface AclRequest {
  client: 'local' | 'runner' | 'wheel';
  fun: string;
  tgt?: string | string[];
  tgtType?: string;
  arg?: unknown[];
  kwarg?: Record<string, unknown>;
}

export type AclDecision = { allowed: true } | { allowed: false; reason: string };

export type MinionsOf = (tgt: string | string[], tgtType: string) => string[];

const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

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

const regexCache = new Map<string, RegExp | null>();

/** Compiles a Salt ACL regex anchored at the start (re.match) and, when `whole`, at the end too.
 *  A pattern that is not a valid regex ('*') is read as a glob. */
function compile(pattern: string, whole: boolean): RegExp | null {
  const key = `${whole ? 'w' : 'p'}:${pattern}`;
  const cached = regexCache.get(key);
  if (cached !== undefined) return cached;
  let re: RegExp | null;
  try {
    re = new RegExp(whole ? `^(?:${pattern})$` : `^(?:${pattern})`, 's');
  } catch {
    re = null;
  }
  if (regexCache.size > 4096) regexCache.clear();
  regexCache.set(key, re);
  return re;
}

/** A function-name pattern against a function name: whole-name regex, or a glob if not a regex. */
export function funMatches(pattern: string, fun: string): boolean {
  const re = compile(pattern, true);
  if (re) return re.test(fun);
  return globMatch(pattern, fun);
}

/** An argument pattern against str(arg): Salt's re.match (anchored at the start only). */
function argMatches(pattern: unknown, value: unknown): boolean {
  if (pattern === null || pattern === undefined) return true; // None means any value, as in Salt
  const re = compile(String(pattern), false);
  if (!re) return false; // an invalid argument regex allows nothing
  return re.test(pyStr(value));
}

/** Python's str() for the values JSON can carry, which is what Salt matches arguments against. */
function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** Salt's __args_check: one {args, kwargs} condition or a list of them; one must hold. */
function argsCheck(valid: unknown, args: readonly unknown[], kwargs: Record<string, unknown>): boolean {
  const conds = Array.isArray(valid) ? valid : [valid];
  for (const cond of conds) {
    if (!isPlainObject(cond)) continue;
    const condArgs = cond.args ?? [];
    const condKwargs = cond.kwargs ?? {};
    if (!Array.isArray(condArgs) || !isPlainObject(condKwargs)) continue;
    let good = true;
    for (let i = 0; i < condArgs.length && good; i++) {
      if (i >= args.length) good = condArgs[i] === null;
      else good = argMatches(condArgs[i], args[i]);
    }
    for (const k of Object.keys(condKwargs)) {
      if (!good) break;
      if (!hasOwn(kwargs, k)) good = false;
      else good = argMatches(condKwargs[k], kwargs[k]);
    }
    if (good) return true;
  }
  return false;
}

/** Salt's __fun_check: a list of function patterns, each a string or {pattern: argument rules}. */
function funCheck(valid: unknown, fun: string, args: readonly unknown[], kwargs: Record<string, unknown>): boolean {
  const conds = Array.isArray(valid) ? valid : [valid];
  for (const cond of conds) {
    if (typeof cond === 'string') {
      if (!cond.startsWith('@') && funMatches(cond, fun)) return true;
    } else if (isPlainObject(cond)) {
      const keys = Object.keys(cond);
      if (keys.length !== 1) continue;
      const pattern = keys[0]!;
      if (funMatches(pattern, fun) && argsCheck(cond[pattern], args, kwargs)) return true;
    }
  }
  return false;
}

/** An entry {'cmd.run': {args, kwargs}} (value a mapping) restricts arguments on every minion;
 *  an entry {'web*': [...]} (value a list or a string) restricts the target. */
export function isArgRule(value: unknown): boolean {
  return isPlainObject(value) || (Array.isArray(value) && value.length > 0 && value.every(isPlainObject) && value.every((v) => 'args' in v || 'kwargs' in v));
}

interface Call {
  fun: string;
  args: readonly unknown[];
  kwargs: Record<string, unknown>;
}

interface LocalContext {
  tgt: string | string[];
  tgtType: string;
  minionsOf: MinionsOf;
  expected?: string[];
}

function expectedMinions(ctx: LocalContext): string[] {
  if (!ctx.expected) ctx.expected = ctx.minionsOf(ctx.tgt, ctx.tgtType);
  return ctx.expected;
}

/** Salt's validate_tgt, without its zero-minion hole: every expected minion is one the entry's
 *  target (a compound expression) matches, and there is at least one. */
function targetAllowed(entryTarget: string, ctx: LocalContext): boolean {
  const expected = expectedMinions(ctx);
  if (expected.length === 0) return false;
  const allowed = new Set(ctx.minionsOf(entryTarget, 'compound'));
  if (allowed.size === 0) return false;
  return expected.every((m) => allowed.has(m));
}

function localCallAllowed(entries: readonly AclEntry[], call: Call, ctx: LocalContext): boolean {
  for (const entry of entries) {
    if (typeof entry === 'string') {
      if (!entry.startsWith('@') && funMatches(entry, call.fun)) return true;
      continue;
    }
    if (!isPlainObject(entry)) continue;
    const keys = Object.keys(entry);
    if (keys.length !== 1) continue; // Salt: invalid entry, ignored
    const key = keys[0]!;
    if (key.startsWith('@')) continue; // runner/wheel entries never allow a minion function
    const value = entry[key];
    if (isArgRule(value)) {
      if (funMatches(key, call.fun) && argsCheck(value, call.args, call.kwargs)) return true;
      continue;
    }
    if (funCheck(value, call.fun, call.args, call.kwargs) && targetAllowed(key, ctx)) return true;
  }
  return false;
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

type NestedRef = { client: 'local' | 'runner' | 'wheel'; fun: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Functions whose arguments name another function that is then run. Each returns the nested
 *  calls so the ACL is checked for them as well (CVE-2013-4435). */
const NESTED = new Map<string, (call: Call) => Array<NestedRef | { invalid: string }>>([
  ['mine.send', (c) => [local(str(c.kwargs.mine_function) ?? str(c.kwargs.name) ?? str(c.args[0]))]],
  ['schedule.add', (c) => [local(str(c.kwargs.function))]],
  ['schedule.modify', (c) => [local(str(c.kwargs.function))]],
  ['publish.publish', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['publish.full_data', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['publish.runner', (c) => [ref('runner', str(c.kwargs.fun) ?? str(c.args[0]))]],
  ['saltutil.cmd', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['saltutil.cmd_iter', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['saltutil.runner', (c) => [ref('runner', str(c.kwargs.name) ?? str(c.args[0]))]],
  ['saltutil.wheel', (c) => [ref('wheel', str(c.kwargs.name) ?? str(c.args[0]))]],
  ['module.run', (c) => moduleRunRefs(c)],
]);

function ref(client: NestedRef['client'], fun: string | undefined): NestedRef | { invalid: string } {
  return fun === undefined || fun === '' ? { invalid: 'a function name argument is missing or not a string' } : { client, fun };
}

function local(fun: string | undefined): NestedRef | { invalid: string } {
  return ref('local', fun);
}

/** module.run: the old form names the function in `name`/arg 0; the new form has one kwarg per
 *  function ('test.echo': [...]). */
function moduleRunRefs(c: Call): Array<NestedRef | { invalid: string }> {
  const named = str(c.kwargs.name) ?? str(c.args[0]);
  const out: Array<NestedRef | { invalid: string }> = [];
  if (named !== undefined) out.push(local(named));
  for (const k of Object.keys(c.kwargs)) if (k.includes('.')) out.push(local(k));
  if (out.length === 0) out.push({ invalid: 'module.run names no function' });
  return out;
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

/** Salt's auth_check: allowed only if some entry permits fun (and its args); for target-restricted
 *  entries every expected minion of the request must be matched by the entry's target.
 *  `minionsOf` returns the accepted minions a target matches (the master's matchTarget).
 *  Zero expected minions is NOT "all" (threats.md #20). Function names inside args are checked too
 *  where Salt does (threats.md #21). */
export function checkAcl(entries: readonly AclEntry[], req: AclRequest, minionsOf: MinionsOf): AclDecision {
  if (typeof req.fun !== 'string' || req.fun === '') return { allowed: false, reason: 'no function named' };
  if (entries.length === 0) return { allowed: false, reason: 'no ACL entry applies to this user' };
  const calls = splitCalls(req);
  if (!calls) return { allowed: false, reason: `malformed compound function list '${req.fun}'` };
  const ctx: LocalContext = { tgt: req.tgt ?? '', tgtType: req.tgtType ?? 'glob', minionsOf };
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
      if (!localCallAllowed(entries, call, ctx)) {
        if (ctx.expected && ctx.expected.length === 0) return { allowed: false, reason: `target matches no minions, so '${call.fun}' is not allowed under a target-restricted entry` };
        return { allowed: false, reason: `'${call.fun}'${where} is not allowed on these targets` };
      }
    } else if (!specCallAllowed(entries, client, call)) {
      if (call.fun.split('.').length !== 2) return { allowed: false, reason: `'${call.fun}' is not a <module>.<function> name` };
      return { allowed: false, reason: `${client} function '${call.fun}'${where} is not allowed` };
    }
    const nested = NESTED.get(call.fun);
    if (!nested) continue;
    for (const r of nested(call)) {
      if ('invalid' in r) return { allowed: false, reason: `${call.fun}: ${r.invalid}` };
      queue.push({ client: r.client, call: { fun: r.fun, args: [], kwargs: {} }, nestedIn: call.fun });
    }
  }
  return { allowed: true };
}
