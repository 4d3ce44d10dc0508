// A user's crontab as Salt manages it: lines above Salt's marker are left alone ("pre"); below
// it, each job may be preceded by a `# comment SALT_CRON_IDENTIFIER:id` line and disabled jobs
// start with `#DISABLED#`. Parsing, rendering and the set/remove decisions are pure, so that
// test=True can reuse them without writing anything.

import { BrineError } from '../util/errors.js';

export const CRON_TAG = '# Lines below here are managed by Salt, do not edit';
const ID_MARK = 'SALT_CRON_IDENTIFIER:';
const DISABLED = '#DISABLED#';
export const SPECIALS = ['@reboot', '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'] as const;

export interface CronJob {
  minute: string;
  hour: string;
  daymonth: string;
  month: string;
  dayweek: string;
  cmd: string;
  comment: string | null;
  commented: boolean;
  identifier: string | null;
}

export interface SpecialJob {
  spec: string;
  cmd: string;
  comment: string | null;
  commented: boolean;
  identifier: string | null;
}

export interface Crontab {
  pre: string[];
  crons: CronJob[];
  special: SpecialJob[];
  env: { name: string; value: string }[];
}

export type SetStatus = 'new' | 'updated' | 'present';

function parseMarker(line: string): { comment: string | null; identifier: string | null } {
  let text = line.replace(/^#\s?/, '');
  let identifier: string | null = null;
  const at = text.indexOf(ID_MARK);
  if (at !== -1) {
    identifier = text.slice(at + ID_MARK.length).trim();
    text = text.slice(0, at);
  }
  text = text.trim();
  return { comment: text === '' ? null : text, identifier: identifier === '' ? null : identifier };
}

export function parseCrontab(text: string): Crontab {
  const tab: Crontab = { pre: [], crons: [], special: [], env: [] };
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let managed = false;
  let pending: { comment: string | null; identifier: string | null } = { comment: null, identifier: null };
  for (const raw of lines) {
    if (!managed) {
      if (raw.trim() === CRON_TAG) managed = true;
      else tab.pre.push(raw);
      continue;
    }
    const line = raw.trim();
    if (line === '') continue;
    let body = line;
    let commented = false;
    if (line.startsWith(DISABLED)) {
      commented = true;
      body = line.slice(DISABLED.length).trim();
    } else if (line.startsWith('#')) {
      pending = parseMarker(line);
      continue;
    }
    const meta = { ...pending, commented };
    pending = { comment: null, identifier: null };
    if (body.startsWith('@')) {
      const sp = body.search(/\s/);
      if (sp === -1) continue;
      tab.special.push({ spec: body.slice(0, sp), cmd: body.slice(sp).trim(), ...meta });
      continue;
    }
    const env = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(body);
    if (env && !commented) {
      tab.env.push({ name: env[1]!, value: env[2]! });
      continue;
    }
    const f = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.+)$/.exec(body);
    if (!f) continue;
    tab.crons.push({ minute: f[1]!, hour: f[2]!, daymonth: f[3]!, month: f[4]!, dayweek: f[5]!, cmd: f[6]!, ...meta });
  }
  return tab;
}

function marker(job: { comment: string | null; identifier: string | null }): string[] {
  if (job.comment === null && job.identifier === null) return [];
  const parts = [job.comment, job.identifier === null ? null : `${ID_MARK}${job.identifier}`].filter((p) => p !== null);
  return [`# ${parts.join(' ')}`];
}

export function renderCrontab(tab: Crontab): string {
  const out = [...tab.pre, CRON_TAG];
  for (const e of tab.env) out.push(`${e.name}=${e.value}`);
  for (const s of tab.special) out.push(...marker(s), `${s.commented ? DISABLED : ''}${s.spec} ${s.cmd}`);
  for (const c of tab.crons) out.push(...marker(c), `${c.commented ? DISABLED : ''}${c.minute} ${c.hour} ${c.daymonth} ${c.month} ${c.dayweek} ${c.cmd}`);
  return `${out.join('\n')}\n`;
}

/**
 * Salt's matching: a job carrying an identifier is matched by identifier only, so that changing
 * the command of an identified job updates it instead of adding a second one; a job without one
 * is matched by its command, and adopts the caller's identifier.
 */
