// Batch mode (salt-reference §5.6): -b parsing and sizing (N% floors but is at least 1), the
// sliding window and its order, --batch-wait, --failhard, and the other run helpers: the summary
// block, newline_values_only, --static documents and the jid pre-check.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { batchSize, checkJidArgs, parseBatch, parseBatchWait, runBatch, summaryText } from '../../../src/cli/run/index.js';
import { formatReturn, formatStatic, noReturn, type MinionOutcome } from '../../../src/cli/output/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('parseBatch and batchSize', () => {
  it('accepts counts and percentages', () => {
    assert.deepEqual(parseBatch('3'), { count: 3 });
    assert.deepEqual(parseBatch('25%'), { percent: 25 });
    assert.deepEqual(parseBatch('12.5%'), { percent: 12.5 });
    assert.deepEqual(parseBatch('100%'), { percent: 100 });
  });

  for (const bad of ['0', '0%', '150%', '100.1%', '-1', 'x', '', '5%%', '1.5']) {
    it(`refuses ${JSON.stringify(bad)} with INVALID_BATCH (exit 2)`, () => {
      assert.throws(
        () => parseBatch(bad),
        (e: unknown) => isBrineError(e, 'INVALID_BATCH') && e.exitCode === 2 && e.message.includes('-b/--batch'),
      );
    });
  }

  it('refuses a negative or non-numeric --batch-wait', () => {
    assert.equal(parseBatchWait(undefined), 0);
    assert.equal(parseBatchWait('1.5'), 1.5);
    assert.throws(
      () => parseBatchWait('-1'),
      (e: unknown) => isBrineError(e, 'INVALID_BATCH'),
    );
    assert.throws(
      () => parseBatchWait('soon'),
      (e: unknown) => isBrineError(e, 'INVALID_BATCH'),
    );
  });

  it('N% is floor(N/100 x responders) but at least 1; a count above the responders is all of them', () => {
    assert.equal(batchSize({ percent: 50 }, 5), 2);
    assert.equal(batchSize({ percent: 10 }, 5), 1);
    assert.equal(batchSize({ percent: 1 }, 3), 1);
    assert.equal(batchSize({ percent: 100 }, 7), 7);
    assert.equal(batchSize({ percent: 34 }, 6), 2);
    assert.equal(batchSize({ count: 2 }, 5), 2);
    assert.equal(batchSize({ count: 9 }, 5), 5);
    assert.equal(batchSize({ count: 2 }, 0), 0);
  });
});

/** A scripted batch: each started minion waits until the test finishes it. */
function harness(minions: string[], size: number, opts: { waitS?: number; failhard?: boolean } = {}) {
  const announced: string[][] = [];
  const finishers = new Map<string, (rc: number) => void>();
  let time = 0;
  const sleepers: Array<{ at: number; resolve: () => void }> = [];
  const result = runBatch({
    minions,
    size,
    waitS: opts.waitS ?? 0,
    failhard: opts.failhard ?? false,
    announce: (g) => void announced.push(g),
    runGroup: (group, done) =>
      new Promise<void>((resolve) => {
        let left = group.length;
        for (const id of group) {
          finishers.set(id, (rc) => {
            done(id, rc);
            if (--left === 0) resolve();
          });
        }
      }),
    now: () => time,
    sleep: (ms) => new Promise<void>((resolve) => sleepers.push({ at: time + ms, resolve })),
  });
  return {
    announced,
    result,
    finish: async (id: string, rc = 0) => {
      finishers.get(id)!(rc);
      await flush();
    },
    advance: async (ms: number) => {
      time += ms;
      for (const s of sleepers.splice(0))
        if (s.at <= time) s.resolve();
        else sleepers.push(s);
      await flush();
    },
  };
}

