// cron.present and cron.absent: a job in a user's crontab (Salt's managed section), matched by
// identifier or command. test=True runs the same pure decision (cron-tab.ts) on the current
// crontab, so it predicts exactly what a real run does.

import { checkCronFields, withJob, withoutJob, withSpecial, type Crontab } from '../../modules/index.js';
import { defineState, type StateContext, type StateFunction } from '../types.js';
import { callFn, stateResult } from './state-result.js';
import { errorMessage } from '../../util/errors.js';

const str = (v: unknown): string => String(v);
const opt = (v: unknown): string | null => (v === undefined || v === null || v === '' || v === false ? null : String(v));

const present = defineState({
  name: 'cron.present',
  doc: "Make sure a job is in a user's crontab (by identifier, or by command).",
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the command' },
    { name: 'user', type: 'string', default: 'root', doc: 'whose crontab' },
    { name: 'minute', type: 'any', default: '*', doc: 'minute field' },
    { name: 'hour', type: 'any', default: '*', doc: 'hour field' },
    { name: 'daymonth', type: 'any', default: '*', doc: 'day-of-month field' },
    { name: 'month', type: 'any', default: '*', doc: 'month field' },
    { name: 'dayweek', type: 'any', default: '*', doc: 'day-of-week field' },
    { name: 'comment', type: 'string', doc: 'a comment line above the job' },
    { name: 'commented', type: 'bool', default: false, doc: 'keep the job in the crontab but disabled' },
    { name: 'identifier', type: 'any', doc: 'a stable id, so that the command can change without a second job' },
    { name: 'special', type: 'string', doc: '@reboot, @hourly, @daily, @weekly, @monthly, @yearly ... instead of the time fields' },
  ],
  example:
    "/usr/local/bin/backup --quiet:\n  cron.present:\n    - user: root\n    - minute: 30\n    - hour: 2\n    - identifier: nightly-backup\n    - comment: nightly backup\n\n/usr/local/bin/warm-cache:\n  cron.present:\n    - user: www-data\n    - special: '@reboot'",
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const times = { minute: str(n.minute), hour: str(n.hour), daymonth: str(n.daymonth), month: str(n.month), dayweek: str(n.dayweek) };
    const identifier = opt(n.identifier);
    const comment = opt(n.comment);
    try {
      checkCronFields('cron.present', { cmd: name, identifier, comment, ...(n.special !== undefined ? { special: n.special } : { times }) });
    } catch (err) {
      return stateResult(name, false, errorMessage(err));
    }
    const tab = await callFn<Crontab>(ctx, 'cron.list_tab', [n.user]);
    if (!tab.ok) return stateResult(name, false, tab.message);
    const meta = { cmd: name, comment, commented: n.commented, identifier };
    const status = n.special !== undefined ? withSpecial(tab.value, { spec: n.special, ...meta }).status : withJob(tab.value, { ...times, ...meta }).status;
    if (status === 'present') return stateResult(name, true, `Cron ${name} already present`);
    if (ctx.test) return stateResult(name, null, `Cron ${name} is set to be ${status === 'new' ? 'added' : 'updated'}`, { [n.user]: name });
    const r =
      n.special !== undefined
        ? await callFn<string>(ctx, 'cron.set_special', [n.user, n.special, name], { commented: n.commented, ...(comment ? { comment } : {}), ...(identifier ? { identifier } : {}) })
        : await callFn<string>(ctx, 'cron.set_job', [n.user, times.minute, times.hour, times.daymonth, times.month, times.dayweek, name], {
            commented: n.commented,
            ...(comment ? { comment } : {}),
            ...(identifier ? { identifier } : {}),
          });
    if (!r.ok) return stateResult(name, false, `Cron ${name} for user ${n.user} failed to commit: ${r.message}`);
    if (r.value === 'present') return stateResult(name, true, `Cron ${name} already present`);
    return stateResult(name, true, r.value === 'new' ? `Cron ${name} added to ${n.user}'s crontab` : `Cron ${name} updated`, { [n.user]: name });
  },
});

