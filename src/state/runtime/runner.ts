// Stage "execution": runs compiled chunks in order, deciding each from its requisites (pure,
// requisite-status.ts), applying the global arguments, mod_watch, prereq test runs, retry and
// failhard, and returns Salt's state return keyed `state_|-id_|-name_|-fun`.

import { chunkTag, type LowChunk } from '../compiler/high-types.js';
import type { CompiledRun } from '../compiler/compile.js';
import { bindStateArgs, ignoredArgs, ignoredArgsWarning, missingFunctionComment } from '../compiler/arg-check.js';
import type { LowRef, StateContext, StateFunction, StateResult } from '../types.js';
import { runCheckCmd, runChecks, type CheckRunner } from './global-checks.js';
import { requisiteStatus } from './requisite-status.js';
import { attemptComment, retryPolicy, testModeRetryComment } from './retry.js';
import { errorMessage } from '../../util/errors.js';

/** One state's entry in the return of a run. */
export interface StateReturn extends StateResult {
  __id__: string;
  __sls__: string;
  __run_num__: number;
  /** Local time the state started, HH:MM:SS.ffffff. */
  start_time: string;
  /** Milliseconds. */
  duration: number;
  /** Salt's `warnings`: here, the arguments the state function did not take and ignored. */
  warnings?: string[];
}

