// The state.* execution functions: state.apply/sls/highstate/single/sls_id run states,
// state.show_* only compile. A failed state makes the job's retcode 2 (Salt's
// EX_STATE_FAILURE); compile errors are STATE_COMPILE_FAILED with Salt's list of messages.
// One state run at a time per minion is the job runner's business (run-lock.ts).

import { defineFunction, defineParams, pillarWithOverride, withRetcode, type ExecContext, type ModuleFunction, type ModuleRegistry } from '../modules/index.js';
import { BrineError } from '../util/errors.js';
import { compileLow, functionMap } from './compiler/compile.js';
import type { Exclusion, HighId } from './compiler/high-types.js';
import { builtinStateFunctions } from './modules/index.js';
import type { StateReturn } from './runtime/runner.js';
import { highToSalt, lowToSalt } from './show.js';
import { fileClientFiles, type SlsFiles } from './sls-source.js';
import { buildHigh, compileFailed, compileRequest, noTopMatch, runCompiled, showTop, subsetRun, type StateEnv } from './state-run.js';
import { runningMessage, STATE_RUN_FUNCTIONS } from './run-lock.js';
import { findSls } from './sls-source.js';
import { withMinionSaltenv } from './minion-saltenv.js';
import type { StateFunction } from './types.js';

export interface StateFunctionsOptions {
  /** Where SLS files come from; the job's salt:// file client by default. */
  files?: (ctx: ExecContext) => SlsFiles | undefined;
  /** State functions; the built-in ones by default. */
  stateFunctions?: readonly StateFunction[];
  sleep?: StateEnv['sleep'];
}

/** Salt's EX_STATE_FAILURE: the job retcode when a state failed. */
export const STATE_FAILURE_RETCODE = 2;

const MODS = { name: 'mods', type: 'any', doc: "SLS names: 'web,db' or a list" } as const;
const TEST = { name: 'test', type: 'bool', keywordOnly: true, doc: "report what would change and change nothing (default: the minion's test option)" } as const;
const SALTENV = {
  name: 'saltenv',
  type: 'string',
  keywordOnly: true,
  doc: "file server environment (default: the minion's saltenv option, else base); for a highstate, only this environment's top file and section",
} as const;
const PILLARENV = {
  name: 'pillarenv',
  type: 'string',
  keywordOnly: true,
  doc: "render this run's pillar from this pillar_roots environment only (asked of the master for this run; the minion's pillar is not replaced)",
} as const;
const EXCLUDE = { name: 'exclude', type: 'any', keywordOnly: true, doc: "SLS names ('a,b') or a list of '{sls: x}' / '{id: y}' to leave out" } as const;
const PILLAR = {
  name: 'pillar',
  type: 'any',
  keywordOnly: true,
  doc: 'a dictionary (or its JSON text) merged over the minion\'s pillar for this run only: pillar=\'{"key": "value"}\'',
} as const;
const QUEUE = { name: 'queue', type: 'bool', default: false, keywordOnly: true, doc: 'wait for a running state run instead of failing with STATE_RUN_IN_PROGRESS' } as const;
const CONCURRENT = {
  name: 'concurrent',
  type: 'bool',
  default: false,
  keywordOnly: true,
  doc: 'run even while another state run is in progress, and do not block others (Salt: risky, states may conflict)',
} as const;

const STATE_EVENTS = {
  name: 'state_events',
  type: 'bool',
  keywordOnly: true,
  doc: "send a salt/job/<jid>/prog/<id>/<n> event to the master as each state finishes (default: the minion's state_events option)",
} as const;
const FORCE = {
  name: 'force',
  type: 'bool',
  default: false,
  keywordOnly: true,
  doc: "run even though the minion's latest pillar render failed (on its last good pillar); without it such a run is refused with PILLAR_RENDER_FAILED, as in Salt",
} as const;

/** Salt's first-line message of a pillar error (the lines after it may quote the file, secrets included). */
function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return nl < 0 ? s : s.slice(0, nl);
}

