// The `pillar` module: read this minion's pillar as its master (or, masterless, its own
// pillar_roots) rendered it; and saltutil.refresh_pillar to get it again. A render that failed
// shows under `_errors`, next to the last good pillar, as Salt's pillar.items does.

import { BrineError } from '../util/errors.js';
import { copyData, mergePillar, mergeRecurse, type PillarData } from '../util/dict-merge.js';
import { defineFunction } from './define-function.js';
import { traverseDictAndList } from './traverse.js';
import type { ExecContext, ModuleFunction } from './types.js';

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

const MISSING = Symbol('missing');

function pillarOf(ctx: ExecContext): PillarData {
  return (ctx.pillar?.() ?? {}) as PillarData;
}

/**
 * The `pillar=` override of one call (pillar.items, state.apply): a mapping, or its JSON text;
 * merged over the minion's pillar as Salt merges pillar_override.
 */
export function pillarWithOverride(ctx: ExecContext, override: unknown): PillarData {
  const base = pillarOf(ctx);
  if (override === undefined || override === null || override === '') return base;
  let data = override;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      // falls through to the mapping check
    }
  }
  if (!isMapping(data)) {
    throw new BrineError(
      'BAD_ARGUMENTS',
      `pillar= must be a dictionary, e.g. pillar='{"key": "value"}', got ${typeof override === 'string' ? JSON.stringify(override.slice(0, 80)) : typeof override}`,
    );
  }
  const strategy = ctx.config.pillar_source_merging_strategy === 'overwrite' ? 'overwrite' : 'recurse';
  return mergePillar(base, data, strategy, ctx.config.pillar_merge_lists === true);
}

const ITEMS_PARAMS = [
  { name: 'pillar', type: 'any', keywordOnly: true, doc: 'a dictionary merged over the pillar for this call' },
  { name: 'pillarenv', type: 'string', keywordOnly: true, doc: 'render the pillar from this pillar_roots environment only, for this call' },
] as const;

/** pillar.items (and pillar.obfuscate, which is Salt's items() obfuscated). */
async function pillarItems(ctx: ExecContext, named: { pillar?: unknown; pillarenv?: string | undefined }): Promise<unknown> {
  if (named.pillarenv === undefined || named.pillarenv === '') return copyData(pillarWithOverride(ctx, named.pillar));
  if (!ctx.pillarFor) throw new BrineError('EXEC_FAILED', 'pillarenv= needs a pillar source: run it through the minion daemon (brine run), or with brine call --local');
  const fresh = await ctx.pillarFor(named.pillarenv);
  return copyData(pillarWithOverride({ ...ctx, pillar: () => fresh }, named.pillar));
}

/** The Python type name Salt's _obfuscate_inner shows for a leaf of JSON/YAML data. */
function pythonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  // a whole number parsed from YAML 1.0 is indistinguishable from 1 here; Salt says <float> for it
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'bigint') return 'int';
  if (v instanceof Date) return 'datetime';
  return 'object';
}

/** Salt's pillar._obfuscate_inner: mappings keep their keys, lists their length, leaves become '<type>'. */
export function obfuscate(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(obfuscate);
  if (isMapping(v) && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, obfuscate(x)]));
  return `<${pythonTypeName(v)}>`;
}

