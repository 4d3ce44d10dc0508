// The `mine` module (Salt's salt/modules/mine.py): update, send, get, delete, flush and valid.
// Every function talks to the minion's mine service (ctx.mine), which runs the mine functions
// and reaches the master; so they run inline, awaiting the master without blocking the minion.

import { BrineError } from '../util/errors.js';
import type { ExecContext, MineAccess, MineFunctionSpec, ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

function mineOf(ctx: ExecContext, fun: string): MineAccess {
  if (!ctx.mine) {
    throw new BrineError(
      'MINE_UNAVAILABLE',
      `${fun} needs the minion daemon's session to the master, which keeps the mine; run it with brine run, or brine call without --local (both run it in the daemon)`,
    );
  }
  return ctx.mine;
}

/** Salt accepts a list or a comma-separated string for several names. */
function namesOf(value: unknown, what: string): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (items === undefined || !items.every((x) => typeof x === 'string')) {
    throw new BrineError('BAD_ARGUMENTS', `${what} must be a function name, a comma-separated list of them or a list, got ${JSON.stringify(value)}`);
  }
  const names = items.map((x) => x.trim()).filter((x) => x !== '');
  if (names.length === 0) throw new BrineError('BAD_ARGUMENTS', `${what} names no function`);
  return names;
}

export const mineFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'mine.update',
    doc: 'Run the mine_functions (config and pillar) and send their data to the master; an entry that fails is reported by name and the others are still sent.',
    params: [
      { name: 'clear', type: 'bool', default: false, doc: "replace this minion's whole mine instead of updating the entries" },
      { name: 'mine_functions', type: 'any', doc: 'only these entries (a list or comma-separated names from mine_functions)' },
    ],
    inline: true,
    run: async (ctx, a) => {
      const only = a.named.mine_functions === undefined || a.named.mine_functions === null ? undefined : namesOf(a.named.mine_functions, 'mine.update: mine_functions');
      const report = await mineOf(ctx, 'mine.update').update(only, a.named.clear);
      if (report === undefined) return null;
      if (report.failed.length > 0) {
        const first = report.failed[0]!;
        const all = report.failed.map((f) => `${f.name}: ${f.code}: ${f.message}`).join('; ');
        const sent = report.sent.length > 0 ? `; updated: ${report.sent.join(', ')}` : '; nothing else to update';
        throw new BrineError(first.code, `mine.update: ${report.failed.length} of ${report.failed.length + report.sent.length} mine functions failed (${all})${sent}`);
      }
      return true;
    },
  }),
  defineFunction({
    name: 'mine.send',
    doc: 'Run one function and send its return to the mine under `name` (mine_function= runs another function under that alias; allow_tgt/allow_tgt_type restrict who may read it).',
    params: [{ name: 'name', type: 'string', required: true, doc: 'the mine entry; also the function to run unless mine_function= is given' }],
    varargs: true,
    kwargs: true,
    inline: true,
    run: async (ctx, a) => {
      const kwarg = { ...a.extra };
      const take = (key: string): unknown => {
        const v = kwarg[key];
        delete kwarg[key];
        return v;
      };
      const mineFunction = take('mine_function');
      const allowTgt = take('allow_tgt');
      const allowTgtType = take('allow_tgt_type');
      const fun = mineFunction ?? a.named.name;
      if (typeof fun !== 'string') throw new BrineError('BAD_ARGUMENTS', 'mine.send: mine_function must be a function name');
      const spec: MineFunctionSpec = { name: a.named.name, fun, arg: a.rest, kwarg };
      if (allowTgt !== undefined && allowTgt !== null) {
        if (!(typeof allowTgt === 'string' || (Array.isArray(allowTgt) && allowTgt.every((x) => typeof x === 'string')))) {
          throw new BrineError('BAD_ARGUMENTS', 'mine.send: allow_tgt must be a target expression (a string, or a list for allow_tgt_type=list)');
        }
        spec.allowTgt = allowTgt as string | string[];
        spec.allowTgtType = typeof allowTgtType === 'string' ? allowTgtType : 'glob';
      }
      await mineOf(ctx, 'mine.send').send(spec);
      return true;
    },
  }),
  defineFunction({
    name: 'mine.get',
    doc: 'The mine data of the minions matching tgt for fun ({minion: data}; several functions give {fun: {minion: data}}), answered by the master from its mine.',
    params: [
      { name: 'tgt', type: 'any', required: true, doc: 'target expression (a list for tgt_type=list)' },
      { name: 'fun', type: 'any', required: true, doc: 'the mine entry, or several as a list or comma-separated' },
      { name: 'tgt_type', type: 'string', default: 'glob', doc: 'glob, pcre, list, grain, grain_pcre, ipcidr, compound or nodegroup' },
      { name: 'exclude_minion', type: 'bool', default: false, doc: "leave this minion's own data out" },
    ],
    inline: true,
    run: async (ctx, a) => {
      const tgt = a.named.tgt;
      if (!(typeof tgt === 'string' || (Array.isArray(tgt) && tgt.every((x) => typeof x === 'string')))) {
        throw new BrineError('BAD_ARGUMENTS', 'mine.get: tgt must be a target expression (a string, or a list for tgt_type=list)');
      }
      const multi = Array.isArray(a.named.fun) || (typeof a.named.fun === 'string' && a.named.fun.includes(','));
      const funs = namesOf(a.named.fun, 'mine.get: fun');
      const got = await mineOf(ctx, 'mine.get').get({ tgt: tgt as string | string[], tgtType: a.named.tgt_type, funs });
      if (a.named.exclude_minion) for (const byMinion of Object.values(got)) delete byMinion[ctx.minionId];
      return multi ? got : (got[funs[0]!] ?? {});
    },
  }),
  defineFunction({
    name: 'mine.delete',
    doc: "Remove one entry from this minion's mine on the master.",
    params: [{ name: 'fun', type: 'string', required: true, doc: 'the mine entry (function name or alias)' }],
    inline: true,
    run: async (ctx, a) => {
      await mineOf(ctx, 'mine.delete').delete(a.named.fun);
      return true;
    },
  }),
  defineFunction({
    name: 'mine.flush',
    doc: "Remove this minion's whole mine from the master.",
    params: [],
    inline: true,
    run: async (ctx) => {
      await mineOf(ctx, 'mine.flush').flush();
      return true;
    },
  }),
  defineFunction({
    name: 'mine.valid',
    doc: 'The mine_functions entries (config and pillar) whose function exists, as mine.update would run them.',
    params: [],
    inline: true,
    run: (ctx) => mineOf(ctx, 'mine.valid').valid(),
  }),
];