export interface RunnerOptions {
  test: boolean;
  /** The minion's `failhard` option: stop at the first failure. */
  failhard?: boolean;
  functions: ReadonlyMap<string, StateFunction>;
  /** The StateContext a function runs with (test may differ from the run's for prereq; saltenv is the chunk's). */
  context(low: LowRef, test: boolean, saltenv: string): StateContext;
  /** Runs onlyif/unless/check_cmd commands. */
  check: CheckRunner;
  /** Stops the run between states. */
  signal?: AbortSignal;
  /** Waits between retry attempts (a fake in tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Wall-clock start of a state: a Date, or epoch milliseconds with a microsecond fraction. */
  now?: () => Date | number;
  /** A monotonic milliseconds clock for durations. */
  elapsed?: () => number;
  /** Called as each state finishes, with its key, its return and the run's chunk count (Salt's state_events). */
  onResult?: (tag: string, ret: StateReturn, len: number) => void;
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Salt's start_time: local wall-clock time of day as Python's time().isoformat() prints it,
 * HH:MM:SS.ffffff, or HH:MM:SS when the microseconds are exactly 0 (isoformat drops them).
 * `d` is a Date or milliseconds since the epoch with a fraction (microseconds).
 */
export function formatStartTime(d: Date | number): string {
  const ms = typeof d === 'number' ? d : d.getTime();
  const whole = Math.floor(ms);
  const t = new Date(whole);
  // an epoch in ms as a double resolves about 0.25 µs, so round to the nearest microsecond
  const micros = t.getMilliseconds() * 1000 + Math.min(999, Math.round((ms - whole) * 1000));
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const hms = `${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}`;
  return micros === 0 ? hms : `${hms}.${p(micros, 6)}`;
}

/**
 * The wall clock with microseconds (Salt reads datetime.now()). Node's only sub-millisecond
 * clock is monotonic (performance), which drifts from the wall clock in a long-lived minion;
 * when the two disagree by a millisecond or more, the wall clock wins and keeps the fraction.
 */
export function microsNow(): number {
  const fine = performance.timeOrigin + performance.now();
  const wall = Date.now();
  return Math.abs(fine - wall) < 1 ? fine : wall + (fine % 1);
}

const lowRef = (c: LowChunk): LowRef => ({
  __id__: c.__id__,
  __sls__: c.__sls__,
  state: c.state,
  fun: c.fun,
  name: c.name,
  ...('require_in' in c ? { require_in: c.require_in } : {}),
  ...('watch_in' in c ? { watch_in: c.watch_in } : {}),
});

function checkShape(fn: StateFunction, r: unknown, name: string): StateResult {
  const o = r as Partial<StateResult> | null;
  if (typeof o !== 'object' || o === null || !(o.result === true || o.result === false || o.result === null) || typeof o.changes !== 'object' || o.changes === null) {
    return { name, result: false, changes: {}, comment: `${fn.name} returned a malformed state result: ${JSON.stringify(r)?.slice(0, 200)}` };
  }
  return {
    name: typeof o.name === 'string' ? o.name : name,
    result: o.result,
    changes: o.changes,
    comment: typeof o.comment === 'string' ? o.comment : String(o.comment ?? ''),
    ...(typeof o.__jid__ === 'string' ? { __jid__: o.__jid__ } : {}),
  };
}

interface Invoked extends StateResult {
  skipWatch?: boolean;
  warnings?: string[];
}

export async function executeRun(run: CompiledRun, opts: RunnerOptions): Promise<Record<string, StateReturn>> {
  const { chunks, reqs } = run;
  const sleep = opts.sleep ?? realSleep;
  const random = opts.random ?? Math.random;
  const now = opts.now ?? microsNow;
  const elapsed = opts.elapsed ?? (() => performance.now());
  const results = new Map<number, StateResult>();
  const pre = new Map<number, StateResult>();
  const prereqBy: number[][] = chunks.map(() => []);
  reqs.forEach((list, i) => {
    for (const r of list) if (r.kind === 'prereq') prereqBy[r.target]!.push(i);
  });
  const out: Record<string, StateReturn> = {};
  let runNum = 0;

  /** The state function itself, after the onlyif/unless/creates checks. */
  const callFunction = async (c: LowChunk, test: boolean, watch: boolean): Promise<Invoked> => {
    const fn = opts.functions.get(`${c.state}.${c.fun}`);
    // Salt's verify_data, before any check: this state fails, the others run
    if (fn === undefined) return { name: c.name, result: false, changes: {}, comment: missingFunctionComment(c), skipWatch: true };
    let skip: Awaited<ReturnType<typeof runChecks>>;
    try {
      skip = await runChecks(c, opts.check);
    } catch (err) {
      // a check function that raised: Salt's call() fails the state with the exception
      return { name: c.name, result: false, changes: {}, comment: `An exception occurred in this state: ${errorMessage(err)}` };
    }
    if (skip) return { name: c.name, result: skip.result, changes: {}, comment: skip.comment, skipWatch: true };
    const ctx = opts.context(lowRef(c), test, c.__env__);
    const invoke = async (f: NonNullable<StateFunction['modWatch']>): Promise<StateResult> => {
      try {
        // the compiler checked the arguments; binding again converts them (and cannot fail here)
        return checkShape(fn, await f.call(fn, ctx, bindStateArgs(fn, c)), c.name);
      } catch (err) {
        return { name: c.name, result: false, changes: {}, comment: `An exception occurred in this state: ${errorMessage(err)}` };
      }
    };
    let ret: Invoked = await invoke(fn.run);
    if (watch && fn.modWatch && Object.keys(ret.changes).length === 0 && ret.result !== false) ret = await invoke(fn.modWatch);
    const ignored = ignoredArgs(fn, c);
    if (ignored.length > 0) ret = { ...ret, warnings: [ignoredArgsWarning(fn.name, ignored)] };
    return ret;
  };

  /** callFunction with retry and check_cmd. */
  const callWithRetry = async (c: LowChunk, test: boolean, watch: boolean): Promise<{ ret: Invoked; extraMs: number }> => {
    let ret = await callFunction(c, test, watch);
    let extraMs = 0;
    const policy = retryPolicy(c.retry);
    if (policy && test) ret = { ...ret, comment: [ret.comment, testModeRetryComment(policy)].filter((s) => s !== '').join('  ') };
    else if (policy) {
      const comments: string[] = [];
      for (let attempt = 1; attempt < policy.attempts && ret.result !== policy.until; attempt++) {
        comments.push(attemptComment(attempt, ret.result, ret.comment));
        const seconds = policy.interval + (policy.splay > 0 ? Math.floor(random() * (policy.splay + 1)) : 0);
        await sleep(seconds * 1000, opts.signal);
        extraMs += seconds * 1000;
        ret = await callFunction(c, test, watch);
      }
      if (comments.length > 0) ret = { ...ret, comment: [...comments, ret.comment].filter((s) => s !== '').join('\n') };
    }
    if (!test && !ret.skipWatch) {
      const checked = await runCheckCmd(c, opts.check);
      if (checked) ret = { ...ret, ...checked };
    }
    return { ret, extraMs };
  };

  /** A prereq target's test-mode run, once. */
  const preRun = async (t: number): Promise<void> => {
    if (pre.has(t) || results.has(t)) return;
    const c = chunks[t]!;
    const status = requisiteStatus(
      reqs[t]!,
      [],
      (j) => results.get(j),
      (j) => pre.get(j),
    );
    if (status.kind === 'fail') pre.set(t, { name: c.name, result: false, changes: {}, comment: 'One or more requisite failed' });
    else if (status.kind !== 'met' && status.kind !== 'change') pre.set(t, { name: c.name, result: true, changes: {}, comment: '' });
    else pre.set(t, (await callFunction(c, true, false)) as StateResult);
  };

  // as Salt's check_failhard: a dry run never stops early, it reports every state
  /** Salt's call_listen: after the run, mod_watch once for each state listening to a state that changed. */
  const runListeners = async (): Promise<void> => {
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      const fired = reqs[i]!.some((r) => r.kind === 'listen' && Object.keys(results.get(r.target)?.changes ?? {}).length > 0);
      const fn = opts.functions.get(`${c.state}.${c.fun}`);
      if (!fired || !fn?.modWatch) continue;
      opts.signal?.throwIfAborted();
      const listener = { ...c, __id__: `listener_${c.__id__}`, fun: 'mod_watch' };
      const startDate = now();
      const t0 = elapsed();
      let ret: StateResult;
      try {
        ret = checkShape(fn, await fn.modWatch.call(fn, opts.context(lowRef(listener), opts.test, c.__env__), bindStateArgs(fn, c)), c.name);
      } catch (err) {
        ret = { name: c.name, result: false, changes: {}, comment: `An exception occurred in this state: ${errorMessage(err)}` };
      }
      const key = chunkTag(listener);
      out[key] = {
        name: ret.name,
        result: ret.result,
        changes: ret.changes,
        comment: ret.comment,
        __id__: listener.__id__,
        __sls__: c.__sls__,
        __run_num__: runNum++,
        start_time: formatStartTime(startDate),
        duration: Math.round((elapsed() - t0) * 1000) / 1000,
      };
      opts.onResult?.(key, out[key]!, chunks.length);
    }
  };

