// schedule.*'s logic over a Scheduler (fake clock): Salt's return shapes, pillar jobs protected,
// invalid fields refused with nothing changed, and the persisted file (and its failure).

import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { FakeClock } from '../../../src/util/clock.js';
import { isBrineError } from '../../../src/util/errors.js';
import { silentLogger } from '../../../src/util/logger.js';
import { listShape } from '../../../src/modules/schedule-module.js';
import { ScheduleFunctions, Scheduler, readConfiguredSchedule, scheduleFilePath, writeScheduleFile } from '../../../src/schedule/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-schedctl-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;

function setup(config: Record<string, unknown>, pillar: Record<string, unknown> = {}) {
  const dir = path.join(root, `c${n++}`);
  fs.mkdirSync(dir, { recursive: true });
  const clock = new FakeClock();
  const scheduler = new Scheduler({ clock, logger: silentLogger(), run: () => undefined, persist: (s) => writeScheduleFile(dir, s) });
  scheduler.setConfig(config);
  scheduler.setPillar(pillar);
  scheduler.start();
  const fns = new ScheduleFunctions({ scheduler, readConfigured: () => readConfiguredSchedule(dir), now: () => clock.now() });
  return { dir, clock, scheduler, fns };
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(isBrineError(err));
    return `${err.code}: ${err.message}`;
  }
  assert.fail('expected a BrineError');
}

describe('schedule.* functions', () => {
  it("list: return_yaml=False is Salt's bare {job: fields} (what salt-api front ends read); show_disabled=False drops disabled jobs", () => {
    const { fns } = setup({ a: { function: 'test.ping', seconds: 5 }, off: { function: 'test.ping', seconds: 5, enabled: false }, bad: { function: 'test.ping' } });
    const full = fns.list(false) as { schedule: Record<string, { function: string; enabled: boolean }>; _errors: object };
    assert.ok(full._errors, "the default keeps brine's _errors beside the jobs");
    const bare = listShape(fns.list(false), true, false) as Record<string, { function: string; enabled: boolean }>;
    assert.deepEqual(Object.keys(bare).sort(), ['a', 'off']);
    assert.equal(bare.a!.function, 'test.ping');
    assert.equal(bare.a!.enabled, true);
    assert.equal(bare.off!.enabled, false);
    assert.deepEqual(Object.keys(listShape(fns.list(false), false, false) as object), ['a']);
    assert.deepEqual(Object.keys((listShape(fns.list(false), false, true) as { schedule: object }).schedule), ['a']);
  });

  it('add persists, refuses an existing name, and refuses a bad entry without changing anything', () => {
    const { dir, fns, scheduler } = setup({ a: { function: 'test.ping', seconds: 5 } });
    assert.deepEqual(fns.add('b', { function: 'test.echo', job_args: ['x'], seconds: 10 }, true), { comment: 'Added job: b to schedule.', result: true, changes: { b: 'added' } });
    const saved = parse(fs.readFileSync(scheduleFilePath(dir), 'utf8')) as { schedule: Record<string, unknown> };
    assert.deepEqual(Object.keys(saved.schedule).sort(), ['a', 'b']);
    assert.equal(fs.statSync(scheduleFilePath(dir)).mode & 0o777, 0o600);
    assert.match(
      code(() => fns.add('a', { function: 'test.ping', seconds: 1 }, true)),
      /^BAD_ARGUMENTS: job a already exists/,
    );
    assert.match(
      code(() => fns.add('c', { function: 'test.ping', seconds: 1, hourz: 1 }, true)),
      /^SCHEDULE_INVALID: schedule job 'c', field 'hourz'.*did you mean 'hours'/,
    );
    assert.equal(scheduler.entry('c'), undefined);
    assert.match(
      code(() => fns.modify('a', { function: 'test.ping', cron: '0 0 31 2 *' }, true)),
      /^SCHEDULE_INVALID: .*never fires/,
    );
    assert.equal(scheduler.entry('a')?.timing.kind, 'interval', 'a refused modify leaves the job as it was');
  });

  it('pillar jobs are listed but cannot be modified or deleted', () => {
    const { fns } = setup({}, { p: { function: 'test.ping', seconds: 5 } });
    const listed = fns.list(true) as { schedule: Record<string, { _source: string }> };
    assert.equal(listed.schedule.p?._source, 'pillar');
    assert.match(
      code(() => fns.delete('p', true)),
      /^BAD_ARGUMENTS: cannot delete job p: it comes from pillar/,
    );
    assert.match(
      code(() => fns.modify('p', { function: 'test.ping', seconds: 1 }, true)),
      /it comes from pillar/,
    );
    assert.match(
      code(() => fns.delete('nope', true)),
      /^BAD_ARGUMENTS: job nope does not exist/,
    );
  });

  it('enable_job/disable_job, modify changes, purge keeps pillar jobs', () => {
    const { fns, scheduler } = setup({ a: { function: 'test.ping', seconds: 5 }, b: { function: 'test.ping', seconds: 5 } }, { p: { function: 'test.ping', seconds: 5 } });
    fns.disableJob('a', false);
    assert.equal(scheduler.entry('a')?.enabled, false);
    assert.equal(fns.isEnabled('a'), false);
    fns.enableJob('a', false);
    assert.equal(fns.isEnabled('a'), true);
    const m = fns.modify('b', { function: 'test.echo', args: ['y'], seconds: 7 }, false) as { changes: { b: { old: unknown; new: unknown } } };
    assert.deepEqual(m.changes.b.old, { function: 'test.ping', seconds: 5 });
    assert.deepEqual(fns.purge(false), {
      comment: ['Deleted job: a from schedule.', 'Deleted job: b from schedule.'],
      result: true,
      changes: { a: 'removed', b: 'removed' },
    });
    assert.deepEqual(Object.keys((fns.list(false) as { schedule: object }).schedule), ['p']);
  });

  it('a schedule that cannot be saved stays in effect and says SCHEDULE_SAVE_FAILED', () => {
    const { dir, fns, scheduler } = setup({});
    // minion.d is a file: the directory cannot be made
    fs.writeFileSync(path.join(dir, 'minion.d'), 'not a directory');
    assert.match(
      code(() => fns.add('x', { function: 'test.ping', seconds: 5 }, true)),
      /^SCHEDULE_SAVE_FAILED: cannot save the schedule to .*_schedule\.conf.*until the minion restarts/,
    );
    assert.ok(scheduler.entry('x'));
  });

  it('reload reads the configured schedule again, dropping unsaved changes', () => {
    const { dir, fns, scheduler } = setup({});
    fs.writeFileSync(path.join(dir, 'minion'), 'schedule:\n  fromfile:\n    function: test.ping\n    minutes: 1\n');
    fns.add('unsaved', { function: 'test.ping', seconds: 5 }, false);
    fns.reload();
    assert.deepEqual(
      scheduler.jobs().map((j) => j.name),
      ['fromfile'],
    );
  });

  it('show_next_fire_time: local ISO time, or the job error', () => {
    const { fns, clock } = setup({ a: { function: 'test.ping', seconds: 60 }, bad: { function: 'test.ping', seconds: -1 } });
    const next = fns.showNextFireTime('a') as { result: boolean; next_fire_time: string };
    const expected = new Date(clock.now() + 60_000);
    assert.equal(next.result, true);
    assert.equal(new Date(next.next_fire_time).getTime(), Math.floor(expected.getTime() / 1000) * 1000);
    assert.match((fns.showNextFireTime('bad') as { comment: string }).comment, /^SCHEDULE_INVALID: .*must not be negative/);
  });
});
