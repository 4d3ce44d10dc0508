// salt.function (Salt's salt/states/saltmod.py function()): a step that runs an execution
// function on minions and reports each minion's return, failing on a non-zero retcode, a `False`
// return, or what `fail_function` (an execution function run on the master with the return)
// judges a failure.

import { defineParams } from '../modules/index.js';
import { defineState, type StateFunction, type StateResult } from '../state/index.js';
import { failMinionsOf } from './check-result.js';
import { publishFor, sshRefused, TARGET, withJid, type OrchestrationRun } from './step-publish.js';

const functionParams = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the execution function, e.g. cmd.run' },
  ...TARGET,
  { name: 'arg', type: 'any', doc: 'positional arguments: a list' },
  { name: 'kwarg', type: 'any', doc: 'keyword arguments: a mapping' },
  { name: 'fail_function', type: 'string', doc: "an execution function run on the master with each minion's return: a false answer fails that minion" },
]);

/** Python's truth value, as Salt tests fail_function's answer. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

export function saltFunction(run: OrchestrationRun): StateFunction {
  return defineState({
    name: 'salt.function',
    doc: 'Run an execution function on the minions a target matches (orchestration).',
    params: functionParams,
    kwargs: true,
    example: 'restart:\n  salt.function:\n    - name: cmd.run\n    - tgt: "web*"\n    - arg:\n      - systemctl restart nginx',
    run: async (ctx, { named: a }) => {
      const name = a.name;
      if (a.ssh) return sshRefused(name);
      // Salt splits an `arg` given as a string on whitespace (and warns to give a list)
      const arg: unknown[] = typeof a.arg === 'string' ? a.arg.split(/\s+/).filter((x) => x !== '') : Array.isArray(a.arg) ? a.arg : [];
      const kwarg = typeof a.kwarg === 'object' && a.kwarg !== null && !Array.isArray(a.kwarg) ? (a.kwarg as Record<string, unknown>) : {};
      if (ctx.test) return { name, result: null, changes: {}, comment: `Function ${name} would be executed on target ${String(a.tgt)}` };
      const job = await publishFor(run, 'function', name, a, name, arg, kwarg);
      const failMinions = failMinionsOf(a.fail_minions);
      const ret: StateResult = { name, result: true, changes: {}, comment: '' };
      const changes: Record<string, unknown> = {};
      const failed = new Set<string>();
      for (const [minion, m] of job.byMinion) {
        // Salt's salt.function expects no minion by default: one that did not return is left out
        if (m.failed && a.expect_minions !== true) continue;
        if (!m.failed && m.retcode !== 0) {
          ret.result = false;
          failed.add(minion);
        }
        let ok = !m.failed;
        if (ok && a.fail_function) ok = truthy(await run.host.localCall(a.fail_function, [m.ret]));
        if (m.ret === false) ok = false;
        if (!ok && !failMinions.ids.has(minion)) failed.add(minion);
        changes[minion] = m.failed ? false : m.ret;
      }
      if (Object.keys(changes).length === 0) return withJid({ ...ret, result: false, comment: 'No minions responded' }, job);
      ret.changes = { ret: changes };
      if (failed.size > 0) {
        ret.result = false;
        ret.comment = `Running function ${name} failed on minions: ${[...failed].join(', ')}`;
      } else ret.comment = 'Function ran successfully.';
      ret.comment += ` Function ${name} ran on ${Object.keys(changes).join(', ')}.`;
      return withJid(ret, job);
    },
  });
}
