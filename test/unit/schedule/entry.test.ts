// Reading schedule entries: Salt's fields, the interval sum, and a coded SCHEDULE_INVALID error
// naming the job and the field for every way an entry can be wrong.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseEntry } from '../../../src/schedule/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const NOW = new Date(2026, 5, 15, 12, 0, 0).getTime();

function refused(name: string, value: unknown, field: string | undefined, pattern: RegExp): void {
  assert.throws(
    () => parseEntry(name, value, NOW),
    (err: unknown) => {
      assert.ok(isBrineError(err), 'a BrineError');
      assert.equal(err.code, 'SCHEDULE_INVALID');
      assert.match(err.message, new RegExp(`schedule job '${name}'`));
      if (field !== undefined) assert.match(err.message, new RegExp(`field '${field}'`));
      assert.match(err.message, pattern);
      return true;
    },
  );
}

describe('parseEntry', () => {
  it('sums seconds, minutes, hours and days, with Salt defaults for the rest', () => {
    const e = parseEntry('job1', { function: 'test.ping', seconds: 5, minutes: 1, hours: 1, days: 1 }, NOW);
    assert.deepEqual(e.timing, { kind: 'interval', seconds: 5 + 60 + 3600 + 86_400 });
    assert.equal(e.maxrunning, 1);
    assert.equal(e.enabled, true);
    assert.equal(e.returnJob, true);
    assert.equal(e.runOnStart, false);
    assert.deepEqual(e.args, []);
    assert.deepEqual(e.kwargs, {});
  });

  it('takes args/kwargs, and schedule.add spelling job_args/job_kwargs', () => {
    const a = parseEntry('j', { function: 'cmd.run', args: ['echo hi'], kwargs: { shell: '/bin/sh' }, seconds: 1 }, NOW);
    assert.deepEqual([a.args, a.kwargs], [['echo hi'], { shell: '/bin/sh' }]);
    const b = parseEntry('j', { function: 'cmd.run', job_args: ['x'], job_kwargs: { y: 1 }, seconds: 1 }, NOW);
    assert.deepEqual([b.args, b.kwargs], [['x'], { y: 1 }]);
  });

  it('refuses an unknown field with a did-you-mean', () => {
    refused('job1', { function: 'test.ping', seconds: 5, splya: 3 }, 'splya', /did you mean 'splay'\?/);
    refused('job1', { function: 'test.ping', secnds: 5 }, 'secnds', /did you mean 'seconds'\?/);
  });

  it("takes Salt's returner (a name, comma-separated names or a list) with return_config and return_kwargs; refuses other shapes", () => {
    assert.deepEqual(parseEntry('j', { function: 'test.ping', seconds: 5 }, NOW).returner, []);
    assert.deepEqual(parseEntry('j', { function: 'test.ping', seconds: 5, returner: 'syslog, postgres' }, NOW).returner, ['syslog', 'postgres']);
    const e = parseEntry('j', { function: 'test.ping', seconds: 5, returner: ['postgres'], return_config: 'alt', return_kwargs: { db: 'other' } }, NOW);
    assert.deepEqual([e.returner, e.returnConfig, e.returnKwargs], [['postgres'], 'alt', { db: 'other' }]);
    refused('j', { function: 'test.ping', seconds: 5, returner: { postgres: true } }, 'returner', /returner name or a list/);
    refused('j', { function: 'test.ping', seconds: 5, returner: 'postgres', return_kwargs: 'db=x' }, 'return_kwargs', /must be a mapping/);
  });

  it('refuses impossible intervals: 0, negative, not a number', () => {
    refused('zero', { function: 'test.ping', seconds: 0 }, 'seconds', /more than 0/);
    refused('neg', { function: 'test.ping', minutes: -1 }, 'minutes', /negative/);
    refused('nan', { function: 'test.ping', seconds: 'often' }, 'seconds', /must be a number/);
  });

  it('refuses an entry with no time, or with two kinds of time', () => {
    refused('none', { function: 'test.ping' }, undefined, /has no time/);
    refused('both', { function: 'test.ping', seconds: 5, cron: '* * * * *' }, undefined, /together/);
  });

  it('refuses a cron expression that is malformed or never fires', () => {
    refused('c1', { function: 'test.ping', cron: 'every day' }, 'cron', /not a cron expression/);
    refused('c2', { function: 'test.ping', cron: '0 0 30 2 *' }, 'cron', /never fires/);
    assert.equal(parseEntry('c3', { function: 'test.ping', cron: '*/5 * * * *' }, NOW).timing.kind, 'cron');
  });

  it('checks function, args, kwargs, maxrunning, splay and range', () => {
    refused('f', { function: 'ping', seconds: 1 }, 'function', /execution function/);
    refused('a', { function: 'test.ping', seconds: 1, args: 'x' }, 'args', /list/);
    refused('k', { function: 'test.ping', seconds: 1, kwargs: [] }, 'kwargs', /mapping/);
    refused('m', { function: 'test.ping', seconds: 1, maxrunning: 0 }, 'maxrunning', /at least 1/);
    refused('s', { function: 'test.ping', seconds: 1, splay: { start: 10, end: 5 } }, 'splay', /below start/);
    refused('r', { function: 'test.ping', seconds: 1, range: { start: 'noon', end: '5pm' } }, 'range', /start and end must be times/);
    refused('w', { function: 'test.ping', when: 'whenever' }, 'when', /cannot read/);
    refused('n', 'test.ping', undefined, /must be a mapping/);
  });

  it('reads when, once, until and after', () => {
    const w = parseEntry('w', { function: 'test.ping', when: ['Monday 5:00pm', '17:30', '2026-12-31 23:00'] }, NOW);
    assert.equal(w.timing.kind, 'when');
    const o = parseEntry('o', { function: 'test.ping', once: '2026-06-15T13:00:00' }, NOW);
    assert.deepEqual(o.timing, { kind: 'once', at: new Date(2026, 5, 15, 13, 0, 0).getTime() });
    refused('u', { function: 'test.ping', seconds: 1, until: '2026-01-01', after: '2026-02-01' }, 'until', /never run/);
  });
});

describe('time strings', () => {
  it('reads 12-hour and 24-hour times, refuses nonsense', async () => {
    const { parseTimeOfDay, parseDateTime, inRange } = await import('../../../src/schedule/time-spec.js');
    assert.equal(parseTimeOfDay('5:00pm'), 17 * 3600);
    assert.equal(parseTimeOfDay('12:30am'), 30 * 60);
    assert.equal(parseTimeOfDay('17:00:30'), 17 * 3600 + 30);
    assert.equal(parseTimeOfDay('5pm'), 17 * 3600);
    for (const bad of ['17', '25:00', '13:00pm', '5:60', 'noon']) assert.equal(parseTimeOfDay(bad), undefined, bad);
    assert.equal(parseDateTime('2026-02-31 10:00'), undefined, 'no 31 February');
    assert.equal(parseDateTime('2026-02-28T10:00:00'), new Date(2026, 1, 28, 10).getTime());
    // a daily range across midnight
    const night = { start: { kind: 'daily' as const, seconds: 22 * 3600 }, end: { kind: 'daily' as const, seconds: 6 * 3600 } };
    assert.equal(inRange(night.start, night.end, new Date(2026, 5, 15, 23, 0).getTime()), true);
    assert.equal(inRange(night.start, night.end, new Date(2026, 5, 15, 5, 0).getTime()), true);
    assert.equal(inRange(night.start, night.end, new Date(2026, 5, 15, 12, 0).getTime()), false);
  });
});