describe('runBatch', () => {
  it('keeps N running: the next minion starts as soon as one finishes, in order; retcode is the highest', async () => {
    const h = harness(['a', 'b', 'c', 'd', 'e'], 2);
    await flush();
    assert.deepEqual(h.announced, [['a', 'b']]);
    await h.finish('b', 0);
    assert.deepEqual(h.announced, [['a', 'b'], ['c']]);
    await h.finish('a', 3);
    await h.finish('c', 0);
    assert.deepEqual(h.announced, [['a', 'b'], ['c'], ['d'], ['e']]);
    await h.finish('d', 1);
    await h.finish('e', 0);
    assert.deepEqual(await h.result, { retcode: 3 });
  });

  it('--batch-wait keeps a finished slot closed for that long', async () => {
    const h = harness(['a', 'b', 'c'], 1, { waitS: 2 });
    await flush();
    await h.finish('a');
    assert.deepEqual(h.announced, [['a']], 'b waits for the slot to reopen');
    await h.advance(1999);
    assert.deepEqual(h.announced, [['a']]);
    await h.advance(1);
    assert.deepEqual(h.announced, [['a'], ['b']]);
    await h.finish('b');
    await h.advance(2000);
    await h.finish('c');
    assert.deepEqual(await h.result, { retcode: 0 });
  });

  it('--failhard starts nobody after the first non-zero retcode and names that minion', async () => {
    const h = harness(['a', 'b', 'c', 'd'], 2, { failhard: true });
    await flush();
    await h.finish('a', 0);
    assert.deepEqual(h.announced, [['a', 'b'], ['c']]);
    await h.finish('c', 2);
    const r = await h.result;
    assert.deepEqual(r, { retcode: 2, failedHard: 'c' });
    assert.deepEqual(h.announced, [['a', 'b'], ['c']], 'd never started');
  });

  it('starts everyone at once when the batch is as large as the list', async () => {
    const h = harness(['x', 'y'], 5);
    await flush();
    assert.deepEqual(h.announced, [['x', 'y']]);
    await h.finish('x');
    await h.finish('y');
    assert.deepEqual(await h.result, { retcode: 0 });
  });
});

describe('summaryText', () => {
  const outcomes = new Map<string, MinionOutcome>([
    ['a', { return: true, retcode: 0 }],
    ['b', { return: 'boom', retcode: 2 }],
    ['c', { return: noReturn('not_connected'), retcode: 1 }],
    ['d', { return: noReturn('no_response', 'hint'), retcode: 1 }],
    ['e', { return: false, retcode: 0 }],
  ]);

  it("prints Salt's block with the counts", () => {
    assert.equal(
      summaryText(outcomes, false),
      '\n\n-------------------------------------------\nSummary\n-------------------------------------------\n# of minions targeted: 5\n# of minions returned: 3\n# of minions that did not return: 2\n# of minions with errors: 2\n-------------------------------------------\n',
    );
  });

  it('adds the minion lists with -v', () => {
    const text = summaryText(outcomes, true);
    assert.match(text, /^Minions not connected: c$/m);
    assert.match(text, /^Minions not responding: d$/m);
    assert.match(text, /^Minions with failures: b e$/m);
  });
});

describe('outputters for run', () => {
  it('newline_values_only prints values without IDs, one list item per line', () => {
    assert.equal(formatReturn('newline_values_only', 'a', 'hello', { color: false }), 'hello');
    assert.equal(formatReturn('newline_values_only', 'a', [1, 'two', true], { color: false }), '1\ntwo\nTrue');
    assert.equal(formatReturn('newline_values_only', 'a', { k: 'v' }, { color: false }), "{'k': 'v'}");
  });

  it('--static json is one document holding every minion', () => {
    const text = formatStatic(
      'json',
      new Map<string, unknown>([
        ['a', true],
        ['b', noReturn('not_connected')],
      ]),
      { color: false },
    );
    assert.deepEqual(JSON.parse(text), { a: true, b: 'Minion did not return. [Not connected]' });
    assert.equal(
      formatStatic(
        'nested',
        new Map<string, unknown>([
          ['a', true],
          ['b', 1],
        ]),
        { color: false },
      ),
      'a:\n    True\nb:\n    1\n',
    );
  });
});

describe('checkJidArgs', () => {
  it('refuses a saltutil jid argument that is not a jid, by position or as jid=', () => {
    for (const [arg, kwarg] of [
      [['../../x'], {}],
      [[], { jid: '123' }],
      [[12345], {}],
    ] as const) {
      assert.throws(
        () => checkJidArgs('saltutil.kill_job', arg, kwarg),
        (e: unknown) => isBrineError(e, 'INVALID_JID') && e.exitCode === 2,
      );
    }
    checkJidArgs('saltutil.find_job', ['20250101000000000001'], {});
    checkJidArgs('test.echo', ['not-a-jid'], {});
  });
});
