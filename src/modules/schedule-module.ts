// schedule.*: Salt's functions for the minion's own scheduler. They run inline (on the minion's
// main thread) and drive the scheduler through ctx.schedule; elsewhere (brine call --local, a
// worker) there is no running scheduler and they say so.

import { BrineError } from '../util/errors.js';
import { defineFunction, defineParam } from './define-function.js';
import type { ExecContext, ModuleFunction, ScheduleControl } from './types.js';

function control(ctx: ExecContext, fun: string): ScheduleControl {
  if (!ctx.schedule) {
    throw new BrineError('EXEC_FAILED', `${fun}: there is no running scheduler here; run it through the minion daemon (brine run <minion> ${fun} ...)`);
  }
  return ctx.schedule;
}

const name = defineParam({ name: 'name', type: 'string', required: true, doc: 'the job name' });
const persist = defineParam({ name: 'persist', type: 'bool', default: true, keywordOnly: true, doc: 'write the change to minion.d/_schedule.conf' });

/** The job fields of a schedule.add/modify call: the surplus kwargs, minus Salt's bookkeeping ones. */
function fieldsOf(extra: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extra).filter(([k]) => !k.startsWith('__')));
}

/**
 * Pure: schedule.list's answer for show_disabled and return_yaml. Salt's return_yaml=False answer
 * is the jobs mapping alone (a front end iterates it as jobs), so brine's `enabled` and `_errors`
 * beside it are left out there; the default keeps brine's {schedule, enabled, _errors} mapping.
 */
export function listShape(listed: unknown, showDisabled: boolean, returnYaml: boolean): unknown {
  const out = { ...(listed as { schedule: Record<string, { enabled?: unknown }> }) };
  if (!showDisabled) out.schedule = Object.fromEntries(Object.entries(out.schedule).filter(([, job]) => job.enabled !== false));
  return returnYaml ? out : out.schedule;
}

export const scheduleFunctions: ModuleFunction[] = [
  defineFunction({
    name: 'schedule.list',
    doc: "The minion's schedule as {schedule: {job: fields}}; show_all adds each job's next fire time and state; jobs that cannot run are listed under _errors; return_yaml=False gives Salt's bare {job: fields}.",
    params: [
      { name: 'show_all', type: 'bool', default: false, doc: 'include _next_fire_time, _running, _source, ...' },
      { name: 'show_disabled', type: 'bool', default: true, doc: 'list disabled jobs too' },
      { name: 'where', type: 'any', doc: "accepted for Salt's signature; brine lists the running schedule" },
      { name: 'return_yaml', type: 'bool', default: true, doc: 'false: the jobs mapping itself, as salt-api front ends ask for it' },
    ],
    inline: true,
    run: (ctx, a) => listShape(control(ctx, 'schedule.list').list(a.named.show_all), a.named.show_disabled, a.named.return_yaml),
  }),
  defineFunction({
    name: 'schedule.add',
    doc: 'Add a job: schedule.add <name> function=<fun> seconds=<n> [job_args=[...]] [job_kwargs={...}] [any schedule field]; refused if the name exists.',
    params: [name, persist],
    kwargs: true,
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.add').add(a.named.name, fieldsOf(a.extra), a.named.persist),
  }),
  defineFunction({
    name: 'schedule.modify',
    doc: 'Replace the fields of an existing job (the fields given become the whole job, as in Salt).',
    params: [name, persist],
    kwargs: true,
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.modify').modify(a.named.name, fieldsOf(a.extra), a.named.persist),
  }),
  defineFunction({
    name: 'schedule.delete',
    doc: 'Remove a job (not one that comes from pillar).',
    params: [name, persist],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.delete').delete(a.named.name, a.named.persist),
  }),
  defineFunction({
    name: 'schedule.enable',
    doc: 'Turn the whole scheduler on.',
    params: [persist],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.enable').enable(a.named.persist),
  }),
  defineFunction({
    name: 'schedule.disable',
    doc: 'Turn the whole scheduler off (no job runs until schedule.enable; run_job with force=True still runs one).',
    params: [persist],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.disable').disable(a.named.persist),
  }),
  defineFunction({
    name: 'schedule.enable_job',
    doc: 'Turn one job on.',
    params: [name, persist],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.enable_job').enableJob(a.named.name, a.named.persist),
  }),
  defineFunction({
    name: 'schedule.disable_job',
    doc: 'Turn one job off.',
    params: [name, persist],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.disable_job').disableJob(a.named.name, a.named.persist),
  }),
  defineFunction({
    name: 'schedule.run_job',
    doc: 'Run a job now (its return goes to the master like a scheduled run); force=True runs it even when it or the scheduler is disabled.',
    params: [name, { name: 'force', type: 'bool', default: false, doc: 'run even if disabled' }],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.run_job').runJob(a.named.name, a.named.force),
  }),
  defineFunction({
    name: 'schedule.purge',
    doc: 'Remove every job that does not come from pillar.',
    params: [persist],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.purge').purge(a.named.persist),
  }),
  defineFunction({
    name: 'schedule.save',
    doc: 'Write the current (non-pillar) schedule to minion.d/_schedule.conf.',
    params: [],
    inline: true,
    run: (ctx) => control(ctx, 'schedule.save').save(),
  }),
  defineFunction({
    name: 'schedule.reload',
    doc: 'Read the schedule again from the minion config (main file and minion.d, including _schedule.conf), dropping unsaved changes.',
    params: [],
    inline: true,
    run: (ctx) => control(ctx, 'schedule.reload').reload(),
  }),
  defineFunction({
    name: 'schedule.is_enabled',
    doc: 'Without a name: whether the scheduler is on; with one: whether that job is on.',
    params: [{ name: 'name', type: 'string', doc: 'a job name' }],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.is_enabled').isEnabled(a.named.name),
  }),
  defineFunction({
    name: 'schedule.show_next_fire_time',
    doc: 'When a job runs next: {result, next_fire_time} (local time, ISO 8601), or why it does not.',
    params: [name],
    inline: true,
    run: (ctx, a) => control(ctx, 'schedule.show_next_fire_time').showNextFireTime(a.named.name),
  }),
];
