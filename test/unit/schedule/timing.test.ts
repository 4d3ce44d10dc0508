// The scheduler's timing with a fake clock: intervals, splay bounds, range, maxrunning,
// run_on_start, cron and when next fire times, enable/disable and pillar merging.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { Scheduler, parseEntry, nextBase, splaySeconds, type ScheduleEntry } from '../../../src/schedule/index.js';
import { settle } from '../../helpers/wait.js';

const START = new Date(2026, 5, 15, 12, 0, 0).getTime(); // a Monday, local time

interface Harness {
  clock: FakeClock;
  scheduler: Scheduler;
  runs: Array<{ name: string; at: number }>;
  /** Resolves the oldest run still in progress. */
  finish(): void;
}

function harness(schedule: Record<string, unknown>, opts: { hold?: boolean; random?: () => number; pillar?: Record<string, unknown> } = {}): Harness {
  const clock = new FakeClock(START);
  const runs: Harness['runs'] = [];
  const pending: Array<() => void> = [];
  const scheduler = new Scheduler({
    clock,
    logger: silentLogger(),
    random: opts.random ?? (() => 0),
    run: (entry: ScheduleEntry) => {
      runs.push({ name: entry.name, at: clock.now() - START });
      return opts.hold ? new Promise<void>((resolve) => pending.push(resolve)) : undefined;
    },
  });
  scheduler.setConfig(schedule);
  if (opts.pillar) scheduler.setPillar(opts.pillar);
  scheduler.start();
  return { clock, scheduler, runs, finish: () => pending.shift()?.() };
}

const at = (h: Harness, name: string) => h.runs.filter((r) => r.name === name).map((r) => r.at / 1000);

