// One schedule entry (Salt's `schedule:` item) checked and normalised: the fields Salt knows,
// each with its type, and a coded SCHEDULE_INVALID error naming the job and the field otherwise.

import { BrineError } from '../util/errors.js';
import { closestName } from './did-you-mean.js';
import { parseCron, type CronSchedule } from './cron.js';
import { parseClockTime, parseDateTime, parseWhen, type ClockTime, type WhenSpec } from './time-spec.js';

/** Every field a schedule entry may have (Salt's names; `job_args`/`job_kwargs` are schedule.add's spelling). */
export const SCHEDULE_FIELDS = [
  'function',
  'args',
  'kwargs',
  'job_args',
  'job_kwargs',
  'seconds',
  'minutes',
  'hours',
  'days',
  'splay',
  'range',
  'when',
  'cron',
  'once',
  'once_fmt',
  'run_on_start',
  'maxrunning',
  'enabled',
  'jid_include',
  'until',
  'after',
  'return_job',
  'name',
  'metadata',
  'returner',
  'return_config',
  'return_kwargs',
] as const;

/** Salt fields brine deliberately does not offer, with what to do instead. */
const REFUSED_FIELDS: Record<string, string> = {
  skip_during_range: 'use range with invert: true',
  run_after_skip_range: 'use range with invert: true',
  skip_explicit: 'not supported; use range or cron',
};

export interface RangeSpec {
  start: ClockTime;
  end: ClockTime;
  invert: boolean;
}

export interface SplaySpec {
  start: number;
  end: number;
}

/** How an entry decides when to fire: exactly one of these. */
export type Timing = { kind: 'interval'; seconds: number } | { kind: 'cron'; cron: CronSchedule } | { kind: 'when'; when: WhenSpec[] } | { kind: 'once'; at: number };

export interface ScheduleEntry {
  name: string;
  function: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  timing: Timing;
  splay: SplaySpec | undefined;
  range: RangeSpec | undefined;
  runOnStart: boolean;
  maxrunning: number;
  enabled: boolean;
  returnJob: boolean;
  /** Returners each run's return also goes to (Salt's `returner`: a name, comma-separated names or a list). */
  returner: string[];
  /** `return_config` and `return_kwargs`: the returners' alternative option set and overrides. */
  returnConfig: string | undefined;
  returnKwargs: Record<string, unknown> | undefined;
  /** Epoch ms: no run at or after this time. */
  until: number | undefined;
  /** Epoch ms: no run before this time. */
  after: number | undefined;
  /** The fields as given (shown by schedule.list and persisted). */
  raw: Record<string, unknown>;
}

const FUN_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(job: string, field: string | undefined, message: string): BrineError {
  const where = field === undefined ? `schedule job '${job}'` : `schedule job '${job}', field '${field}'`;
  return new BrineError('SCHEDULE_INVALID', `${where}: ${message}`, { details: { job, ...(field === undefined ? {} : { field }) } });
}

/** A number of seconds (YAML may give "10"); undefined when absent. */
function numberField(job: string, raw: Record<string, unknown>, field: string): number | undefined {
  const v = raw[field];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(job, field, `must be a number, got ${JSON.stringify(v)}`);
  if (n < 0) throw invalid(job, field, `must not be negative, got ${n}`);
  return n;
}

function boolField(job: string, raw: Record<string, unknown>, field: string, fallback: boolean): boolean {
  const v = raw[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'boolean') return v;
  if (v === 'True' || v === 'true') return true;
  if (v === 'False' || v === 'false') return false;
  throw invalid(job, field, `must be true or false, got ${JSON.stringify(v)}`);
}

function dateField(job: string, raw: Record<string, unknown>, field: string): number | undefined {
  const v = raw[field];
  if (v === undefined || v === null) return undefined;
  const at = typeof v === 'string' ? parseDateTime(v) : undefined;
  if (at === undefined) throw invalid(job, field, `must be a date and time such as '2026-12-31 23:00' or '2026-12-31T23:00:00', got ${JSON.stringify(v)}`);
  return at;
}