/**
 * Salt's _get_pillar_errors: while the minion's latest pillar render failed (`_errors`), a state
 * run is refused unless force=True, so states never run quietly on an old pillar. The return is
 * Salt's list of messages; the coded message names the files and lines only.
 */
function refuseOnPillarErrors(ctx: ExecContext, force: boolean | undefined): void {
  if (force === true) return;
  const errors = (ctx.pillar?.() as Readonly<Record<string, unknown>> | undefined)?._errors;
  if (!Array.isArray(errors) || errors.length === 0) return;
  const messages = errors.map(String);
  throw new BrineError(
    'PILLAR_RENDER_FAILED',
    `the pillar of this minion did not render, so no state ran: ${messages.map(firstLine).join('; ')}. Fix the file and line named and run saltutil.refresh_pillar (force=True runs on the last good pillar)`,
    // retcode 5: Salt's EX_PILLAR_FAILURE
    { details: { return: ['Pillar failed to render with the following messages:', ...messages], retcode: 5 } },
  );
}

function splitMods(v: unknown, what = 'mods'): string[] {
  const list = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : undefined;
  if (!list?.every((x) => typeof x === 'string' || typeof x === 'number')) throw new BrineError('BAD_ARGUMENTS', `${what} must be SLS names, 'a,b' or a list, got ${JSON.stringify(v)}`);
  return list.map((x) => String(x).trim()).filter((x) => x !== '');
}