const absent = defineState({
  name: 'cron.absent',
  // Salt's cron.absent takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: "Make sure a job is not in a user's crontab.",
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the command' },
    { name: 'user', type: 'string', default: 'root', doc: 'whose crontab' },
    { name: 'identifier', type: 'any', doc: 'the id the job was written with' },
    { name: 'special', type: 'string', doc: 'remove the @special job with this spec' },
  ],
  example: '/usr/local/bin/old-report:\n  cron.absent:\n    - user: root',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const identifier = opt(n.identifier);
    const tab = await callFn<Crontab>(ctx, 'cron.list_tab', [n.user]);
    if (!tab.ok) return stateResult(name, false, tab.message);
    const { removed } = withoutJob(tab.value, { cmd: name, identifier, ...(n.special !== undefined ? { special: n.special } : {}) });
    if (!removed) return stateResult(name, true, `Cron ${name} already absent from ${n.user}'s crontab`);
    if (ctx.test) return stateResult(name, null, `Cron ${name} is set to be removed`, { [n.user]: name });
    const r = await callFn<string>(ctx, 'cron.rm_job', [n.user, name], { ...(identifier ? { identifier } : {}), ...(n.special !== undefined ? { special: n.special } : {}) });
    if (!r.ok) return stateResult(name, false, `Cron ${name} for user ${n.user} failed to commit: ${r.message}`);
    return stateResult(name, true, `Cron ${name} removed from ${n.user}'s crontab`, { [n.user]: name });
  },
});

const ENV_USER = { name: 'user', type: 'string', default: 'root', doc: 'whose crontab' } as const;

// salt/states/cron.py env_present/env_absent: test=True reads the crontab's env lines.
async function envStatus(ctx: StateContext, user: string, name: string, value = ''): Promise<'absent' | 'update' | 'present' | string> {
  const tab = await callFn<Crontab>(ctx, 'cron.list_tab', [user]);
  if (!tab.ok) return tab.message;
  const env = tab.value.env.find((e) => e.name === name);
  return env === undefined ? 'absent' : env.value !== value ? 'update' : 'present';
}

const envPresent = defineState({
  name: 'cron.env_present',
  doc: "Make sure a NAME=value line is in a user's crontab (above brine's jobs).",
  params: [{ name: 'name', type: 'string', required: true, doc: 'the variable, e.g. MAILTO' }, { name: 'value', type: 'any', doc: 'its value' }, ENV_USER],
  example: 'MAILTO:\n  cron.env_present:\n    - value: ops@example.com\n    - user: root',
  run: async (ctx, a) => {
    const { name, user } = a.named;
    const value = a.named.value === undefined || a.named.value === null ? '' : String(a.named.value);
    if (ctx.test) {
      const s = await envStatus(ctx, user, name, value);
      if (s === 'present') return stateResult(name, true, `Cron env ${name} already present`);
      if (s === 'absent') return stateResult(name, null, `Cron env ${name} is set to be added`);
      if (s === 'update') return stateResult(name, null, `Cron env ${name} is set to be updated`);
      return stateResult(name, false, s);
    }
    const r = await callFn<string>(ctx, 'cron.set_env', [user, name], { value });
    const data = r.ok ? r.value : r.message;
    if (data === 'present') return stateResult(name, true, `Cron env ${name} already present`);
    if (data === 'new') return stateResult(name, true, `Cron env ${name} added to ${user}'s crontab`, { [user]: name });
    if (data === 'updated') return stateResult(name, true, `Cron env ${name} updated`, { [user]: name });
    return stateResult(name, false, `Cron env ${name} for user ${user} failed to commit with error \n${data}`);
  },
});

const envAbsent = defineState({
  name: 'cron.env_absent',
  doc: "Make sure a NAME=... line is not in a user's crontab.",
  params: [{ name: 'name', type: 'string', required: true, doc: 'the variable' }, ENV_USER],
  example: 'MAILTO:\n  cron.env_absent:\n    - user: root',
  run: async (ctx, a) => {
    const name = a.named.name.trim();
    const { user } = a.named;
    if (ctx.test) {
      const s = await envStatus(ctx, user, name);
      if (s === 'absent') return stateResult(name, true, `Cron env ${name} is absent`);
      if (s === 'present' || s === 'update') return stateResult(name, null, `Cron env ${name} is set to be removed`);
      return stateResult(name, false, s);
    }
    const r = await callFn<string>(ctx, 'cron.rm_env', [user, name]);
    const data = r.ok ? r.value : r.message;
    if (data === 'absent') return stateResult(name, true, `Cron env ${name} already absent`);
    if (data === 'removed') return stateResult(name, true, `Cron env ${name} removed from ${user}'s crontab`, { [user]: name });
    return stateResult(name, false, `Cron env ${name} for user ${user} failed to commit with error ${data}`);
  },
});

export const cronStates: readonly StateFunction[] = [present, absent, envPresent, envAbsent];
