// The writing half of the `grains` module (Salt's grains.setval/setvals/set/append/remove/
// delkey/delval): change the minion's grains file, update the running job's grains in place
// (as Salt updates __grains__), and ask the minion to collect its grains again.

import { defineFunction } from './define-function.js';
import { grainsFilePath, readGrainsFile, writeGrainsFile } from './grains-file.js';
import { traverseDictAndList } from './traverse.js';
import type { ExecContext, ModuleFunction } from './types.js';

const MISSING = Symbol('missing');
const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const complex = (v: unknown): boolean => v !== null && typeof v === 'object';
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
/** Python's str() of a value, as Salt's messages print it. */
function py(v: unknown, inner = false): string {
  if (v === null || v === undefined) return 'None';
  if (v === true || v === false) return v ? 'True' : 'False';
  if (typeof v === 'string') return inner ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : v;
  if (Array.isArray(v)) return `[${v.map((x) => py(x, true)).join(', ')}]`;
  if (isMap(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${py(k, true)}: ${py(x, true)}`)
      .join(', ')}}`;
  return String(v);
}

/** A deep copy of a grain's current value (or MISSING). */
function current(ctx: ExecContext, key: string, delimiter: string): unknown {
  const v = traverseDictAndList(ctx.grains() as Record<string, unknown>, key, MISSING, delimiter);
  return v === MISSING ? MISSING : structuredClone(v);
}

/** Salt's setvals: the file and the running grains updated; returns the grains given. */
async function setvals(ctx: ExecContext, values: Record<string, unknown>, destructive: boolean, refreshPillar: boolean): Promise<Record<string, unknown>> {
  const file = grainsFilePath(ctx.config);
  const grains = readGrainsFile(file);
  // The job's grains object is updated in place, so later states of the same run see the change.
  const live = ctx.grains() as Record<string, unknown>;
  for (const [k, v] of Object.entries(values)) {
    if (v === null && destructive) {
      delete grains[k];
      delete live[k];
    } else {
      grains[k] = v;
      live[k] = v;
    }
  }
  writeGrainsFile(file, grains);
  try {
    if (ctx.refreshGrains) await ctx.refreshGrains({ refreshPillar });
    else ctx.syncHost?.call('saltutil.refresh_grains', [], { refresh_pillar: refreshPillar });
  } catch {
    // The file is written; the minion reads it at its next grains refresh or restart.
  }
  return values;
}

interface SetReturn {
  comment: string;
  changes: Record<string, unknown>;
  result: boolean;
}

/** Salt's grains.set: conservative about replacing lists and dicts unless force. */
export async function setGrain(ctx: ExecContext, key: string, val: unknown, o: { force: boolean; destructive: boolean; delimiter: string }): Promise<SetReturn> {
  const ret: SetReturn = { comment: '', changes: {}, result: true };
  const existing = current(ctx, key, o.delimiter);
  if (existing !== MISSING && same(existing, val) && (val !== null || !o.destructive)) return { ...ret, comment: 'Grain is already set' };
  if (existing !== null && existing !== MISSING && !o.force) {
    if (complex(existing)) return { ...ret, result: false, comment: `The key '${key}' exists but is a dict or a list. Use 'force=True' to overwrite.` };
    if (complex(val)) return { ...ret, result: false, comment: `The key '${key}' exists and the given value is a dict or a list. Use 'force=True' to overwrite.` };
  }
  let value: unknown = val;
  let k = key;
  while (k.includes(o.delimiter)) {
    const i = k.lastIndexOf(o.delimiter);
    const rest = k.slice(i + o.delimiter.length);
    k = k.slice(0, i);
    let parent = current(ctx, k, o.delimiter);
    if (parent === MISSING) parent = {};
    if (isMap(parent)) {
      if (value === null && o.destructive) delete parent[rest];
      else parent[rest] = value;
    } else if (Array.isArray(parent)) {
      let updated = false;
      const list: unknown[] = parent;
      list.forEach((item, idx) => {
        if (item === rest) {
          list[idx] = { [rest]: value };
          updated = true;
        } else if (isMap(item) && Object.hasOwn(item, rest)) {
          item[rest] = value;
          updated = true;
        }
      });
      if (!updated) list.push({ [rest]: value });
    } else if (parent === rest || o.force) {
      parent = { [rest]: value };
    } else {
      return { ...ret, result: false, comment: `The key '${k}' value is '${py(parent)}', which is different from the provided key '${rest}'. Use 'force=True' to overwrite.` };
    }
    value = parent;
  }
  return { ...ret, changes: await setvals(ctx, { [k]: value }, o.destructive, true) };
}

/** Rebuilds the top-level grain holding a nested list after it changed (append/remove). */
function nest(ctx: ExecContext, key: string, list: unknown, delimiter: string, missingParent: () => unknown): [string, unknown] {
  let k = key;
  let value = list;
  while (k.includes(delimiter)) {
    const i = k.lastIndexOf(delimiter);
    const rest = k.slice(i + delimiter.length);
    k = k.slice(0, i);
    let parent = current(ctx, k, delimiter);
    if (parent === MISSING) parent = missingParent();
    if (isMap(parent)) parent[rest] = value;
    value = parent;
  }
  return [k, value];
}

const DELIM = { name: 'delimiter', type: 'string', default: ':', doc: 'separates nested keys' } as const;

export const grainsSetFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'grains.setvals',
    doc: "Set several grains in the minion's grains file; returns the grains given.",
    params: [
      { name: 'grains', type: 'map', required: true, doc: '{grain: value}' },
      { name: 'destructive', type: 'bool', default: false, doc: 'a None value deletes the grain' },
      { name: 'refresh_pillar', type: 'bool', default: true, doc: 'also refresh the pillar' },
    ],
    run: (ctx, a) => setvals(ctx, a.named.grains, a.named.destructive, a.named.refresh_pillar),
  }),
  defineFunction({
    name: 'grains.setval',
    doc: "Set one grain in the minion's grains file; returns {key: val}.",
    params: [
      { name: 'key', type: 'string', required: true, doc: 'the grain' },
      { name: 'val', type: 'any', required: true, doc: 'its value' },
      { name: 'destructive', type: 'bool', default: false, doc: 'a None value deletes the grain' },
      { name: 'refresh_pillar', type: 'bool', default: true, doc: 'also refresh the pillar' },
    ],
    run: (ctx, a) => setvals(ctx, { [a.named.key]: a.named.val ?? null }, a.named.destructive, a.named.refresh_pillar),
  }),
  defineFunction({
    name: 'grains.set',
    doc: 'Set a grain, nested keys included; lists and dicts are only replaced with force. Returns {comment, changes, result}.',
    params: [
      { name: 'key', type: 'string', required: true, doc: "the grain, nested keys joined by the delimiter ('a:b')" },
      { name: 'val', type: 'any', default: '', doc: 'its value' },
      { name: 'force', type: 'bool', default: false, doc: 'replace a list or dict, or a value that is not the parent key' },
      { name: 'destructive', type: 'bool', default: false, doc: 'a None value deletes the key' },
      DELIM,
    ],
    run: (ctx, a) => setGrain(ctx, a.named.key, a.named.val ?? null, a.named),
  }),
  defineFunction({
    name: 'grains.append',
    doc: 'Append a value to a list grain (created when missing); returns {key: list}, or a message saying why not.',
    params: [
      { name: 'key', type: 'string', required: true, doc: 'the grain' },
      { name: 'val', type: 'any', required: true, doc: 'the value (a list appends each item)' },
      { name: 'convert', type: 'bool', default: false, doc: 'turn a single value into a list first' },
      DELIM,
    ],
    run: async (ctx, a) => {
      const { key, val, delimiter } = a.named;
      let list = current(ctx, key, delimiter);
      if (list === MISSING) list = [];
      if (a.named.convert && !Array.isArray(list)) list = list === null ? [] : [list];
      if (!Array.isArray(list)) return `The key ${key} is not a valid list`;
      if (list.some((x) => same(x, val))) return `The val ${py(val)} was already in the list ${key}`;
      list.push(...(Array.isArray(val) ? val : [val]));
      const [top, value] = nest(ctx, key, list, delimiter, () => ({}));
      return setvals(ctx, { [top]: value }, false, true);
    },
  }),
  defineFunction({
    name: 'grains.remove',
    doc: 'Remove a value from a list grain; returns {key: list}, or a message saying why not.',
    params: [{ name: 'key', type: 'string', required: true, doc: 'the grain' }, { name: 'val', type: 'any', required: true, doc: 'the value' }, DELIM],
    run: async (ctx, a) => {
      const { key, val, delimiter } = a.named;
      let list = current(ctx, key, delimiter);
      if (list === MISSING) list = [];
      if (!Array.isArray(list)) return `The key ${key} is not a valid list`;
      const i = list.findIndex((x) => same(x, val));
      if (i < 0) return `The val ${py(val)} was not in the list ${key}`;
      list.splice(i, 1);
      const [top, value] = nest(ctx, key, list, delimiter, () => null);
      return setvals(ctx, { [top]: value }, false, true);
    },
  }),
  defineFunction({
    name: 'grains.delval',
    doc: "Set a grain's value to None (destructive=True removes the key).",
    params: [
      { name: 'key', type: 'string', required: true, doc: 'the grain' },
      { name: 'destructive', type: 'bool', default: false, doc: 'remove the key too' },
      { name: 'force', type: 'bool', default: false, doc: 'also a list or dict grain' },
    ],
    run: (ctx, a) => setGrain(ctx, a.named.key, null, { force: a.named.force, destructive: a.named.destructive, delimiter: ':' }),
  }),
  defineFunction({
    name: 'grains.delkey',
    doc: 'Remove a grain completely.',
    params: [
      { name: 'key', type: 'string', required: true, doc: 'the grain' },
      { name: 'force', type: 'bool', default: false, doc: 'also a list or dict grain' },
    ],
    run: (ctx, a) => setGrain(ctx, a.named.key, null, { force: a.named.force, destructive: true, delimiter: ':' }),
  }),
];
