// What a job came to (src/api/job-outcomes.ts, issue 26 point 1): a failing cmd.run (retcode != 0)
// or a False state is failed, an expected minion without a return is running, not connected or
// did not return, and the job's status follows (running, failed, partial, ok); a minion's last
// highstate is its newest state.apply / state.highstate return.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jobStatus, jobView, lastHighstates, minionOutcomes, returnFailed, stateCounts } from '../../../src/api/job-outcomes.js';
import type { JobRecord, ReturnRecord } from '../../../src/jobs/index.js';

const T0 = 1_796_000_000_000;

function job(jid: string, fun: string, minions: string[], extra: Partial<JobRecord> = {}): JobRecord {
  return { jid, fun, arg: [], kwarg: {}, tgt: '*', tgtType: 'glob', user: 'ops', minions, startedAt: T0, ...extra };
}

function ret(jid: string, minion: string, value: unknown, retcode = 0, extra: Partial<ReturnRecord> = {}): ReturnRecord {
  return { jid, minion, fun: 'x', return: value, retcode, success: retcode === 0, receivedAt: T0 + 1000, ...extra };
}

const chunk = (result: boolean | null, changes: Record<string, unknown> = {}) => ({ result, changes, comment: '', name: 'n', __run_num__: 0 });

describe('job outcomes', () => {
  it('a non-zero retcode, success false, an error or a False state is a failure; True and None states are not', () => {
    assert.equal(returnFailed(ret('1', 'a', 'out', 1)), true, 'cmd.run exiting 1');
    assert.equal(returnFailed(ret('1', 'a', 'out', 0, { success: false })), true);
    assert.equal(returnFailed(ret('1', 'a', null, 0, { error: { code: 'X', message: 'm' } })), true);
    assert.equal(returnFailed(ret('1', 'a', { 'cmd_|-f_|-f_|-run': chunk(false) })), true, 'a False state even with retcode 0');
    assert.equal(returnFailed(ret('1', 'a', { 'cmd_|-f_|-f_|-run': chunk(true), 'test_|-t_|-t_|-nop': chunk(null) })), false);
    assert.equal(returnFailed(ret('1', 'a', { result: false })), false, "a module's own mapping with a result key is not a state run");
    assert.equal(returnFailed(ret('1', 'a', true)), false);
  });

  it('counts a state run as the highstate summary does', () => {
    assert.deepEqual(stateCounts({ a: chunk(true, { diff: 'x' }), b: chunk(false, { retcode: 3 }), c: chunk(true), d: chunk(null, { x: 1 }) }), { succeeded: 2, failed: 1, changed: 2, pending: 1 });
    assert.equal(stateCounts('text'), undefined);
    assert.equal(stateCounts({}), undefined);
  });

  it('an expected minion without a return is running while the job is awaited, then did not return; not connected either way', () => {
    const j = job('20261207000000000001', 'test.sleep', ['a', 'b', 'c', 'd']);
    const rets = [ret(j.jid, 'a', true), ret(j.jid, 'b', 'boom', 2)];
    const connected = (id: string) => id !== 'd';
    assert.deepEqual(minionOutcomes(j, rets, { active: true, connected }), { a: 'ok', b: 'failed', c: 'running', d: 'not_connected' });
    assert.deepEqual(minionOutcomes(j, rets, { active: false, connected }), { a: 'ok', b: 'failed', c: 'no_return', d: 'not_connected' });
  });

  it('the job is running while awaited, then failed before partial before ok', () => {
    assert.equal(jobStatus({ a: 'failed' }, true), 'running');
    assert.equal(jobStatus({ a: 'ok', b: 'failed', c: 'no_return' }, false), 'failed');
    assert.equal(jobStatus({ a: 'ok', c: 'not_connected' }, false), 'partial');
    assert.equal(jobStatus({ a: 'ok', c: 'no_return' }, false), 'partial');
    assert.equal(jobStatus({ a: 'ok' }, false), 'ok');
  });

  it('a job view carries the counts, Salt arguments and StartTime, and the minions only when asked', () => {
    const j = job('20261207000000000002', 'cmd.run', ['a', 'b'], { arg: ['false'], kwarg: { cwd: '/tmp' } });
    const v = jobView(j, [ret(j.jid, 'a', '', 1)], { active: false, connected: () => true }, true);
    assert.equal(v.status, 'failed');
    assert.deepEqual([v.expected, v.returned, v.failed], [2, 1, 1]);
    assert.deepEqual(v.arguments, ['false', { cwd: '/tmp', __kwarg__: true }]);
    assert.match(v.StartTime, /^\d{4}, [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
    assert.deepEqual(v.minions, { a: 'failed', b: 'no_return' });
    assert.equal(jobView(j, [], { active: true, connected: () => true }, false).minions, undefined);
  });

  it("a minion's last highstate is its newest state.apply or state.highstate; state.sls and other functions do not count", () => {
    const newest = job('20261207000000000005', 'state.apply', ['a', 'b']);
    const sls = job('20261207000000000004', 'state.sls', ['a']);
    const older = job('20261207000000000003', 'state.highstate', ['a', 'c']);
    const returns: Record<string, ReturnRecord[]> = {
      [newest.jid]: [ret(newest.jid, 'a', { s: chunk(true, { x: 1 }) })],
      [sls.jid]: [ret(sls.jid, 'a', { s: chunk(false) }, 2)],
      [older.jid]: [ret(older.jid, 'a', { s: chunk(false) }, 2), ret(older.jid, 'c', { s: chunk(true) })],
    };
    const last = lastHighstates([newest, sls, older], (jid) => returns[jid] ?? []);
    assert.deepEqual(Object.keys(last).sort(), ['a', 'c']);
    assert.equal(last.a?.jid, newest.jid);
    assert.equal(last.a?.result, 'changed');
    assert.equal(last.c?.result, 'ok');
    assert.equal(lastHighstates([older], (jid) => returns[jid] ?? []).a?.result, 'failed');
  });
});
