// One state run, end to end: the SLS files of a request (named mods, or the top file's for a
// highstate) -> high data -> low data -> ordered graph, then execution. Compile errors are
// collected from every stage and thrown together (STATE_COMPILE_FAILED); nothing runs then.

import { traverseDictAndList, type ExecContext, type ModuleRegistry } from '../modules/index.js';
import { BrineError } from '../util/errors.js';
import { assembleHigh } from './compiler/assemble-high.js';
import { compileLow, type CompiledRun } from './compiler/compile.js';
import type { CompileError, Exclusion, HighId } from './compiler/high-types.js';
import { runAfter } from './compiler/ordering.js';
import { createStateContext } from './context.js';
import { pythonTruthy } from './runtime/global-checks.js';
import { executeRun, type RunnerOptions, type StateReturn } from './runtime/runner.js';
import { slsLoader } from './sls-render.js';
import type { SlsFiles } from './sls-source.js';
import { evaluateTop, type TopOptions } from './top-file.js';
import { explainNoTopMatch, NO_TOP_SENTENCE, noTopMatchReturn } from './no-top-match.js';
import type { StateFunction } from './types.js';

export interface StateEnv {
  files: SlsFiles;
  exec: ExecContext;
  /** Execution functions for states (ctx.call) and for onlyif/unless/check_cmd. */
  registry: ModuleRegistry;
  functions: ReadonlyMap<string, StateFunction>;
  /** Retry waits; real time unless a test substitutes it. */
  sleep?: RunnerOptions['sleep'];
}

export interface SlsRequest {
  /** SLS names; undefined = highstate (the top file decides). */
  mods?: string[];
  /** saltenv=: the environment of named mods; for a highstate, only this environment's top. */
  saltenv?: string;
  /** state.top: the highstate of this top file (an SLS name: 'top_web') instead of top.sls. */
  top?: string;
  exclude?: Exclusion[];
  /**
   * Salt's state.show_low_sls: compile the rendered high data as is, without `extend`, `exclude`
   * or requisite_in (it calls compile_high_data on render_highstate's output). Never for a run.
   */
  asRendered?: boolean;
}

/** Salt's return when no top file matches this minion (a failure, retcode 2), with Salt's own text. */
export const NO_TOP_MATCH: Record<string, StateReturn> = noTopMatchReturn(`${NO_TOP_SENTENCE} Please see master log for details.`);

/** The no-match return with its cause: what was searched and what the top files gave this minion. */
export async function noTopMatch(env: StateEnv, saltenv?: string): Promise<Record<string, StateReturn>> {
  return noTopMatchReturn(await explainNoTopMatch(env, topOptions(env.exec.config, saltenv)));
}

export function compileFailed(errors: readonly CompileError[]): BrineError {
  const messages = errors.map((e) => e.message);
  return new BrineError('STATE_COMPILE_FAILED', `the states could not be compiled, so none ran:\n${messages.map((m) => `- ${m}`).join('\n')}`, {
    details: { return: messages, states: [...new Set(errors.flatMap((e) => e.states))] },
  });
}

const autoOrder = (env: StateEnv): boolean => env.exec.config.state_auto_order !== false;

/** The top-file options of the minion's config (validated at start by the option table). */
function topOptions(config: Readonly<Record<string, unknown>>, saltenv: string | undefined, topName?: string): TopOptions {
  const strategy = config.top_file_merging_strategy;
  return {
    ...(strategy === 'same' || strategy === 'merge_all' ? { strategy } : {}),
    ...(typeof config.default_top === 'string' ? { defaultTop: config.default_top } : {}),
    ...(Array.isArray(config.env_order) ? { envOrder: config.env_order.map(String) } : {}),
    ...(typeof config.state_top_saltenv === 'string' && config.state_top_saltenv !== '' ? { stateTopSaltenv: config.state_top_saltenv } : {}),
    ...(saltenv !== undefined ? { saltenv } : {}),
    ...(topName !== undefined ? { topName } : {}),
  };
}

/** The merged top for this minion (state.show_top); `saltenv` limits it to that environment's top file and section. */
export async function showTop(env: StateEnv, saltenv?: string, topName?: string): Promise<Record<string, string[]>> {
  const loader = slsLoader(env.files, env.exec);
  const envs = await env.files.listEnvs();
  const nodegroups = env.exec.config.nodegroups;
  const { top, errors } = await evaluateTop(
    envs,
    loader,
    { id: env.exec.minionId, grains: env.exec.grains(), ...(typeof nodegroups === 'object' && nodegroups !== null ? { nodegroups: nodegroups as Record<string, unknown> } : {}) },
    topOptions(env.exec.config, saltenv, topName),
  );
  if (errors.length > 0) throw compileFailed(errors);
  return top;
}

/** High data and its compiled run; undefined when a highstate finds no top file match. */
async function compileHigh(env: StateEnv, req: SlsRequest): Promise<{ high: HighId[]; run: CompiledRun } | undefined> {
  let requests: Array<{ sls: string; env: string }>;
  if (req.mods === undefined) {
    const top = await showTop(env, req.saltenv, req.top);
    requests = Object.entries(top).flatMap(([e, names]) => names.map((sls) => ({ sls, env: e })));
    if (requests.length === 0) return undefined;
  } else {
    const saltenv = req.saltenv ?? 'base';
    requests = req.mods.map((sls) => ({ sls, env: saltenv }));
  }
  const reconcile = req.asRendered !== true;
  const { high, errors } = await assembleHigh(requests, slsLoader(env.files, env.exec), { autoOrder: autoOrder(env), reconcile, ...(req.exclude ? { exclude: req.exclude } : {}) });
  // the later stages report their own errors too, so one compile lists everything
  const low = compileLow(high, env.functions, { requisiteIn: reconcile });
  if (errors.length > 0 || low.errors.length > 0) throw compileFailed([...errors, ...low.errors]);
  return { high, run: low.run };
}

