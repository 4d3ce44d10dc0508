// cron.set_env / cron.rm_env: NAME=value lines in the managed part of a user's crontab, as
// Salt's cron module keeps them ('new', 'updated', 'present'; 'removed', 'absent').

import { defineFunction } from './define-function.js';
import { parseCrontab, type Crontab } from './cron-tab.js';
import { readCrontab, writeCrontab } from './cron-module.js';
import { BrineError } from '../util/errors.js';
import type { ModuleFunction } from './types.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Salt's set_env decision: a changed value is removed and appended again (it moves to the end). */
export function withEnv(tab: Crontab, name: string, value: string): { status: 'new' | 'updated' | 'present'; tab: Crontab } {
  const found = tab.env.find((e) => e.name === name);
  if (found && found.value === value) return { status: 'present', tab };
  const env = [...tab.env.filter((e) => e.name !== name), { name, value }];
  return { status: found ? 'updated' : 'new', tab: { ...tab, env } };
}

export function withoutEnv(tab: Crontab, name: string): { removed: boolean; tab: Crontab } {
  const env = tab.env.filter((e) => e.name !== name);
  return { removed: env.length !== tab.env.length, tab: { ...tab, env } };
}

function checkEnvName(fun: string, name: string): string {
  if (!ENV_NAME.test(name)) throw new BrineError('BAD_ARGUMENTS', `${fun}: '${name}' is not a valid environment variable name`);
  return name;
}

const USER = { name: 'user', type: 'string', required: true, doc: 'whose crontab' } as const;

export const cronEnvFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'cron.set_env',
    doc: "Set NAME=value in the user's crontab; returns 'new', 'updated' or 'present'.",
    params: [USER, { name: 'name', type: 'string', required: true, doc: 'the variable' }, { name: 'value', type: 'any', doc: 'its value' }],
    run: async (_ctx, a) => {
      const fun = 'cron.set_env';
      const value = a.named.value === undefined || a.named.value === null ? '' : String(a.named.value);
      if (/[\n\r]/.test(value)) throw new BrineError('BAD_ARGUMENTS', `${fun}: the value of ${a.named.name} must be on one line`);
      const r = withEnv(parseCrontab(await readCrontab(fun, a.named.user)), checkEnvName(fun, a.named.name), value);
      if (r.status !== 'present') await writeCrontab(fun, a.named.user, r.tab);
      return r.status;
    },
  }),
  defineFunction({
    name: 'cron.rm_env',
    doc: "Remove NAME=... from the user's crontab; returns 'removed' or 'absent'.",
    params: [USER, { name: 'name', type: 'string', required: true, doc: 'the variable' }],
    run: async (_ctx, a) => {
      const fun = 'cron.rm_env';
      const r = withoutEnv(parseCrontab(await readCrontab(fun, a.named.user)), a.named.name);
      if (!r.removed) return 'absent';
      await writeCrontab(fun, a.named.user, r.tab);
      return 'removed';
    },
  }),
];