function matches(job: { cmd: string; identifier: string | null }, cmd: string, identifier: string | null): boolean {
  if (identifier !== null) return job.identifier === identifier || (job.identifier === null && job.cmd === cmd);
  return job.cmd === cmd;
}

/** Field by field (key order differs between parsed and built jobs). */
function same<T extends object>(a: T, b: T): boolean {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])] as (keyof T)[];
  return keys.every((k) => a[k] === b[k]);
}

/** The crontab with `job` in it, and whether that added, changed or found it. */
export function withJob(tab: Crontab, job: CronJob): { tab: Crontab; status: SetStatus } {
  const i = tab.crons.findIndex((c) => matches(c, job.cmd, job.identifier));
  if (i === -1) return { tab: { ...tab, crons: [...tab.crons, job] }, status: 'new' };
  // A comment not given keeps the one already there, as Salt does.
  const merged = { ...job, comment: job.comment ?? tab.crons[i]!.comment };
  if (same(tab.crons[i]!, merged)) return { tab, status: 'present' };
  const crons = [...tab.crons];
  crons[i] = merged;
  return { tab: { ...tab, crons }, status: 'updated' };
}

export function withSpecial(tab: Crontab, job: SpecialJob): { tab: Crontab; status: SetStatus } {
  const i = tab.special.findIndex((c) => matches(c, job.cmd, job.identifier));
  if (i === -1) return { tab: { ...tab, special: [...tab.special, job] }, status: 'new' };
  const merged = { ...job, comment: job.comment ?? tab.special[i]!.comment };
  if (same(tab.special[i]!, merged)) return { tab, status: 'present' };
  const special = [...tab.special];
  special[i] = merged;
  return { tab: { ...tab, special }, status: 'updated' };
}

export interface RemoveFilter {
  cmd: string;
  identifier: string | null;
  /** Only jobs with these time fields (unset fields match anything). */
  minute?: string;
  hour?: string;
  daymonth?: string;
  month?: string;
  dayweek?: string;
  /** Only special jobs with this spec. */
  special?: string;
}

export function withoutJob(tab: Crontab, f: RemoveFilter): { tab: Crontab; removed: boolean } {
  const timeOk = (c: CronJob) => (['minute', 'hour', 'daymonth', 'month', 'dayweek'] as const).every((k) => f[k] === undefined || c[k] === f[k]);
  const crons = f.special === undefined ? tab.crons.filter((c) => !(matches(c, f.cmd, f.identifier) && timeOk(c))) : tab.crons;
  const special = f.special === undefined ? tab.special : tab.special.filter((s) => !(matches(s, f.cmd, f.identifier) && s.spec === f.special));
  const removed = crons.length !== tab.crons.length || special.length !== tab.special.length;
  return { tab: { ...tab, crons, special }, removed };
}

const TIME_FIELD = /^[0-9A-Za-z*/,-]+$/;

/** Checks the fields a caller gave: no line breaks anywhere, crontab syntax for time fields. */
export function checkCronFields(fun: string, fields: { cmd: string; identifier?: string | null; comment?: string | null; times?: Record<string, string>; special?: string }): void {
  const bad = (why: string) => new BrineError('BAD_ARGUMENTS', `${fun}: ${why}`);
  if (fields.cmd.trim() === '') throw bad('the command (name) is empty');
  for (const [what, v] of [
    ['command', fields.cmd],
    ['identifier', fields.identifier],
    ['comment', fields.comment],
  ] as const) {
    if (typeof v === 'string' && /[\n\r\0]/.test(v)) throw bad(`the ${what} must be one line`);
  }
  if (fields.identifier?.includes(ID_MARK)) throw bad(`the identifier must not contain '${ID_MARK}'`);
  for (const [k, v] of Object.entries(fields.times ?? {})) {
    if (!TIME_FIELD.test(v)) throw bad(`${k} '${v}' is not a crontab time field (digits, names, '*', '/', ',' and '-')`);
  }
  if (fields.special !== undefined && !(SPECIALS as readonly string[]).includes(fields.special)) throw bad(`special '${fields.special}' is not one of ${SPECIALS.join(', ')}`);
}
