// event_return's batching (Salt's EventReturn) with a fake clock: event_return_queue events per
// batch, event_return_queue_max_seconds as the longest wait, white/blacklists on the tag, batches
// handed over in order, a failing batch dropped without stopping the next, and close() handing over
// what is queued.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventReturnQueue, type ReturnedEvent } from '../../../src/returners/index.js';
import { FakeClock } from '../../../src/util/clock.js';

function queue(over: { queueSize?: number; maxSeconds?: number; whitelist?: string[]; blacklist?: string[]; fail?: (batch: readonly ReturnedEvent[]) => boolean } = {}) {
  const clock = new FakeClock();
  const batches: string[][] = [];
  const q = new EventReturnQueue({
    clock,
    queueSize: over.queueSize ?? 0,
    maxSeconds: over.maxSeconds ?? 0,
    whitelist: over.whitelist ?? [],
    blacklist: over.blacklist ?? [],
    flush: async (batch) => {
      await new Promise((r) => setImmediate(r));
      batches.push(batch.map((e) => e.tag));
      if (over.fail?.(batch)) throw new Error('store down');
    },
  });
  const add = (...tags: string[]) => {
    for (const tag of tags) q.add({ tag, data: {} });
  };
  return { q, clock, batches, add };
}

const settle = () => new Promise((r) => setTimeout(r, 5));

describe('EventReturnQueue', () => {
  it('event_return_queue 0 hands each event over at once', async () => {
    const { q, batches, add } = queue();
    add('a', 'b');
    await q.close();
    assert.deepEqual(batches, [['a'], ['b']]);
  });

  it('event_return_queue N sends batches of N; close() sends the rest', async () => {
    const { q, batches, add } = queue({ queueSize: 3 });
    add('1', '2');
    await settle();
    assert.deepEqual(batches, [], 'two of three: still queued');
    add('3', '4');
    await settle();
    assert.deepEqual(batches, [['1', '2', '3']]);
    assert.equal(q.queued, 1);
    await q.close();
    assert.deepEqual(batches, [['1', '2', '3'], ['4']]);
    add('5');
    await q.close();
    assert.equal(batches.length, 2, 'nothing is taken after close');
  });

  it('event_return_queue_max_seconds flushes a partial batch once its oldest event waited that long', async () => {
    const { q, clock, batches, add } = queue({ queueSize: 100, maxSeconds: 5 });
    add('a');
    clock.advance(3000);
    add('b');
    clock.advance(1999);
    await settle();
    assert.deepEqual(batches, []);
    clock.advance(1);
    await settle();
    assert.deepEqual(batches, [['a', 'b']]);
    add('c');
    clock.advance(4999);
    await settle();
    assert.deepEqual(batches.length, 1, 'a new timer for the next batch');
    clock.advance(1);
    await settle();
    assert.deepEqual(batches, [['a', 'b'], ['c']]);
    await q.close();
  });

  it('the whitelist admits only matching tags; the blacklist drops matching ones', async () => {
    const { q, batches, add } = queue({ whitelist: ['salt/job/*'], blacklist: ['salt/job/*/new'] });
    add('salt/job/1/new', 'salt/job/1/ret/web1', 'salt/auth', 'minion_start');
    await q.close();
    assert.deepEqual(batches, [['salt/job/1/ret/web1']]);
    assert.equal(q.passes('salt/auth'), false);
  });

  it('a failing batch is dropped and the next one still goes, in order', async () => {
    const { q, batches, add } = queue({ fail: (b) => b[0]?.tag === 'bad' });
    add('bad', 'good1', 'good2');
    await q.close();
    assert.deepEqual(batches, [['bad'], ['good1'], ['good2']]);
  });
});
