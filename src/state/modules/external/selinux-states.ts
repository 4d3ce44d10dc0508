// selinux.mode, selinux.boolean and selinux.fcontext_policy_present with Salt's arguments,
// validation and test=True answers (salt/states/selinux.py). A kernel without SELinux (Debian's
// default) is in mode Disabled, which brine reads for real; every change fails at run time,
// saying how to enable SELinux, or that brine only answers test=True for it so far.

import fs from 'node:fs';
import { defineState, type StateContext, type StateFunction } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct, type Unreachable } from './backend.js';

const SELINUXFS = '/sys/fs/selinux';

/** Salt's _refine_mode: the mode's canonical name, or 'unknown'. */
export function refineMode(mode: unknown): string {
  const m = String(mode).toLowerCase();
  if (m.startsWith('e') || m === '1' || m === 'on') return 'Enforcing';
  if (m.startsWith('p') || m === '0' || m === 'off') return 'Permissive';
  if (m.startsWith('d')) return 'Disabled';
  return 'unknown';
}

/** Salt's _refine_value for booleans: 'on', 'off', or undefined. */
function refineValue(value: unknown): 'on' | 'off' | undefined {
  const v = String(value).toLowerCase();
  if (['1', 'on', 'yes', 'true'].includes(v)) return 'on';
  if (['0', 'off', 'no', 'false'].includes(v)) return 'off';
  return undefined;
}

/** selinux.getenforce: Disabled when the kernel has no SELinux filesystem. */
function currentMode(): string {
  try {
    return fs.readFileSync(`${SELINUXFS}/enforce`, 'utf8').trim() === '1' ? 'Enforcing' : 'Permissive';
  } catch {
    return 'Disabled';
  }
}

function whyNot(): Unreachable {
  if (!fs.existsSync(SELINUXFS)) {
    return { reason: 'SELinux is not enabled in this kernel (no /sys/fs/selinux): install selinux-basics and selinux-policy-default, run selinux-activate and reboot' };
  }
  return { reason: 'brine answers selinux states only with test=True so far; use cmd.run with setenforce, setsebool or semanage until it does' };
}

const refuse = (ctx: StateContext, name: string) => cannotAct(ctx, name, whyNot());

const mode = defineState({
  name: 'selinux.mode',
  doc: 'Make sure SELinux is in the given mode (reads the mode for real; a change is test=True only on brine).',
  params: [{ name: 'name', type: 'string', required: true, doc: 'enforcing, permissive or disabled' }],
  example: 'enforcing:\n  selinux.mode: []',
  run: async (ctx, a) => {
    const name = a.named.name;
    const want = refineMode(name);
    if (want === 'unknown') return stateResult(name, false, `${name} is not an accepted mode`);
    const now = currentMode();
    if (now === want) return stateResult(name, true, `SELinux is already in ${want} mode`);
    if (ctx.test) return stateResult(name, null, `SELinux mode is set to be changed to ${want}`, { old: now, new: want });
    return refuse(ctx, name);
  },
});

const boolean = defineState({
  name: 'selinux.boolean',
  doc: 'Make sure an SELinux boolean is on or off, now and optionally persistently (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'value', type: 'any', required: true, doc: 'on/off, true/false, 1/0' },
    { name: 'persist', type: 'bool', default: false },
  ],
  example: 'httpd_can_network_connect:\n  selinux.boolean:\n    - value: True\n    - persist: True',
  run: async (ctx, a) => {
    const { name, value } = a.named;
    const v = refineValue(value);
    if (v === undefined) return stateResult(name, false, `${String(value)} is not a valid value for the boolean`);
    if (ctx.test) return stateResult(name, null, `Boolean ${name} is set to be changed to ${v}`);
    return refuse(ctx, name);
  },
});

const fcontextPolicyPresent = defineState({
  name: 'selinux.fcontext_policy_present',
  doc: 'Make sure an SELinux file context policy exists for a filespec (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the filespec (a regex)' },
    { name: 'sel_type', type: 'string', required: true },
    { name: 'filetype', type: 'string', default: 'a', doc: 'a, f, d, c, b, s, l or p' },
    { name: 'sel_user', type: 'string' },
    { name: 'sel_level', type: 'string' },
  ],
  example: '"/srv/www(/.*)?":\n  selinux.fcontext_policy_present:\n    - sel_type: httpd_sys_content_t',
  // Salt's test answer for a policy to add: result None, no comment, no changes (changes are
  // only filled in when result is true).
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, '') : refuse(ctx, a.named.name)),
});

export const selinuxStates: readonly StateFunction[] = [mode, boolean, fcontextPolicyPresent];