function parseSplay(job: string, raw: Record<string, unknown>): SplaySpec | undefined {
  const v = raw.splay;
  if (v === undefined || v === null) return undefined;
  if (isPlainObject(v)) {
    const start = numberField(job, v, 'start') ?? 0;
    const end = numberField(job, v, 'end');
    if (end === undefined) throw invalid(job, 'splay', 'a splay mapping needs an end (seconds), e.g. {start: 10, end: 20}');
    if (end < start) throw invalid(job, 'splay', `end (${end}) must not be below start (${start})`);
    return { start, end };
  }
  const n = numberField(job, raw, 'splay');
  return n === undefined || n === 0 ? undefined : { start: 0, end: n };
}

function parseRange(job: string, raw: Record<string, unknown>): RangeSpec | undefined {
  const v = raw.range;
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw invalid(job, 'range', 'must be a mapping with start and end times, e.g. {start: "8:00am", end: "5:00pm"}');
  for (const key of Object.keys(v)) {
    if (!['start', 'end', 'invert'].includes(key)) throw invalid(job, 'range', `unknown key '${key}': a range has start, end and invert`);
  }
  const start = typeof v.start === 'string' ? parseClockTime(v.start) : undefined;
  const end = typeof v.end === 'string' ? parseClockTime(v.end) : undefined;
  if (start === undefined || end === undefined)
    throw invalid(job, 'range', `start and end must be times such as '8:00am', '17:30' or '2026-12-31 23:00', got ${JSON.stringify(v.start)} and ${JSON.stringify(v.end)}`);
  if (start.kind === 'date' && end.kind === 'date' && end.at <= start.at) throw invalid(job, 'range', 'end must be after start');
  return { start, end, invert: boolField(job, v, 'invert', false) };
}

function parseTiming(job: string, raw: Record<string, unknown>, now: number): Timing {
  const parts = ['seconds', 'minutes', 'hours', 'days'].filter((f) => raw[f] !== undefined && raw[f] !== null);
  const kinds = [
    parts.length > 0 ? 'seconds/minutes/hours/days' : undefined,
    raw.cron !== undefined ? 'cron' : undefined,
    raw.when !== undefined ? 'when' : undefined,
    raw.once !== undefined ? 'once' : undefined,
  ].filter((k): k is string => k !== undefined);
  if (kinds.length === 0) throw invalid(job, undefined, 'has no time: give seconds, minutes, hours or days (summed), or cron, when or once');
  if (kinds.length > 1) throw invalid(job, undefined, `uses ${kinds.join(' and ')} together; keep exactly one way of timing it`);
  if (parts.length > 0) {
    const factor: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };
    let total = 0;
    for (const f of parts) total += (numberField(job, raw, f) ?? 0) * factor[f]!;
    if (!(total > 0)) throw invalid(job, parts[0], `the interval (${parts.join(' + ')}) is ${total} seconds; it must be more than 0`);
    return { kind: 'interval', seconds: total };
  }
  if (raw.cron !== undefined) {
    if (typeof raw.cron !== 'string') throw invalid(job, 'cron', `must be a cron expression string such as '*/5 * * * *', got ${JSON.stringify(raw.cron)}`);
    const parsed = parseCron(raw.cron, now);
    if (typeof parsed === 'string') throw invalid(job, 'cron', parsed);
    return { kind: 'cron', cron: parsed };
  }
  if (raw.when !== undefined) {
    const list = Array.isArray(raw.when) ? raw.when : [raw.when];
    if (list.length === 0) throw invalid(job, 'when', 'is an empty list; give at least one time');
    const specs: WhenSpec[] = [];
    for (const item of list) {
      const spec = typeof item === 'string' ? parseWhen(item) : undefined;
      if (spec === undefined)
        throw invalid(job, 'when', `cannot read ${JSON.stringify(item)}: use '5:00pm', '17:00', 'Monday 5:00pm' or '2026-12-31 23:00' (docs/schedule.md lists the forms brine reads)`);
      specs.push(spec);
    }
    return { kind: 'when', when: specs };
  }
  const fmt = raw.once_fmt;
  if (fmt !== undefined && fmt !== '%Y-%m-%dT%H:%M:%S' && fmt !== '%Y-%m-%d %H:%M:%S')
    throw invalid(job, 'once_fmt', "brine reads once as '%Y-%m-%dT%H:%M:%S' (Salt's default) or '%Y-%m-%d %H:%M:%S'; drop once_fmt and write once in that form");
  const at = typeof raw.once === 'string' ? parseDateTime(raw.once) : undefined;
  if (at === undefined) throw invalid(job, 'once', `must be a date and time such as '2026-12-31T23:00:00', got ${JSON.stringify(raw.once)}`);
  return { kind: 'once', at };
}

