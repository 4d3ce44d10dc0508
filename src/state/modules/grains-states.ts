// grains.present, list_present, list_absent, absent, append, exists: static grains kept in the
// minion's grains file through the grains.set/append/remove functions, with the comments and
// changes of salt/states/grains.py (quirks included: test=True on list_present reports the
// grain's current value as "new").

import { traverseDictAndList } from '../../modules/index.js';
import { pyStr } from '../../targeting/subdict-match.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';

const MISSING = Symbol('missing');
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const has = (list: unknown[], v: unknown): boolean => list.some((x) => same(x, v));

/** The grain now (the job's grains, which the grains.* writers update in place). */
const grain = (ctx: StateContext, name: string, dflt: unknown = MISSING): unknown => traverseDictAndList(ctx.exec.grains() as Record<string, unknown>, name, dflt, ':');
/** Salt rewrites a custom delimiter in the name to ':' first. */
const colon = (name: string, delimiter: string): string => (delimiter === ':' ? name : name.split(delimiter).join(':'));

type SetRet = { comment: string; changes: Record<string, unknown>; result: boolean };

/**
 * grains.set / delval: their {comment, changes, result}, also when result is False (the call
 * then counts as failed, but the return still says why). A None value goes through delval,
 * since a None argument would take set's default.
 */
async function setGrain(ctx: StateContext, name: string, value: unknown, kw: Record<string, unknown>): Promise<SetRet | string> {
  const r = value === null ? await ctx.call('grains.delval', [name], kw) : await ctx.call('grains.set', [name, value], kw);
  const ret = r.return as Partial<SetRet> | undefined;
  if (ret && typeof ret === 'object' && typeof ret.comment === 'string') return { comment: ret.comment, changes: ret.changes ?? {}, result: ret.result === true };
  return r.error?.message ?? String(r.return);
}

const NAME = { name: 'name', type: 'string', required: true, doc: 'the grain (nested keys joined by the delimiter)' } as const;
const DELIM = { name: 'delimiter', type: 'string', default: ':', doc: 'separates nested keys in name' } as const;

async function present(ctx: StateContext, n: { name: string; value: unknown; delimiter: string; force: boolean }): Promise<StateResult> {
  const name = colon(n.name, n.delimiter);
  const value = n.value ?? null;
  const existing = grain(ctx, name);
  if (existing !== MISSING && same(existing, value)) return stateResult(name, true, 'Grain is already set');
  if (ctx.test) {
    return existing === MISSING
      ? stateResult(name, null, `Grain ${name} is set to be added`, { new: name })
      : stateResult(name, null, `Grain ${name} is set to be changed`, { changed: { [name]: value } });
  }
  const r = await setGrain(ctx, name, value, { force: n.force });
  if (typeof r === 'string') return stateResult(name, false, r);
  const ret = { name, ...r };
  if (ret.result === true && Object.keys(ret.changes).length) ret.comment = `Set grain ${name} to ${pyStr(value)}`;
  return { name, result: ret.result, changes: ret.changes, comment: ret.comment };
}

async function listPresent(ctx: StateContext, n: { name: string; value: unknown; delimiter: string }): Promise<StateResult> {
  const name = colon(n.name, n.delimiter);
  const value = n.value;
  const now = grain(ctx, name, '');
  const truthy = !(now === '' || now === null || now === false || now === 0 || (Array.isArray(now) && now.length === 0) || (typeof now === 'object' && now !== null && Object.keys(now).length === 0));
  if (truthy) {
    if (!Array.isArray(now)) return stateResult(name, false, `Grain ${name} is not a valid list`);
    const wanted = Array.isArray(value) ? value : [value];
    if (wanted.every((v) => has(now, v))) return stateResult(name, true, `Value ${pyStr(value)} is already in grain ${name}`);
    if (ctx.test) return stateResult(name, null, `Value ${pyStr(value)} is set to be appended to grain ${name}`, { new: now });
  } else if (ctx.test) {
    return stateResult(name, null, `Grain ${name} is set to be added`, { new: now });
  }
  const r = await callFn<unknown>(ctx, 'grains.append', [name, value]);
  const after = grain(ctx, name, []);
  const wanted = Array.isArray(value) ? value : [value];
  if (!r.ok || !Array.isArray(after) || !wanted.every((v) => has(after, v))) return stateResult(name, false, `Failed append value ${pyStr(value)} to grain ${name}`);
  return stateResult(name, true, `Append value ${pyStr(value)} to grain ${name}`, { new: r.value });
}

async function listAbsent(ctx: StateContext, n: { name: string; value: unknown; delimiter: string }): Promise<StateResult> {
  const name = colon(n.name, n.delimiter);
  const now = grain(ctx, name, null);
  if (now === null || now === '' || now === false || (Array.isArray(now) && now.length === 0)) return stateResult(name, true, `Grain ${name} does not exist`);
  if (!Array.isArray(now)) return stateResult(name, false, `Grain ${name} is not a valid list`);
  let result: boolean | null = true;
  const comments: string[] = [];
  const deleted: unknown[] = [];
  for (const val of Array.isArray(n.value) ? n.value : [n.value]) {
    if (!has(now, val)) {
      comments.push(`Value ${pyStr(val)} is absent from grain ${name}`);
    } else if (ctx.test) {
      result = null;
      comments.push(`Value ${pyStr(val)} in grain ${name} is set to be deleted`);
      deleted.push(val);
    } else {
      await callFn(ctx, 'grains.remove', [name, val]);
      comments.push(`Value ${pyStr(val)} was deleted from grain ${name}`);
      deleted.push(val);
    }
  }
  return stateResult(name, result, comments.join('\n'), deleted.length ? { deleted } : {});
}