describe('scheduler timing (fake clock)', () => {
  it('runs an interval job every N seconds, first after N seconds (run_on_start false)', () => {
    const h = harness({ j: { function: 'test.ping', seconds: 10 } });
    h.clock.advance(35_000);
    assert.deepEqual(at(h, 'j'), [10, 20, 30]);
    h.scheduler.stop();
  });

  it('run_on_start runs at start, then continues the interval from it', () => {
    const h = harness({ j: { function: 'test.ping', seconds: 10, run_on_start: true } });
    h.clock.advance(25_000);
    assert.deepEqual(at(h, 'j'), [0, 10, 20]);
    h.scheduler.stop();
  });

  it('splay delays each run within its bounds and does not shift the base', () => {
    const rolls = [0.99, 0, 0.5];
    const h = harness({ j: { function: 'test.ping', seconds: 10, splay: 4 } }, { random: () => rolls.shift() ?? 0 });
    h.clock.advance(35_000);
    // 0.99 -> +4 s, 0 -> +0, 0.5 -> +2 (floor(0.5*5))
    assert.deepEqual(at(h, 'j'), [14, 20, 32]);
    h.scheduler.stop();
  });

  it('splay {start, end} stays within [start, end]', () => {
    const e = parseEntry('j', { function: 'test.ping', seconds: 60, splay: { start: 10, end: 20 } }, START);
    for (const r of [0, 0.3, 0.999999]) {
      const s = splaySeconds(e, () => r);
      assert.ok(s >= 10 && s <= 20, `splay ${s}`);
    }
    assert.equal(
      splaySeconds(e, () => 0),
      10,
    );
    assert.equal(
      splaySeconds(e, () => 0.999999),
      20,
    );
  });

  it('range: runs only inside it, or only outside with invert', () => {
    const h = harness({
      inside: { function: 'test.ping', minutes: 30, range: { start: '12:45', end: '13:35' } },
      outside: { function: 'test.ping', minutes: 30, range: { start: '12:45', end: '13:35', invert: true } },
    });
    h.clock.advance(2 * 3600_000);
    assert.deepEqual(at(h, 'inside'), [3600, 5400]);
    assert.deepEqual(at(h, 'outside'), [1800, 7200]);
    h.scheduler.stop();
  });

  it('maxrunning: a due run is skipped while maxrunning runs are in progress', async () => {
    const h = harness({ j: { function: 'test.sleep', seconds: 2 }, two: { function: 'test.sleep', seconds: 2, maxrunning: 2 } }, { hold: true });
    h.clock.advance(6_000);
    assert.deepEqual(at(h, 'j'), [2], 'the first run still holds the only slot');
    assert.deepEqual(at(h, 'two'), [2, 4]);
    assert.match(h.scheduler.state('j')?.lastSkip ?? '', /maxrunning \(1\)/);
    for (let i = 0; i < 3; i++) h.finish();
    await settle();
    h.clock.advance(2_000);
    assert.deepEqual(at(h, 'j'), [2, 8]);
    h.scheduler.stop();
  });

  it('cron: fires at the expression times', () => {
    const h = harness({ c: { function: 'test.ping', cron: '*/15 * * * *' } });
    h.clock.advance(46 * 60_000);
    assert.deepEqual(at(h, 'c'), [15 * 60, 30 * 60, 45 * 60]);
    h.scheduler.stop();
  });

  it('when: weekday and time of day, next fire after now', () => {
    const e = parseEntry('w', { function: 'test.ping', when: ['Tuesday 9:00am', '11:00'] }, START);
    // 12:00 Monday: 11:00 has passed, so Tuesday 9:00 comes before Tuesday 11:00
    assert.equal(nextBase(e, START, undefined), new Date(2026, 5, 16, 9, 0, 0).getTime());
    const once = parseEntry('o', { function: 'test.ping', once: '2026-06-15T12:00:05' }, START);
    assert.equal(nextBase(once, START, undefined), START + 5000);
    assert.equal(nextBase(once, START + 5000, START + 5000), undefined, 'once fires once');
  });

  it('until and after bound the runs', () => {
    const h = harness({ j: { function: 'test.ping', seconds: 10, after: '2026-06-15 12:00:15', until: '2026-06-15 12:00:45' } });
    h.clock.advance(60_000);
    assert.deepEqual(at(h, 'j'), [20, 30, 40]);
    h.scheduler.stop();
  });

  it('disabled jobs and a disabled scheduler skip; run_job force runs anyway', () => {
    const h = harness({ j: { function: 'test.ping', seconds: 10, enabled: false }, k: { function: 'test.ping', seconds: 10 } });
    h.clock.advance(10_000);
    assert.deepEqual(at(h, 'j'), []);
    assert.deepEqual(at(h, 'k'), [10]);
    h.scheduler.setEnabled(false);
    h.clock.advance(10_000);
    assert.deepEqual(at(h, 'k'), [10]);
    assert.match(h.scheduler.runNow('k', false) ?? '', /scheduler is disabled/);
    assert.equal(h.scheduler.runNow('j', true), undefined);
    assert.deepEqual(at(h, 'j'), [20]);
    h.scheduler.stop();
  });

  it('a bad entry is reported by name and the others still run', () => {
    const h = harness({ bad: { function: 'test.ping', seconds: 0 }, typo: { function: 'test.ping', seconds: 5, maxruning: 2 }, good: { function: 'test.ping', seconds: 5 } });
    h.clock.advance(10_000);
    assert.deepEqual(at(h, 'good'), [5, 10]);
    assert.deepEqual([...h.scheduler.errors().keys()].sort(), ['bad', 'typo']);
    assert.match(h.scheduler.errors().get('typo')!.message, /did you mean 'maxrunning'/);
    h.scheduler.stop();
  });

  it("pillar jobs run; the minion's own schedule wins a name clash; a pillar change keeps unchanged jobs' timing", () => {
    const h = harness({ same: { function: 'test.ping', seconds: 10 } }, { pillar: { same: { function: 'test.echo', seconds: 3 }, p: { function: 'test.ping', seconds: 4 } } });
    h.clock.advance(8_000);
    assert.deepEqual(at(h, 'p'), [4, 8]);
    assert.equal(h.scheduler.entry('same')?.function, 'test.ping');
    h.scheduler.setPillar({ p: { function: 'test.ping', seconds: 4 }, q: { function: 'test.ping', seconds: 1 } });
    h.clock.advance(4_000);
    assert.deepEqual(at(h, 'p'), [4, 8, 12], 'p keeps its 4 s rhythm across the pillar change');
    assert.deepEqual(at(h, 'q'), [9, 10, 11, 12]);
    h.scheduler.setPillar({});
    h.clock.advance(4_000);
    assert.deepEqual(at(h, 'p'), [4, 8, 12], 'a job removed from pillar stops');
    h.scheduler.stop();
  });

  it('stop() leaves no timer behind', () => {
    const h = harness({ j: { function: 'test.ping', seconds: 1 } });
    h.scheduler.stop();
    assert.equal(h.clock.pending, 0);
  });
});
