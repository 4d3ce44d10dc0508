// The master's wait for returns with a fake clock (salt-reference §5.4): find_job after `timeout`,
// a running minion's wait extended by `timeout` each time it says so, [No response] for a minion
// that does not answer within gather_job_timeout or says it is not running the job.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/util/clock.js';
import { ReturnWait } from '../../../src/master/return-wait.js';

function setup(minions: string[], opts = { timeoutMs: 5000, gatherMs: 10_000 }, connected: (id: string) => boolean = () => true) {
  const clock = new FakeClock();
  const asked: Array<[number, string]> = [];
  let done: string[] | undefined;
  let doneAt: number | undefined;
  const start = clock.now();
  const wait = new ReturnWait(clock, minions, opts, {
    askStatus: (id) => {
      asked.push([clock.now() - start, id]);
      return connected(id);
    },
    onDone: (noResponse) => {
      assert.equal(done, undefined, 'onDone is called once');
      done = noResponse;
      doneAt = clock.now() - start;
    },
  });
  wait.start();
  return { clock, wait, asked, result: () => ({ done, doneAt }) };
}

describe('ReturnWait', () => {
  it('ends as soon as every minion returned, without asking anyone', () => {
    const { clock, wait, asked, result } = setup(['a', 'b']);
    clock.advance(1000);
    assert.equal(wait.returned('a'), true);
    assert.equal(result().done, undefined);
    assert.equal(wait.returned('b'), true);
    assert.deepEqual(result(), { done: [], doneAt: 1000 });
    assert.deepEqual(asked, []);
    assert.equal(wait.returned('a'), false, 'a second return is not waited for');
    assert.equal(clock.pending, 0, 'no timer left behind');
  });

  it('asks only the missing minions when timeout expires', () => {
    const { clock, wait, asked } = setup(['a', 'b', 'c']);
    wait.returned('b');
    clock.advance(4999);
    assert.deepEqual(asked, []);
    clock.advance(1);
    assert.deepEqual(asked, [
      [5000, 'a'],
      [5000, 'c'],
    ]);
  });

  it('a minion that keeps saying "running" is waited for beyond timeout, and its return ends the wait', () => {
    const { clock, wait, asked, result } = setup(['slow']);
    clock.advance(5000);
    clock.advance(200);
    wait.status('slow', true); // extended to 5200 + 5000
    clock.advance(4999);
    assert.equal(asked.length, 1, 'not asked again before its extended deadline');
    clock.advance(1);
    assert.deepEqual(
      asked.map(([t]) => t),
      [5000, 10_200],
    );
    clock.advance(100);
    wait.status('slow', true);
    clock.advance(3000);
    wait.returned('slow');
    assert.deepEqual(result(), { done: [], doneAt: 13_300 });
  });

  it('gives up on a minion that does not answer find_job within gather_job_timeout: timeout + gather', () => {
    const { clock, wait, result } = setup(['frozen', 'fine']);
    clock.advance(2000);
    wait.returned('fine');
    clock.advance(3000 + 9999);
    assert.equal(result().done, undefined);
    clock.advance(1);
    assert.deepEqual(result(), { done: ['frozen'], doneAt: 15_000 });
  });

  it('gives up at once on a minion that answers "not running"', () => {
    const { clock, wait, result } = setup(['gone']);
    clock.advance(5000);
    clock.advance(50);
    wait.status('gone', false);
    assert.deepEqual(result(), { done: ['gone'], doneAt: 5050 });
  });

  it('gives up at once on a minion that cannot be asked (disconnected since the job was sent)', () => {
    const { clock, result } = setup(['a', 'b'], { timeoutMs: 1000, gatherMs: 10_000 }, (id) => id === 'b');
    clock.advance(1000);
    assert.equal(result().done, undefined, 'b is still being asked');
    clock.advance(10_000);
    assert.deepEqual(result(), { done: ['a', 'b'], doneAt: 11_000 });
  });

  it('ignores a status nobody asked for (it neither extends nor ends the wait)', () => {
    const { clock, wait, result } = setup(['a']);
    clock.advance(100);
    wait.status('a', false);
    wait.status('stranger', true);
    assert.equal(result().done, undefined);
    clock.advance(4900 + 10_000);
    assert.deepEqual(result(), { done: ['a'], doneAt: 15_000 });
  });

  it('reports no-response minions sorted, and cancel() ends the wait with everyone missing', () => {
    const { clock, wait, result } = setup(['c', 'a', 'b']);
    clock.advance(10);
    wait.cancel();
    assert.deepEqual(result(), { done: ['a', 'b', 'c'], doneAt: 10 });
    assert.equal(clock.pending, 0);
  });

  it('with nobody to wait for, ends at once', () => {
    const { result } = setup([]);
    assert.deepEqual(result(), { done: [], doneAt: 0 });
  });
});

describe('ReturnWait: a session lost while asking', () => {
  it('gives up at once when the minion has no session left to ask over', () => {
    let connected = true;
    const { clock, wait, result } = setup(['a'], { timeoutMs: 1000, gatherMs: 10_000 }, () => connected);
    clock.advance(1000);
    clock.advance(2000);
    connected = false;
    wait.lost('a');
    assert.deepEqual(result(), { done: ['a'], doneAt: 3000 });
  });

  it('asks again over the new session of a minion that reconnected, with a fresh window', () => {
    const { clock, wait, asked, result } = setup(['a'], { timeoutMs: 1000, gatherMs: 10_000 });
    clock.advance(1000);
    clock.advance(500);
    wait.lost('a');
    assert.deepEqual(
      asked.map(([t]) => t),
      [1000, 1500],
    );
    clock.advance(9999);
    assert.equal(result().done, undefined);
    wait.status('a', true);
    wait.returned('a');
    assert.deepEqual(result(), { done: [], doneAt: 11_499 });
  });

  it('ignores a lost session before the minion was asked (its return may still come by timeout)', () => {
    const { clock, wait, asked } = setup(['a'], { timeoutMs: 1000, gatherMs: 10_000 });
    clock.advance(200);
    wait.lost('a');
    assert.equal(asked.length, 0);
    clock.advance(800);
    assert.deepEqual(
      asked.map(([t]) => t),
      [1000],
    );
  });
});