export const pillarFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'pillar.get',
    doc: "One pillar value, nested keys joined by the delimiter ('apache:user'); the default when missing. merge=True merges a dict or list default with the value.",
    params: [
      { name: 'key', type: 'string', required: true, doc: "the key, nested with ':' (e.g. 'users:alice:uid')" },
      { name: 'default', type: 'any', default: '', doc: 'returned when the key is missing' },
      { name: 'merge', type: 'bool', default: false, doc: 'merge a dict or list default with the value found' },
      { name: 'merge_nested_lists', type: 'bool', doc: 'with merge: extend nested lists (default: pillar_merge_lists)' },
      { name: 'delimiter', type: 'string', default: ':', doc: 'separates nested keys' },
    ],
    run: (ctx, { named }) => {
      const pillar = pillarOf(ctx);
      const dflt = named.default;
      if (named.merge === true) {
        const mergeLists = typeof named.merge_nested_lists === 'boolean' ? named.merge_nested_lists : ctx.config.pillar_merge_lists === true;
        if (isMapping(dflt)) {
          const found = traverseDictAndList(pillar, named.key, {}, named.delimiter);
          if (isMapping(found)) return mergeRecurse(dflt, found, mergeLists);
        } else if (Array.isArray(dflt)) {
          const found = traverseDictAndList(pillar, named.key, [], named.delimiter);
          if (Array.isArray(found)) {
            const out = copyData(dflt);
            for (const x of found) if (!out.some((y) => JSON.stringify(y) === JSON.stringify(x))) out.push(copyData(x));
            return out;
          }
        } else {
          throw new BrineError('BAD_ARGUMENTS', 'pillar.get: with merge=True the default must be a dictionary or a list');
        }
      }
      return copyData(traverseDictAndList(pillar, named.key, dflt, named.delimiter));
    },
  }),
  defineFunction({
    name: 'pillar.items',
    doc: "The whole pillar (with _errors when the last render failed); pillar='{...}' merges an override over it for this call; pillarenv=dev renders it from that pillar environment only (asked of the master, not stored).",
    params: ITEMS_PARAMS,
    varargs: true,
    run: (ctx, { named }) => pillarItems(ctx, named),
  }),
  defineFunction({
    name: 'pillar.obfuscate',
    doc: "pillar.items with every value replaced by its Python type name ('<str>', '<int>', '<bool>', '<NoneType>'); keys and the nesting of dictionaries and lists are kept.",
    params: ITEMS_PARAMS,
    varargs: true,
    run: async (ctx, { named }) => obfuscate(await pillarItems(ctx, named)),
  }),
  defineFunction({
    name: 'pillar.item',
    doc: 'The named pillar keys as {key: value}; missing ones get the default.',
    params: [
      { name: 'default', type: 'any', default: '', keywordOnly: true, doc: 'value for missing keys' },
      { name: 'delimiter', type: 'string', default: ':', keywordOnly: true, doc: 'separates nested keys' },
    ],
    varargs: true,
    run: (ctx, a) => {
      const pillar = pillarOf(ctx);
      return Object.fromEntries(a.rest.map((k) => [String(k), copyData(traverseDictAndList(pillar, String(k), a.named.default, a.named.delimiter))]));
    },
  }),
  defineFunction({
    name: 'pillar.raw',
    doc: "The pillar as this minion holds it in memory, or one top-level key's value ({} when missing).",
    params: [{ name: 'key', type: 'string', doc: 'a top-level key' }],
    run: (ctx, { named }) => {
      const pillar = pillarOf(ctx);
      if (named.key === undefined) return copyData(pillar);
      return copyData(Object.hasOwn(pillar, named.key) ? pillar[named.key] : {});
    },
  }),
  defineFunction({
    name: 'pillar.ls',
    doc: 'The top-level pillar keys.',
    params: [],
    varargs: true,
    run: (ctx) => Object.keys(pillarOf(ctx)),
  }),
  defineFunction({
    name: 'pillar.keys',
    doc: "The keys of the dictionary at a pillar key ('users'); an error when missing or not a dictionary.",
    params: [
      { name: 'key', type: 'string', required: true, doc: "the key, nested with ':'" },
      { name: 'delimiter', type: 'string', default: ':', doc: 'separates nested keys' },
    ],
    run: (ctx, { named }) => {
      const v = traverseDictAndList(pillarOf(ctx), named.key, MISSING, named.delimiter);
      if (v === MISSING) throw new BrineError('EXEC_FAILED', `Pillar key not found: ${named.key}`);
      if (!isMapping(v)) throw new BrineError('EXEC_FAILED', `Pillar value in key ${named.key} is not a dict`);
      return Object.keys(v);
    },
  }),
  defineFunction({
    name: 'saltutil.refresh_pillar',
    doc: "Get this minion's pillar again (from the master, or its own pillar_roots when masterless); returns true.",
    params: [
      { name: 'wait', type: 'bool', default: false, keywordOnly: true, doc: 'accepted for Salt compatibility: brine always waits for the new pillar' },
      { name: 'timeout', type: 'number', default: 30, keywordOnly: true, doc: 'accepted for Salt compatibility' },
    ],
    inline: true,
    run: async (ctx) => {
      const refresh = ctx.refreshPillar;
      if (typeof refresh !== 'function') {
        throw new BrineError(
          'EXEC_FAILED',
          'saltutil.refresh_pillar: this process has no pillar source; run it through the minion daemon (brine run, or brine call without --local), or with brine call --local',
        );
      }
      await refresh.call(ctx);
      return true;
    },
  }),
];