/** High data of a request; undefined when a highstate finds no top file match. */
export async function buildHigh(env: StateEnv, req: SlsRequest): Promise<HighId[] | undefined> {
  return (await compileHigh(env, req))?.high;
}

/** Compiled low data of a request; undefined when a highstate finds no top file match. */
export async function compileRequest(env: StateEnv, req: SlsRequest): Promise<CompiledRun | undefined> {
  // compiled once: compiling is pure, and the run of a 500-state tree costs tens of ms
  return (await compileHigh(env, req))?.run;
}

/** Only the chunks selected, with everything they need to run first (state.sls_id). */
export function subsetRun(run: CompiledRun, selected: (i: number) => boolean): CompiledRun {
  const after = runAfter(run.reqs);
  const keep = new Set<number>();
  const add = (i: number): void => {
    if (keep.has(i)) return;
    keep.add(i);
    for (const d of after[i]!) add(d);
    for (const r of run.reqs[i]!) if (r.kind === 'prereq') add(r.target);
  };
  for (let i = 0; i < run.chunks.length; i++) if (selected(i)) add(i);
  const order = [...keep].sort((a, b) => a - b);
  const position = new Map(order.map((old, i) => [old, i]));
  return {
    chunks: order.map((i) => run.chunks[i]!),
    reqs: order.map((i) => run.reqs[i]!.filter((r) => position.has(r.target)).map((r) => ({ kind: r.kind, target: position.get(r.target)! }))),
  };
}

const CHECK_OPTIONS: ReadonlySet<string> = new Set(['cwd', 'runas', 'shell', 'timeout', 'umask']);

/**
 * `{fun: mod.fun, args: [...], get_return: key, ...kwargs}`: succeeds when the function returns a
 * truthy value and sets no failing retcode. A function that raises in Salt (unknown, bad
 * arguments, an error) fails the state there (state.py call(): "An exception occurred in this
 * state"), so its coded error is thrown for the runner to report.
 */
async function runCheckFunction(env: StateEnv, entry: Readonly<Record<string, unknown>>): Promise<boolean> {
  const { fun, args, get_return: getReturn, ...kwargs } = entry;
  if (typeof fun !== 'string') throw new BrineError('BAD_ARGUMENTS', `onlyif/unless: fun must be a function name such as file.file_exists, not ${JSON.stringify(fun)}`);
  const r = await env.registry.call(fun, Array.isArray(args) ? args : args === undefined ? [] : [args], kwargs, env.exec);
  if (r.error) throw new BrineError(r.error.code, `onlyif/unless check ${fun}: ${r.error.message}`);
  if (!r.success) return false;
  return pythonTruthy(typeof getReturn === 'string' ? traverseDictAndList(r.return, getReturn, undefined) : r.return);
}

function envOf(v: unknown): Record<string, unknown> | undefined {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  // Salt also accepts `env: [{FOO: bar}, ...]`
  if (Array.isArray(v)) return Object.assign({}, ...v.filter((x) => typeof x === 'object' && x !== null));
  return undefined;
}

/** Salt's state_events: the call's state_events= over the minion's option; reported through ExecContext.stateProgress. */
function progressReporter(env: StateEnv, stateEvents: boolean | undefined): RunnerOptions['onResult'] {
  const report = env.exec.stateProgress;
  if (!report || (stateEvents ?? env.exec.config.state_events === true) !== true) return undefined;
  return (tag, ret, len) => report({ n: ret.__run_num__, len, tag, ret: { ...ret } });
}

/** Runs compiled states; `stateEvents` is the call's state_events= (undefined = the minion's option). */
export function runCompiled(env: StateEnv, run: CompiledRun, test: boolean, stateEvents?: boolean): Promise<Record<string, StateReturn>> {
  const runContext = new Map<string, unknown>();
  const onResult = progressReporter(env, stateEvents);
  return executeRun(run, {
    test,
    failhard: env.exec.config.failhard === true,
    functions: env.functions,
    // each state sees the environment its SLS came from (a highstate spans several)
    context: (low, t, saltenv) => createStateContext({ test: t, saltenv, exec: env.exec, low, runContext, registry: env.registry }),
    check: async (entry, chunk) => {
      if (typeof entry !== 'string') return runCheckFunction(env, entry);
      const kwarg: Record<string, unknown> = { python_shell: true };
      const e = envOf(chunk.env);
      if (e) kwarg.env = e;
      // Salt runs the checks with the state's own cwd, runas, shell, timeout and umask; pass
      // those that this minion's cmd.retcode understands
      for (const p of env.registry.get('cmd.retcode')?.params ?? []) {
        if (CHECK_OPTIONS.has(p.name) && chunk[p.name] !== undefined && chunk[p.name] !== null) kwarg[p.name] = chunk[p.name];
      }
      const r = await env.registry.call('cmd.retcode', [entry], kwarg, env.exec);
      return r.return === 0;
    },
    signal: env.exec.signal,
    ...(env.sleep ? { sleep: env.sleep } : {}),
    ...(onResult ? { onResult } : {}),
  });
}
