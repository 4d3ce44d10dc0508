// brine call through the daemon (control-call.ts) against a recording host: no ready link is
// MINION_NO_MASTER at once, naming each master and why; the pillar is fetched before the function
// runs; the return goes to the master marked as a call unless noReturnEvent or masterless; a
// caller that goes away stops the job.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BrineError } from '../../../src/util/errors.js';
import type { Job, MinionCallRequest, Return } from '../../../src/protocol/index.js';
import { noMasterError, runControlCall, type ControlCallHost } from '../../../src/minion/control-call.js';
import type { MinionLink } from '../../../src/minion/minion-link.js';
import type { LinkState } from '../../../src/session/index.js';

/** A link as the contract declares it: no cast needed. */
function link(host: string, ready: boolean, state: LinkState = ready ? 'ready' : 'waiting'): MinionLink {
  return { endpoint: { host, port: 4506 }, state, ready, attempts: 1, connection: undefined, send: () => true, start: () => undefined, stop: () => undefined };
}

const REQ: MinionCallRequest = { t: 'minion_call', fun: 'state.apply', arg: ['web'], kwarg: { test: true } };

interface Recorded {
  steps: string[];
  delivered: Return[];
  killed: string[];
}

function host(over: Partial<ControlCallHost> = {}, run?: (job: Job) => Promise<Return>): { host: ControlCallHost; rec: Recorded } {
  const rec: Recorded = { steps: [], delivered: [], killed: [] };
  const h: ControlCallHost = {
    id: 'web1',
    masterless: false,
    links: () => [link('salt', true)],
    lastDown: () => undefined,
    newJid: () => '20261206210000000001',
    refreshPillar: async () => void rec.steps.push('pillar'),
    run:
      run ??
      (async (job) => {
        rec.steps.push(`run ${job.fun} ${job.jid} ${job.tgt}`);
        return { t: 'return', jid: job.jid, fun: job.fun, ret: { ok: 1 }, retcode: 2, success: false, error: { code: 'EXEC_FAILED', message: 'one state failed' } };
      }),
    kill: (jid) => {
      rec.killed.push(jid);
      return true;
    },
    deliver: (ret) => void rec.delivered.push(ret),
    ...over,
  };
  return { host: h, rec };
}

describe('noMasterError', () => {
  it('is undefined while any link is ready', () => {
    assert.equal(
      noMasterError('web1', [link('a', false), link('b', true)], () => undefined),
      undefined,
    );
  });

  it('names every master, its state and why it went down, and says what to do', () => {
    const e = noMasterError('web1', [link('a', false), link('b', false, 'connecting')], (l) => (l.endpoint.host === 'a' ? 'peer_closed' : undefined));
    assert.ok(e instanceof BrineError);
    assert.equal(e.code, 'MINION_NO_MASTER');
    assert.match(e.message, /the minion web1 is not connected to its master a:4506 \(waiting, last: peer_closed\), b:4506 \(connecting\)/);
    assert.match(e.message, /--local/);
  });

  it('with no link yet (NATS still connecting) says so instead of naming none', () => {
    assert.match(noMasterError('web1', [], () => undefined)!.message, /not connected to a master yet/);
  });
});

describe('runControlCall', () => {
  it('fetches the pillar, runs the function as a job of this minion, and sends the return marked as a call', async () => {
    const { host: h, rec } = host();
    const reply = await runControlCall(h, REQ, new AbortController().signal);
    assert.deepEqual(rec.steps, ['pillar', 'run state.apply 20261206210000000001 web1']);
    assert.deepEqual(reply, { t: 'call_return', jid: '20261206210000000001', ret: { ok: 1 }, retcode: 2, success: false, error: { code: 'EXEC_FAILED', message: 'one state failed' } });
    assert.equal(rec.delivered.length, 1);
    assert.deepEqual(rec.delivered[0]!.call, { arg: ['web'], kwarg: { test: true } });
    assert.equal(rec.delivered[0]!.retcode, 2);
  });

  it('noReturnEvent: nothing goes to the master', async () => {
    const { host: h, rec } = host();
    await runControlCall(h, { ...REQ, noReturnEvent: true }, new AbortController().signal);
    assert.deepEqual(rec.delivered, []);
  });

  it('without a ready link: MINION_NO_MASTER before any pillar request or job', async () => {
    const { host: h, rec } = host({ links: () => [link('salt', false)], lastDown: () => 'heartbeat_timeout' });
    await assert.rejects(runControlCall(h, REQ, new AbortController().signal), (e: BrineError) => e.code === 'MINION_NO_MASTER' && /salt:4506 \(waiting, last: heartbeat_timeout\)/.test(e.message));
    assert.deepEqual(rec.steps, []);
  });

  it('a pillar request the master never answers becomes MINION_NO_MASTER; a refusal keeps its code', async () => {
    const lost = host({ refreshPillar: () => Promise.reject(new BrineError('MASTER_UNREACHABLE', 'the master did not send a pillar: link down')) });
    await assert.rejects(runControlCall(lost.host, REQ, new AbortController().signal), (e: BrineError) => e.code === 'MINION_NO_MASTER' && /link down/.test(e.message));
    const denied = host({ refreshPillar: () => Promise.reject(new BrineError('PILLAR_DENIED', 'no')) });
    await assert.rejects(runControlCall(denied.host, REQ, new AbortController().signal), (e: BrineError) => e.code === 'PILLAR_DENIED');
    assert.deepEqual(lost.rec.steps, []);
  });

  it('a masterless daemon runs the call with no link and returns nothing to a master', async () => {
    const { host: h, rec } = host({ masterless: true, links: () => [] });
    const reply = await runControlCall(h, REQ, new AbortController().signal);
    assert.equal(reply.retcode, 2);
    assert.deepEqual(rec.steps, ['pillar', 'run state.apply 20261206210000000001 web1']);
    assert.deepEqual(rec.delivered, []);
  });

  it('the caller going away kills the job by its jid', async () => {
    const cancel = new AbortController();
    let finish: (r: Return) => void = () => undefined;
    const { host: h, rec } = host({}, (job) => {
      queueMicrotask(() => cancel.abort());
      return new Promise((resolve) => (finish = (r) => resolve({ ...r, jid: job.jid })));
    });
    const pending = runControlCall(h, REQ, cancel.signal);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(rec.killed, ['20261206210000000001']);
    finish({ t: 'return', jid: '', fun: REQ.fun, ret: 'killed', retcode: 1, success: false });
    assert.equal((await pending).ret, 'killed');
  });
});
