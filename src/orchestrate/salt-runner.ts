// salt.runner, salt.wheel and salt.parallel_runners (saltmod.py): steps that call the master's
// runner and wheel functions. A function that fails (a coded error, or a return holding `Error`)
// fails the step with Salt's comment.

import { defineParams } from '../modules/index.js';
import { defineState, type StateFunction, type StateResult } from '../state/index.js';
import { errorMessage } from '../util/errors.js';
import type { FullReturn, FunctionCall } from './host.js';
import type { OrchestrationRun } from './step-publish.js';

const NAME = defineParams([{ name: 'name', type: 'string', required: true, doc: 'the runner or wheel function, e.g. jobs.list_jobs' }]);

/** The step's own arguments become the function's keyword arguments, as Salt passes **kwargs; `arg` is positional. */
function callOf(extra: Record<string, unknown>): FunctionCall {
  const { arg, kwarg, ...rest } = extra;
  const kw = typeof kwarg === 'object' && kwarg !== null && !Array.isArray(kwarg) ? (kwarg as Record<string, unknown>) : {};
  return { arg: Array.isArray(arg) ? arg : arg === undefined ? [] : [arg], kwarg: { ...rest, ...kw } };
}

type Caller = (fun: string, call: FunctionCall) => Promise<FullReturn>;

/** Salt's full_return, failed also when the return is a mapping holding `Error`; an unknown function is such a return. */
async function callFull(call: Caller, fun: string, c: FunctionCall): Promise<{ jid?: string; return: unknown; success: boolean }> {
  try {
    const out = await call(fun, c);
    const r = out.return;
    const isError = typeof r === 'object' && r !== null && !Array.isArray(r) && Object.hasOwn(r, 'Error');
    return { jid: out.jid, return: r, success: out.success && !isError };
  } catch (err) {
    return { return: { Error: errorMessage(err) }, success: false };
  }
}

function callStep(kind: 'Runner' | 'Wheel', call: (run: OrchestrationRun) => Caller) {
  return (run: OrchestrationRun): StateFunction =>
    defineState({
      name: kind === 'Runner' ? 'salt.runner' : 'salt.wheel',
      doc: `Call a ${kind.toLowerCase()} function on the master (orchestration).`,
      params: NAME,
      kwargs: true,
      example: kind === 'Runner' ? 'list_jobs:\n  salt.runner:\n    - name: jobs.list_jobs' : 'accept:\n  salt.wheel:\n    - name: key.accept\n    - match: web*',
      run: async (ctx, { named, extra }): Promise<StateResult> => {
        const name = named.name;
        if (ctx.test) return { name, result: null, changes: {}, comment: `${kind} function '${name}' would be executed.` };
        const out = await callFull(call(run), name, callOf(extra));
        // the runner or wheel job's own jid, as Salt's step gives it
        return { name, result: out.success, changes: { return: out.return }, comment: `${kind} function '${name}' ${out.success ? 'executed' : 'failed'}.`, ...(out.jid ? { __jid__: out.jid } : {}) };
      },
    });
}

export const saltRunner = callStep('Runner', (run) => (fun, c) => run.host.runner(fun, c, run.user));
export const saltWheel = callStep('Wheel', (run) => (fun, c) => run.host.wheel(fun, c, run.user));

const PARALLEL = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the step name' },
  { name: 'runners', type: 'any', required: true, doc: 'a mapping of IDs to {name: runner function, kwarg: {...}}' },
]);

/** Salt's repack_dictlist: [{a: 1}, {b: 2}] -> {a: 1, b: 2}; a mapping as it is. */
function repack(v: unknown): Record<string, unknown> {
  if (Array.isArray(v)) return Object.assign({}, ...v.filter((x) => typeof x === 'object' && x !== null));
  return typeof v === 'object' && v !== null ? { ...(v as Record<string, unknown>) } : {};
}

export function saltParallelRunners(run: OrchestrationRun): StateFunction {
  return defineState({
    name: 'salt.parallel_runners',
    doc: 'Call several runner functions at the same time (orchestration).',
    params: PARALLEL,
    example: 'both:\n  salt.parallel_runners:\n    - runners:\n        one:\n          - name: state.orchestrate\n          - kwarg:\n              mods: orch.one',
    run: async (ctx, { named }): Promise<StateResult> => {
      const name = named.name;
      let spec = named.runners;
      if (typeof spec === 'string') spec = { [spec]: [{ name: spec }] };
      if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return { name, result: false, changes: {}, comment: 'The runners parameter must be a string or dict.' };
      const configs = Object.entries(spec as Record<string, unknown>).map(([id, v]) => {
        const c = v === null || v === undefined ? {} : repack(v);
        return { id, fun: typeof c.name === 'string' ? c.name : id, kwarg: repack(c.kwarg) };
      });
      if (ctx.test) return { name, result: null, changes: {}, comment: `Runner functions ${configs.map((c) => `'${c.fun}'`).join(', ')} would be executed.` };
      const outs = await Promise.all(configs.map((c) => callFull((fun, call) => run.host.runner(fun, call, run.user), c.fun, { arg: [], kwarg: c.kwarg })));
      const failed = configs.filter((_, i) => !outs[i]!.success).map((c) => c.id);
      const comment = failed.length === 0 ? 'All runner functions executed successfully.' : failed.length === 1 ? `Runner ${failed[0]} failed.` : `Runners ${failed.join(', ')} failed.`;
      return { name, result: failed.length === 0, changes: { ret: Object.fromEntries(configs.map((c, i) => [c.id, outs[i]!.return])) }, comment };
    },
  });
}