/**
 * Checks one entry; throws SCHEDULE_INVALID naming the job and the field. `now` anchors a cron
 * expression's "does it ever fire" check.
 */
export function parseEntry(name: string, value: unknown, now: number): ScheduleEntry {
  if (!isPlainObject(value)) throw invalid(name, undefined, `must be a mapping of fields (function, seconds, ...), got ${JSON.stringify(value)}`);
  for (const key of Object.keys(value)) {
    if (key.startsWith('_')) continue; // Salt's internal fields (_next_fire_time, ...) shown by list show_all
    if ((SCHEDULE_FIELDS as readonly string[]).includes(key)) continue;
    const refused = REFUSED_FIELDS[key];
    if (refused !== undefined) throw invalid(name, key, `is not supported: ${refused}`);
    const guess = closestName(key, SCHEDULE_FIELDS);
    throw invalid(name, key, `is not a schedule field${guess === undefined ? '' : `; did you mean '${guess}'?`} (fields: ${SCHEDULE_FIELDS.join(', ')})`);
  }
  const fun = value.function;
  if (typeof fun !== 'string' || !FUN_PATTERN.test(fun)) throw invalid(name, 'function', `must name an execution function such as test.ping, got ${JSON.stringify(fun)}`);
  const args = value.args ?? value.job_args ?? [];
  if (!Array.isArray(args)) throw invalid(name, 'args', `must be a list, got ${JSON.stringify(args)}`);
  const kwargs = value.kwargs ?? value.job_kwargs ?? {};
  if (!isPlainObject(kwargs)) throw invalid(name, 'kwargs', `must be a mapping, got ${JSON.stringify(kwargs)}`);
  const maxrunning = numberField(name, value, 'maxrunning') ?? 1;
  if (!Number.isInteger(maxrunning) || maxrunning < 1) throw invalid(name, 'maxrunning', `must be a whole number of at least 1, got ${maxrunning}`);
  if (value.return_job === 'nocache') throw invalid(name, 'return_job', "'nocache' is not supported; use true (the default) or false");
  const returner = value.returner ?? [];
  if (typeof returner !== 'string' && !(Array.isArray(returner) && returner.every((r) => typeof r === 'string')))
    throw invalid(name, 'returner', `must be a returner name or a list of them (syslog, local_cache, postgres), got ${JSON.stringify(returner)}`);
  if (value.return_config !== undefined && typeof value.return_config !== 'string') throw invalid(name, 'return_config', `must be a string, got ${JSON.stringify(value.return_config)}`);
  if (value.return_kwargs !== undefined && !isPlainObject(value.return_kwargs)) throw invalid(name, 'return_kwargs', `must be a mapping, got ${JSON.stringify(value.return_kwargs)}`);
  const until = dateField(name, value, 'until');
  const after = dateField(name, value, 'after');
  if (until !== undefined && after !== undefined && until <= after) throw invalid(name, 'until', 'is not after `after`: the job could never run');
  return {
    name,
    function: fun,
    args,
    kwargs,
    timing: parseTiming(name, value, now),
    splay: parseSplay(name, value),
    range: parseRange(name, value),
    runOnStart: boolField(name, value, 'run_on_start', false),
    maxrunning,
    enabled: boolField(name, value, 'enabled', true),
    returnJob: boolField(name, value, 'return_job', true),
    returner: (typeof returner === 'string' ? returner.split(',') : returner).map((r) => r.trim()).filter((r) => r !== ''),
    returnConfig: value.return_config as string | undefined,
    returnKwargs: value.return_kwargs as Record<string, unknown> | undefined,
    until,
    after,
    raw: Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith('_'))),
  };
}