/** Salt's state.top: the top file's path (salt:// or not) as an SLS name, 'tops/web.sls' -> 'tops.web'. */
function topSlsName(topfn: string): string {
  const rel = topfn.replace(/^salt:\/\//, '').replace(/^\/+/, '');
  const name = rel.replace(/\.sls$/, '');
  if (name === '' || name.split('/').some((p) => p === '' || p === '.' || p === '..' || p.includes('.'))) {
    throw new BrineError('BAD_ARGUMENTS', `state.top: '${topfn.slice(0, 200)}' is not a top file path of the environment; give one like top_web.sls or salt://tops/web.sls`);
  }
  return name.replaceAll('/', '.');
}

function parseExclude(v: unknown): Exclusion[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return splitMods(v, 'exclude').map((sls) => ({ sls }));
  if (!Array.isArray(v)) throw new BrineError('BAD_ARGUMENTS', `exclude must be 'a,b' or a list, got ${JSON.stringify(v)}`);
  return v.map((e) => {
    if (typeof e === 'string') return { sls: e };
    if (typeof e === 'object' && e !== null && typeof (e as { sls?: unknown }).sls === 'string') return { sls: (e as { sls: string }).sls };
    if (typeof e === 'object' && e !== null && typeof (e as { id?: unknown }).id === 'string') return { id: (e as { id: string }).id };
    throw new BrineError('BAD_ARGUMENTS', `exclude entries must be SLS names, {sls: name} or {id: id}, got ${JSON.stringify(e)}`);
  });
}

/** The retcode rule: 2 when any state failed. */
function stateReturn(ret: Record<string, StateReturn>): unknown {
  const failed = Object.values(ret).some((r) => r.result === false);
  return withRetcode(ret, failed ? STATE_FAILURE_RETCODE : 0);
}

export function stateExecFunctions(registry: ModuleRegistry, opts: StateFunctionsOptions = {}): readonly ModuleFunction[] {
  const functions = functionMap(opts.stateFunctions ?? builtinStateFunctions);
  /** The run's context with its pillar= override merged over the minion's pillar (Salt's pillar_override). */
  const withPillar = (ctx: ExecContext, override: unknown): ExecContext => {
    if (override === undefined || override === null) return ctx;
    const merged = pillarWithOverride(ctx, override);
    return { ...ctx, pillar: () => merged };
  };
  const envFor = (ctx: ExecContext): StateEnv => {
    const files = opts.files ? opts.files(ctx) : ctx.files ? fileClientFiles(ctx.files) : undefined;
    if (!files)
      throw new BrineError(
        'FILESERVER_UNAVAILABLE',
        'state functions need the salt:// file server, and this job has none: start the minion daemon connected to a master, or set file_client: local with file_roots',
      );
    return { files, exec: ctx, registry, functions, ...(opts.sleep ? { sleep: opts.sleep } : {}) };
  };
  /**
   * The run's context with the pillar of its pillarenv= (or, with pillarenv_from_saltenv, its
   * saltenv=), as Salt's get_sls_opts chooses it; the minion's own pillar otherwise.
   */
  const withPillarenv = async (ctx: ExecContext, a: { pillarenv?: string | undefined; saltenv?: string | undefined }): Promise<ExecContext> => {
    const pillarenv = a.pillarenv ?? (ctx.config.pillarenv_from_saltenv === true ? a.saltenv : undefined);
    if (pillarenv === undefined || pillarenv === '') return ctx;
    if (!ctx.pillarFor) throw new BrineError('EXEC_FAILED', 'pillarenv= needs a pillar source: run it through the minion daemon (brine run), or with brine call --local');
    const pillar = await ctx.pillarFor(pillarenv);
    return { ...ctx, pillar: () => pillar };
  };
  const testOf = (ctx: ExecContext, t: boolean | undefined): boolean => t ?? ctx.config.test === true;
  const saltenvOf = (s: string | undefined): string => s ?? 'base';

  const runMods = async (
    base: ExecContext,
    mods: string[] | undefined,
    a: { test?: boolean; saltenv?: string; pillarenv?: string; exclude?: unknown; pillar?: unknown; force?: boolean; top?: string; state_events?: boolean | undefined },
  ): Promise<unknown> => {
    const ctx = withPillar(await withPillarenv(base, a), a.pillar);
    refuseOnPillarErrors(ctx, a.force);
    const env = envFor(ctx);
    const exclude = parseExclude(a.exclude);
    const run = await compileRequest(env, { ...(mods ? { mods } : {}), ...(a.saltenv !== undefined ? { saltenv: a.saltenv } : {}), ...(a.top ? { top: a.top } : {}), ...(exclude ? { exclude } : {}) });
    if (!run) {
      const none = await noTopMatch(env, a.saltenv);
      // the minion's log says it too, where Salt's pointed at a master log that said nothing
      for (const r of Object.values(none)) ctx.log?.('warning', r.comment);
      return withRetcode(none, STATE_FAILURE_RETCODE);
    }
    return stateReturn(await runCompiled(env, run, testOf(ctx, a.test), a.state_events));
  };

  // Salt's show_* functions refuse a failed pillar render as state.sls does (force=True shows anyway)
  const showHigh = async (base: ExecContext, mods: string[] | undefined, a: { saltenv?: string | undefined; pillarenv?: string | undefined; force?: boolean }): Promise<HighId[]> => {
    const ctx = await withPillarenv(base, a);
    refuseOnPillarErrors(ctx, a.force);
    const high = await buildHigh(envFor(ctx), { ...(mods ? { mods } : {}), ...(a.saltenv !== undefined ? { saltenv: a.saltenv } : {}) });
    return high ?? [];
  };

  const list: ModuleFunction[] = [
    defineFunction({
      name: 'state.apply',
      doc: 'Apply the named SLS files (state.apply web,db), or the highstate when none are named.',
      params: defineParams([MODS, TEST, SALTENV, PILLARENV, EXCLUDE, PILLAR, QUEUE, CONCURRENT, FORCE, STATE_EVENTS]),
      run: (ctx, { named }) => runMods(ctx, named.mods === undefined || named.mods === null || named.mods === '' ? undefined : splitMods(named.mods), named),
    }),
    defineFunction({
      name: 'state.sls',
      doc: 'Apply the named SLS files (state.sls web,db).',
      params: defineParams([{ ...MODS, required: true }, TEST, SALTENV, PILLARENV, EXCLUDE, PILLAR, QUEUE, CONCURRENT, FORCE, STATE_EVENTS]),
      run: (ctx, { named }) => runMods(ctx, splitMods(named.mods), named),
    }),
    defineFunction({
      name: 'state.highstate',
      doc: 'Apply every SLS file the top file gives this minion.',
      params: defineParams([TEST, SALTENV, PILLARENV, EXCLUDE, PILLAR, QUEUE, CONCURRENT, FORCE, STATE_EVENTS]),
      run: (ctx, { named }) => runMods(ctx, undefined, named),
    }),
    defineFunction({
      name: 'state.top',
      doc: 'Apply the highstate of another top file (state.top top_web.sls): a file of the environment, as top.sls is.',
      params: defineParams([
        { name: 'topfn', type: 'string', required: true, doc: "the top file: 'top_web.sls' or 'salt://tops/web.sls'" },
        TEST,
        SALTENV,
        PILLARENV,
        EXCLUDE,
        PILLAR,
        QUEUE,
        CONCURRENT,
        FORCE,
        STATE_EVENTS,
      ]),
      run: (ctx, { named }) => runMods(ctx, undefined, { ...named, top: topSlsName(named.topfn) }),
    }),
    defineFunction({
      name: 'state.sls_id',
      doc: 'Apply one state ID from the named SLS files, with the states it requires.',
      params: defineParams([{ name: 'id_', type: 'string', required: true, doc: 'the state ID' }, { ...MODS, required: true }, TEST, SALTENV, PILLARENV, QUEUE, CONCURRENT, FORCE, STATE_EVENTS]),
      run: async (base, { named }) => {
        const ctx = await withPillarenv(base, named);
        refuseOnPillarErrors(ctx, named.force);
        const env = envFor(ctx);
        const mods = splitMods(named.mods);
        const run = await compileRequest(env, { mods, ...(named.saltenv !== undefined ? { saltenv: named.saltenv } : {}) });
        if (!run?.chunks.some((c) => c.__id__ === named.id_)) {
          throw new BrineError('BAD_ARGUMENTS', `No matches for ID '${named.id_}' found in SLS '${mods.join(',')}' within saltenv '${saltenvOf(named.saltenv)}'; state.show_lowstate lists the IDs`);
        }
        const subset = subsetRun(run, (i) => run.chunks[i]!.__id__ === named.id_);
        return stateReturn(await runCompiled(env, subset, testOf(ctx, named.test), named.state_events));
      },
    }),
    defineFunction({
      name: 'state.single',
      doc: 'Run one state function directly: state.single pkg.installed name=vim.',
      params: defineParams([
        { name: 'fun', type: 'string', required: true, doc: 'the state function, e.g. pkg.installed' },
        { name: 'name', type: 'string', required: true, doc: 'the state name' },
        TEST,
        SALTENV,
        QUEUE,
        CONCURRENT,
      ]),
      kwargs: true,
      run: async (ctx, { named, extra }) => {
        const dot = named.fun.indexOf('.');
        if (dot <= 0 || dot === named.fun.length - 1) throw new BrineError('BAD_ARGUMENTS', `state.single: '${named.fun}' is not of the form 'module.function' (e.g. pkg.installed)`);
        const env: StateEnv = { files: { read: async () => undefined, listEnvs: async () => [] }, exec: ctx, registry, functions, ...(opts.sleep ? { sleep: opts.sleep } : {}) };
        const high: HighId[] = [
          { id: named.name, sls: 'None', env: saltenvOf(named.saltenv), decls: [{ state: named.fun.slice(0, dot), fun: named.fun.slice(dot + 1), args: Object.entries(extra) }] },
        ];
        const low = compileLow(high, functions);
        if (low.errors.length > 0) throw compileFailed(low.errors);
        return stateReturn(await runCompiled(env, low.run, testOf(ctx, named.test)));
      },
    }),
    defineFunction({
      name: 'state.show_sls',
      doc: 'Show the high data of the named SLS files (compiled, not run).',
      params: defineParams([{ ...MODS, required: true }, SALTENV, PILLARENV, FORCE]),
      run: async (ctx, { named }) => highToSalt(await showHigh(ctx, splitMods(named.mods), named)),
    }),
    defineFunction({
      name: 'state.show_highstate',
      doc: 'Show the high data of the highstate (compiled, not run).',
      params: defineParams([SALTENV, PILLARENV, FORCE]),
      run: async (ctx, { named }) => highToSalt(await showHigh(ctx, undefined, named)),
    }),
    defineFunction({
      name: 'state.show_lowstate',
      doc: 'Show the low data of the highstate in run order (compiled, not run).',
      params: defineParams([SALTENV, PILLARENV, FORCE]),
      run: async (base, { named }) => {
        const ctx = await withPillarenv(base, named);
        refuseOnPillarErrors(ctx, named.force);
        return lowToSalt(await compileRequest(envFor(ctx), named.saltenv !== undefined ? { saltenv: named.saltenv } : {}));
      },
    }),
    defineFunction({
      name: 'state.test',
      doc: 'state.apply with test=True: report what would change, change nothing.',
      params: defineParams([MODS, SALTENV, PILLARENV, EXCLUDE, QUEUE, CONCURRENT, FORCE, STATE_EVENTS]),
      run: (ctx, { named }) => runMods(ctx, named.mods === undefined || named.mods === null || named.mods === '' ? undefined : splitMods(named.mods), { ...named, test: true }),
    }),
    defineFunction({
      name: 'state.running',
      doc: 'The state runs in progress on this minion, in Salt words (an empty list when none).',
      params: defineParams([CONCURRENT]),
      inline: true,
      run: (ctx) => (ctx.jobs?.list() ?? []).filter((j) => STATE_RUN_FUNCTIONS.has(j.fun) && !j.queued && j.jid !== ctx.jid).map(runningMessage),
    }),
    defineFunction({
      name: 'state.show_states',
      doc: 'The SLS names the highstate would apply (or the named ones with their includes), in order.',
      params: defineParams([MODS, SALTENV]),
      run: async (ctx, { named }) => {
        // Salt's show_states reads compile_low_chunks: SLS names in run order
        const mods = named.mods === undefined || named.mods === null || named.mods === '' ? undefined : splitMods(named.mods);
        const run = await compileRequest(envFor(ctx), { ...(mods ? { mods } : {}), ...(named.saltenv !== undefined ? { saltenv: named.saltenv } : {}) });
        return [...new Set((run?.chunks ?? []).map((c) => c.__sls__))];
      },
    }),
    defineFunction({
      name: 'state.sls_exists',
      doc: 'Whether every named SLS file exists in the environment (not rendered).',
      params: defineParams([{ ...MODS, required: true }, SALTENV]),
      run: async (ctx, { named }) => {
        const env = envFor(ctx);
        for (const sls of splitMods(named.mods)) if (!(await findSls(env.files, sls, saltenvOf(named.saltenv)))) return false;
        return true;
      },
    }),
    defineFunction({
      name: 'state.show_low_sls',
      doc: 'Show the low data of the named SLS files in run order as rendered: extend and _in requisites not applied, as in Salt (compiled, not run).',
      params: defineParams([{ ...MODS, required: true }, SALTENV, FORCE]),
      run: async (ctx, { named }) => {
        refuseOnPillarErrors(ctx, named.force);
        return lowToSalt(await compileRequest(envFor(ctx), { mods: splitMods(named.mods), asRendered: true, ...(named.saltenv !== undefined ? { saltenv: named.saltenv } : {}) }));
      },
    }),
    defineFunction({
      name: 'state.show_top',
      doc: 'Show which SLS files the top file gives this minion, per environment.',
      params: defineParams([SALTENV, PILLARENV]),
      run: async (ctx, { named }) => showTop(envFor(await withPillarenv(ctx, named)), named.saltenv),
    }),
  ];
  return list.map(withMinionSaltenv);
}
