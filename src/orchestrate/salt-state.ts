// salt.state (Salt's salt/states/saltmod.py state()): a step that runs SLS files, a top file or
// the highstate on minions and reports each minion's return in the orchestration's highstate,
// with Salt's comments and failure rules.

import { defineParams } from '../modules/index.js';
import { defineState, type StateFunction, type StateResult } from '../state/index.js';
import { checkResult, failMinionsOf } from './check-result.js';
import { publishFor, sshRefused, TARGET, withJid, type OrchestrationRun } from './step-publish.js';

const stateParams = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the step name' },
  ...TARGET,
  { name: 'highstate', type: 'bool', doc: 'run the highstate' },
  { name: 'top', type: 'string', doc: "run the highstate of this top file instead (state.top): e.g. 'top_web.sls'" },
  { name: 'sls', type: 'any', doc: 'SLS names: a list or "a,b"' },
  { name: 'saltenv', type: 'string', doc: 'file server environment of the SLS' },
  { name: 'test', type: 'bool', doc: 'run the states with test=True' },
  { name: 'pillar', type: 'any', doc: "a mapping merged over each minion's pillar for this run" },
  { name: 'pillarenv', type: 'string', doc: 'the pillar environment of the run' },
  { name: 'exclude', type: 'any', doc: 'SLS or IDs to leave out' },
  { name: 'allow_fail', type: 'any', default: 0, doc: 'how many minions may fail before the step fails' },
  { name: 'queue', type: 'bool', default: false, doc: "wait for a minion's running state run instead of failing" },
  { name: 'concurrent', type: 'any', default: false, doc: 'run beside a running state run (risky)' },
]);

export function saltState(run: OrchestrationRun): StateFunction {
  return defineState({
    name: 'salt.state',
    doc: 'Run sls files or the highstate on the minions a target matches (orchestration).',
    params: stateParams,
    kwargs: true,
    example: 'webservers:\n  salt.state:\n    - tgt: "web*"\n    - sls:\n      - nginx',
    run: async (ctx, { named: a }) => {
      const name = a.name;
      const fail = (comment: string): StateResult => ({ name, result: false, changes: {}, comment });
      if (a.ssh) return sshRefused(name);
      const allowFail = Number(a.allow_fail);
      if (!Number.isInteger(allowFail)) return fail("Passed invalid value for 'allow_fail', must be an int");
      if (typeof a.concurrent !== 'boolean') return fail("Must pass in boolean for value of 'concurrent'");
      let fun: string;
      const arg: unknown[] = [];
      if (a.highstate) fun = 'state.highstate';
      else if (a.top) {
        fun = 'state.top';
        arg.push(a.top);
      } else if (a.sls !== undefined && a.sls !== null) {
        fun = 'state.sls';
        arg.push(Array.isArray(a.sls) ? a.sls.join(',') : String(a.sls));
      } else return fail('No highstate or sls specified, no execution made');
      const test = a.test ?? (ctx.test ? true : undefined);
      const kwarg: Record<string, unknown> = { queue: a.queue, concurrent: a.concurrent };
      if (test !== undefined) kwarg.test = test;
      if (a.pillar !== undefined && a.pillar !== null) kwarg.pillar = a.pillar;
      if (a.pillarenv !== undefined) kwarg.pillarenv = a.pillarenv;
      if (a.saltenv !== undefined) kwarg.saltenv = a.saltenv;
      if (a.exclude !== undefined && a.exclude !== null) kwarg.exclude = a.exclude;
      const job = await publishFor(run, 'state', name, a, fun, arg, kwarg);
      const failMinions = failMinionsOf(a.fail_minions);
      const ret: StateResult = { name, result: true, changes: {}, comment: '' };
      if (job.byMinion.size === 0 && a.expect_minions !== false) return withJid({ ...ret, result: false, comment: 'No minions returned' }, job);
      const changes: Record<string, unknown> = {};
      const failed: string[] = [];
      const noChange: string[] = [];
      for (const [minion, m] of job.byMinion) {
        if (m.failed && a.expect_minions === false) continue;
        if (m.failed || !checkResult(m.ret, true)) {
          if (!failMinions.ids.has(minion)) failed.push(minion);
          changes[minion] = m.failed ? false : m.ret;
          continue;
        }
        const changed = Object.values(m.ret as Record<string, unknown>).some((s) => typeof s === 'object' && s !== null && Object.keys((s as { changes?: object }).changes ?? {}).length > 0);
        if (changed) changes[minion] = m.ret;
        else noChange.push(minion);
      }
      if (Object.keys(changes).length > 0) ret.changes = { out: 'highstate', ret: changes };
      if (failed.length > allowFail) {
        ret.result = false;
        ret.comment = `Run failed on minions: ${failed.join(', ')}`;
      } else {
        ret.comment = 'States ran successfully.';
        if (Object.keys(changes).length > 0) ret.comment += ` Updating ${Object.keys(changes).join(', ')}.`;
        if (noChange.length > 0) ret.comment += ` No changes made to ${noChange.join(', ')}.`;
      }
      // Salt: test mode with changes is changes pending
      if ((test === true || ctx.test) && Object.keys(ret.changes).length > 0 && ret.result === true) ret.result = null;
      return withJid(ret, job);
    },
  });
}