async function absent(ctx: StateContext, n: { name: string; destructive: boolean; delimiter: string; force: boolean }): Promise<StateResult> {
  const name = colon(n.name, n.delimiter);
  const now = grain(ctx, name);
  if (now === MISSING) return stateResult(name, true, `Grain ${name} does not exist`);
  if (ctx.test) {
    if (n.destructive) return stateResult(name, null, `Grain ${name} is set to be deleted`, { deleted: name });
    if (now === null) return stateResult(name, null, '');
    return stateResult(name, null, `Value for grain ${name} is set to be deleted (None)`, { grain: name, value: null });
  }
  const r = await setGrain(ctx, name, null, { destructive: n.destructive, force: n.force });
  if (typeof r === 'string') return stateResult(name, false, r);
  if (!r.result) return stateResult(name, false, r.comment, r.changes);
  if (n.destructive) return stateResult(name, true, `Grain ${name} was deleted`, { deleted: name });
  if (now === null) return stateResult(name, true, r.comment, r.changes);
  return stateResult(name, true, `Value for grain ${name} was set to None`, { grain: name, value: null });
}

async function append(ctx: StateContext, n: { name: string; value: unknown; convert: boolean; delimiter: string }): Promise<StateResult> {
  const name = colon(n.name, n.delimiter);
  const now = grain(ctx, name, null);
  const exists = grain(ctx, name) !== MISSING;
  if (!now && !exists) return stateResult(name, false, `Grain ${name} does not exist`);
  const v = pyStr(n.value);
  if (Array.isArray(now)) {
    if (has(now, n.value)) return stateResult(name, true, `Value ${v} is already in the list for grain ${name}`);
    if (ctx.test) return stateResult(name, null, `Value ${v} in grain ${name} is set to be added`, { added: n.value });
    const r = await callFn(ctx, 'grains.append', [name, n.value]);
    if (!r.ok) return stateResult(name, false, r.message);
    return stateResult(name, true, `Value ${v} was added to grain ${name}`, { added: n.value });
  }
  if (!n.convert) return stateResult(name, false, `Grain ${name} is not a valid list`);
  if (ctx.test) return stateResult(name, null, `Grain ${name} is set to be converted to list and value ${v} will be added`, { added: n.value });
  const r = await callFn(ctx, 'grains.setval', [name, [...(now === null ? [] : [now]), n.value]]);
  if (!r.ok) return stateResult(name, false, r.message);
  return stateResult(name, true, `Value ${v} was added to grain ${name}`, { added: n.value });
}

export const grainsStates: readonly StateFunction[] = [
  defineState({
    name: 'grains.present',
    doc: "Make sure a grain has a value (written to the minion's grains file); lists and dicts are only replaced with force.",
    params: [NAME, { name: 'value', type: 'any', required: true, doc: 'the value' }, DELIM, { name: 'force', type: 'bool', default: false, doc: 'replace a list or dict value' }],
    example: 'cheese:\n  grains.present:\n    - value: edam\n\nicinga:Apache SSL:\n  grains.present:\n    - value:\n      - command: check_https',
    run: (ctx, a) => present(ctx, a.named),
  }),
  defineState({
    name: 'grains.list_present',
    doc: 'Make sure a list grain holds a value (or every value of a list); the grain is created when missing.',
    params: [NAME, { name: 'value', type: 'any', required: true, doc: 'a value or a list of values' }, DELIM],
    example: 'roles:\n  grains.list_present:\n    - value:\n      - web\n      - dev',
    run: (ctx, a) => listPresent(ctx, a.named),
  }),
  defineState({
    name: 'grains.list_absent',
    doc: 'Make sure a list grain does not hold a value (or any value of a list).',
    params: [NAME, { name: 'value', type: 'any', required: true, doc: 'a value or a list of values' }, DELIM],
    example: 'roles:\n  grains.list_absent:\n    - value: db',
    run: (ctx, a) => listAbsent(ctx, a.named),
  }),
  defineState({
    name: 'grains.absent',
    doc: "Make sure a grain's value is None, or with destructive that the grain is gone.",
    params: [
      NAME,
      { name: 'destructive', type: 'bool', default: false, doc: 'delete the grain instead of setting it to None' },
      DELIM,
      { name: 'force', type: 'bool', default: false, doc: 'also a list or dict grain' },
    ],
    example: 'old_role:\n  grains.absent:\n    - destructive: True',
    run: (ctx, a) => absent(ctx, a.named),
  }),
  defineState({
    name: 'grains.append',
    doc: 'Append a value to an existing list grain (convert: True turns a single value into a list first).',
    params: [NAME, { name: 'value', type: 'any', required: true, doc: 'the value' }, { name: 'convert', type: 'bool', default: false, doc: 'turn a non-list grain into a list' }, DELIM],
    example: 'roles:\n  grains.append:\n    - value: monitoring',
    run: (ctx, a) => append(ctx, a.named),
  }),
  defineState({
    name: 'grains.exists',
    doc: 'Succeed when the grain exists, fail when it does not.',
    params: [NAME, DELIM],
    example: 'virtual:\n  grains.exists: []',
    run: async (ctx, a) => {
      const name = colon(a.named.name, a.named.delimiter);
      return grain(ctx, name) === MISSING ? stateResult(name, false, 'Grain does not exist') : stateResult(name, true, 'Grain exists');
    },
  }),
];
