// salt.state and salt.function (Salt's salt/states/saltmod.py state() and function()): a step
// that runs states or an execution function on minions and reports each minion's return in the
// orchestration's highstate, with Salt's comments and failure rules.

import { defineParams } from '../modules/index.js';
import { defineState, type StateFunction, type StateResult } from '../state/index.js';
import { checkResult, failMinionsOf } from './check-result.js';
import type { OrchestrateHost } from './host.js';
import { publishStep, type StepJob } from './publish-step.js';

/** What a step knows about the orchestration it belongs to. */
export interface OrchestrationRun {
  host: OrchestrateHost;
  /** The user the orchestration runs for: every job it publishes is recorded under this user. */
  user: string;
  /** The orchestration's runner jid (Salt's __orchestration_jid__). */
  jid: string;
  signal: AbortSignal;
}

/** The job arguments an args event reports (Salt's cmd_kw). */
function stepArgs(arg: unknown[], kwarg: Record<string, unknown>, a: { tgt_type: string; timeout?: number | undefined; batch?: unknown }): Record<string, unknown> {
  return { arg, kwarg, tgt_type: a.tgt_type, timeout: a.timeout ?? null, ...(a.batch !== undefined && a.batch !== null ? { batch: String(a.batch) } : {}) };
}

/** Salt's _fire_args: `salt/run/<orchestration jid>/args` before a step publishes its job. */
function fireArgs(run: OrchestrationRun, type: 'state' | 'function', name: string, tgt: unknown, args: Record<string, unknown>): void {
  run.host.fire(`salt/run/${run.jid}/args`, { type, tgt, name, args });
}

const TARGET = [
  { name: 'tgt', type: 'any', required: true, doc: 'the target expression' },
  { name: 'tgt_type', type: 'string', default: 'glob', doc: 'glob, pcre, list, grain, compound, nodegroup, ...' },
  { name: 'ssh', type: 'bool', default: false, doc: 'salt-ssh is not available in brine: only false' },
  { name: 'timeout', type: 'number', doc: "seconds to wait for the minions' returns (the master's timeout by default)" },
  { name: 'batch', type: 'any', doc: "run on this many minions at a time: 2 or '25%'" },
  { name: 'fail_minions', type: 'any', doc: 'minions whose failure does not fail the step: a list or "a,b"' },
  { name: 'expect_minions', type: 'bool', doc: 'a minion that does not return fails the step (default true for salt.state, false for salt.function)' },
] as const;

const withJid = (ret: StateResult, job: StepJob): StateResult => (job.jid ? { ...ret, __jid__: job.jid } : ret);

function sshRefused(name: string): StateResult {
  return { name, result: false, changes: {}, comment: 'salt-ssh is not available in brine; remove ssh: True (brine reaches minions through the master only)' };
}

const stateParams = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the step name' },
  ...TARGET,
  { name: 'highstate', type: 'bool', doc: 'run the highstate' },
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
      else if (a.sls !== undefined && a.sls !== null) {
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
      fireArgs(run, 'state', name, a.tgt, stepArgs(arg, kwarg, a));
      const job = await publishStep(
        run.host,
        {
          tgt: a.tgt as string | string[],
          tgtType: a.tgt_type,
          fun,
          arg,
          kwarg,
          user: run.user,
          ...(a.timeout ? { timeout: a.timeout } : {}),
          ...(a.batch !== undefined && a.batch !== null ? { batch: String(a.batch) } : {}),
        },
        run.signal,
      );
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

const functionParams = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the execution function, e.g. cmd.run' },
  ...TARGET,
  { name: 'arg', type: 'any', doc: 'positional arguments: a list' },
  { name: 'kwarg', type: 'any', doc: 'keyword arguments: a mapping' },
]);

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
      const tgt = a.tgt as string | string[];
      if (ctx.test) return { name, result: null, changes: {}, comment: `Function ${name} would be executed on target ${String(tgt)}` };
      fireArgs(run, 'function', name, tgt, stepArgs(arg, kwarg, a));
      const job = await publishStep(
        run.host,
        {
          tgt,
          tgtType: a.tgt_type,
          fun: name,
          arg,
          kwarg,
          user: run.user,
          ...(a.timeout ? { timeout: a.timeout } : {}),
          ...(a.batch !== undefined && a.batch !== null ? { batch: String(a.batch) } : {}),
        },
        run.signal,
      );
      const failMinions = failMinionsOf(a.fail_minions);
      const ret: StateResult = { name, result: true, changes: {}, comment: '' };
      const changes: Record<string, unknown> = {};
      const failed = new Set<string>();
      for (const [minion, m] of job.byMinion) {
        // Salt's salt.function expects no minion by default: one that did not return is left out
        if (m.failed && a.expect_minions !== true) continue;
        if (m.retcode !== 0) {
          ret.result = false;
          failed.add(minion);
        }
        if ((m.failed || m.ret === false) && !failMinions.ids.has(minion)) failed.add(minion);
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
