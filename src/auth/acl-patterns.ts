// The patterns inside ACL entries: function names and argument rules. Both match the WHOLE text.
// Salt matches argument rules with re.match (anchored at the start only), so its documented
// {'cmd.run': {args: ['^ls']}} also allows `ls /x; id` (threats.md #47); here a rule must
// describe the entire argument, so what follows the part the operator wrote is refused.

import { compileLinearRegex, type LinearRegex } from '../targeting/index.js';
import { globMatch } from '../util/glob.js';

const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const regexCache = new Map<string, LinearRegex | null>();

/**
 * Compiles an ACL regex anchored at both ends; null when the pattern is not a valid regex. The
 * rules are the operator's, but the arguments they are matched against are the user's, so they
 * run on the same linear-time engine as targets (threats.md #44): a careless rule such as
 * `(a+)+` cannot be driven into minutes of backtracking by a long argument.
 */
function compileWhole(pattern: string): LinearRegex | null {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  // compiled alone first, so an unbalanced `)` cannot close the group wrapped around it
  const alone = compileLinearRegex(pattern);
  const whole = alone.ok ? compileLinearRegex(`(?s:${pattern})$`) : alone;
  const re = whole.ok ? whole.re : null;
  if (regexCache.size > 4096) regexCache.clear();
  regexCache.set(pattern, re);
  return re;
}

/** True when `pattern` is a valid regular expression matching the whole of `text` (compiled once, cached). */
export function regexMatchesWhole(pattern: string, text: string): boolean {
  return compileWhole(pattern)?.matches(text) ?? false;
}

/** A function-name pattern against a function name: whole-name regex, or a glob if not a regex. */
export function funMatches(pattern: string, fun: string): boolean {
  const re = compileWhole(pattern);
  if (re) return re.matches(fun);
  return globMatch(pattern, fun);
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

/** An argument rule against str(arg), over the whole argument. */
function argMatches(pattern: unknown, value: unknown): boolean {
  if (pattern === null || pattern === undefined) return true; // None means any value, as in Salt
  const re = compileWhole(String(pattern));
  if (!re) return false; // an invalid argument regex allows nothing
  return re.matches(pyStr(value));
}

/** Salt's __args_check: one {args, kwargs} condition or a list of them; one must hold. */
export function argsCheck(valid: unknown, args: readonly unknown[], kwargs: Record<string, unknown>): boolean {
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
export function funCheck(valid: unknown, fun: string, args: readonly unknown[], kwargs: Record<string, unknown>): boolean {
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

/** Whether any entry puts argument rules on `fun`, so a refusal can say the rules must match whole arguments. */
export function hasArgRuleFor(entries: readonly unknown[], fun: string): boolean {
  const rules = (value: unknown, pattern: string) => funMatches(pattern, fun) && isArgRule(value);
  for (const entry of entries) {
    if (!isPlainObject(entry)) continue;
    for (const [key, value] of Object.entries(entry)) {
      if (rules(value, key)) return true;
      if (Array.isArray(value)) for (const c of value) if (isPlainObject(c) && Object.entries(c).some(([k, v]) => rules(v, k))) return true;
    }
  }
  return false;
}
