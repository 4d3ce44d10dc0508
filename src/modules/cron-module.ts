// The `cron` module: read and change a user's crontab through the `crontab` program (so cron
// notices the change), in Salt's format (see cron-tab.ts).

import { BrineError } from '../util/errors.js';
import { checkName, runArgv, runChecked, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';
import { checkCronFields, parseCrontab, renderCrontab, withJob, withoutJob, withSpecial, type Crontab } from './cron-tab.js';
import { ACCOUNT_NAME } from './user-admin-module.js';

function requireCrontab(fun: string): void {
  if (!which('crontab')) {
    throw new BrineError('EXEC_FAILED', `${fun}: the crontab program is not installed on this host; install cron (Debian: apt-get install cron, Fedora: dnf install cronie)`);
  }
}

/** The user's crontab text; '' when the user has none. */
export async function readCrontab(fun: string, user: string): Promise<string> {
  requireCrontab(fun);
  checkName(fun, 'user name', user, ACCOUNT_NAME);
  const r = await runArgv(fun, ['crontab', '-u', user, '-l']);
  if (r.retcode === 0) return r.stdout.endsWith('\n') || r.stdout === '' ? r.stdout : `${r.stdout}\n`;
  if (/no crontab for/i.test(r.stderr)) return '';
  throw new BrineError('EXEC_FAILED', `${fun}: 'crontab -u ${user} -l' failed with exit code ${r.retcode}: ${r.stderr.trim()}`);
}

export async function writeCrontab(fun: string, user: string, tab: Crontab): Promise<void> {
  // '-' reads the new crontab from stdin: no temporary file another user could swap.
  await runChecked(fun, ['crontab', '-u', user, '-'], { stdin: renderCrontab(tab) });
}

const USER = { name: 'user', type: 'string', required: true, doc: 'whose crontab' } as const;
const opt = (v: unknown): string | null => (v === undefined || v === null || v === '' ? null : String(v));

export const cronFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'cron.raw_cron',
    doc: "Return the user's crontab as text ('' when there is none).",
    params: [USER],
    run: (_ctx, a) => readCrontab('cron.raw_cron', a.named.user),
  }),
  defineFunction({
    name: 'cron.list_tab',
    doc: "Return the user's crontab as {pre, crons, special, env}, Salt's shape.",
    params: [USER],
    run: async (_ctx, a) => parseCrontab(await readCrontab('cron.list_tab', a.named.user)),
  }),
  defineFunction({
    name: 'cron.set_job',
    doc: "Add or update a job in the user's crontab; returns 'new', 'updated' or 'present'.",
    params: [
      USER,
      { name: 'minute', type: 'string', required: true, doc: 'minute field' },
      { name: 'hour', type: 'string', required: true, doc: 'hour field' },
      { name: 'daymonth', type: 'string', required: true, doc: 'day-of-month field' },
      { name: 'month', type: 'string', required: true, doc: 'month field' },
      { name: 'dayweek', type: 'string', required: true, doc: 'day-of-week field' },
      { name: 'cmd', type: 'string', required: true, doc: 'the command' },
      { name: 'commented', type: 'bool', default: false, doc: 'write the job disabled (#DISABLED#)' },
      { name: 'comment', type: 'string', doc: 'a comment line above the job' },
      { name: 'identifier', type: 'string', doc: 'a stable id, so that the command may change' },
    ],
    run: async (_ctx, a) => {
      const fun = 'cron.set_job';
      const n = a.named;
      const times = { minute: String(n.minute), hour: String(n.hour), daymonth: String(n.daymonth), month: String(n.month), dayweek: String(n.dayweek) };
      checkCronFields(fun, { cmd: n.cmd, identifier: opt(n.identifier), comment: opt(n.comment), times });
      const { tab, status } = withJob(parseCrontab(await readCrontab(fun, n.user)), { ...times, cmd: n.cmd, comment: opt(n.comment), commented: n.commented, identifier: opt(n.identifier) });
      if (status !== 'present') await writeCrontab(fun, n.user, tab);
      return status;
    },
  }),
  defineFunction({
    name: 'cron.set_special',
    doc: "Add or update an @special job (@reboot, @daily ...); returns 'new', 'updated' or 'present'.",
    params: [
      USER,
      { name: 'special', type: 'string', required: true, doc: '@reboot, @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly' },
      { name: 'cmd', type: 'string', required: true, doc: 'the command' },
      { name: 'commented', type: 'bool', default: false, doc: 'write the job disabled' },
      { name: 'comment', type: 'string', doc: 'a comment line above the job' },
      { name: 'identifier', type: 'string', doc: 'a stable id' },
    ],
    run: async (_ctx, a) => {
      const fun = 'cron.set_special';
      const n = a.named;
      checkCronFields(fun, { cmd: n.cmd, identifier: opt(n.identifier), comment: opt(n.comment), special: n.special });
      const { tab, status } = withSpecial(parseCrontab(await readCrontab(fun, n.user)), {
        spec: n.special,
        cmd: n.cmd,
        comment: opt(n.comment),
        commented: n.commented,
        identifier: opt(n.identifier),
      });
      if (status !== 'present') await writeCrontab(fun, n.user, tab);
      return status;
    },
  }),
  defineFunction({
    name: 'cron.rm_job',
    doc: "Remove a job (time fields given narrow the match; special= removes an @special job); returns 'removed' or 'absent'.",
    params: [
      USER,
      { name: 'cmd', type: 'string', required: true, doc: 'the command' },
      { name: 'minute', type: 'string', doc: 'only the job with this minute' },
      { name: 'hour', type: 'string', doc: 'only the job with this hour' },
      { name: 'daymonth', type: 'string', doc: 'only the job with this day of month' },
      { name: 'month', type: 'string', doc: 'only the job with this month' },
      { name: 'dayweek', type: 'string', doc: 'only the job with this day of week' },
      { name: 'identifier', type: 'string', doc: 'the id the job was written with' },
      { name: 'special', type: 'string', keywordOnly: true, doc: 'remove the @special job with this spec' },
    ],
    run: async (_ctx, a) => {
      const fun = 'cron.rm_job';
      const n = a.named;
      checkCronFields(fun, { cmd: n.cmd, identifier: opt(n.identifier) });
      const { tab, removed } = withoutJob(parseCrontab(await readCrontab(fun, n.user)), {
        cmd: n.cmd,
        identifier: opt(n.identifier),
        minute: n.minute,
        hour: n.hour,
        daymonth: n.daymonth,
        month: n.month,
        dayweek: n.dayweek,
        special: n.special,
      });
      if (removed) await writeCrontab(fun, n.user, tab);
      return removed ? 'removed' : 'absent';
    },
  }),
];