  const failhardStops = (c: LowChunk, r: StateResult): boolean => !opts.test && r.result === false && (typeof c.failhard === 'boolean' ? c.failhard : opts.failhard === true);

  for (let i = 0; i < chunks.length; i++) {
    opts.signal?.throwIfAborted();
    const c = chunks[i]!;
    for (const r of reqs[i]!) if (r.kind === 'prereq') await preRun(r.target);
    const startDate = now();
    const t0 = elapsed();
    const status = requisiteStatus(
      reqs[i]!,
      prereqBy[i]!,
      (j) => results.get(j),
      (j) => pre.get(j),
    );
    let ret: StateResult;
    let warnings: string[] | undefined;
    let extraMs = 0;
    switch (status.kind) {
      case 'fail': {
        const names = status.failed.map((j) => `${chunks[j]!.__sls__}.${chunks[j]!.__id__}`);
        ret = { name: c.name, result: false, changes: {}, comment: `One or more requisite failed: ${[...new Set(names)].join(', ')}` };
        break;
      }
      case 'onchanges':
        ret = { name: c.name, result: true, changes: {}, comment: 'State was not run because none of the onchanges reqs changed' };
        break;
      case 'onfail':
        ret = { name: c.name, result: true, changes: {}, comment: 'State was not run because onfail req did not change' };
        break;
      case 'pre':
        ret = { name: c.name, result: true, changes: {}, comment: 'No changes detected' };
        break;
      default: {
        const done = await callWithRetry(c, opts.test, status.kind === 'change');
        const { skipWatch: _skip, warnings: w, ...plain } = done.ret;
        ret = plain;
        warnings = w;
        extraMs = done.extraMs;
      }
    }
    results.set(i, ret);
    const key = chunkTag(c);
    out[key] = {
      name: ret.name,
      result: ret.result,
      changes: ret.changes,
      comment: ret.comment,
      __id__: c.__id__,
      __sls__: c.__sls__,
      __run_num__: runNum++,
      start_time: formatStartTime(startDate),
      duration: Math.round((elapsed() - t0 + (opts.sleep ? extraMs : 0)) * 1000) / 1000,
      ...(ret.__jid__ ? { __jid__: ret.__jid__ } : {}),
      ...(warnings ? { warnings } : {}),
    };
    opts.onResult?.(key, out[key]!, chunks.length);
    if (failhardStops(c, ret)) break;
  }
  await runListeners();
  return out;
}
