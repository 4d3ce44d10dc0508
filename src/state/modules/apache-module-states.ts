// apache_module.enabled / disabled: an Apache module switched on or off with a2enmod / a2dismod
// (Debian layout), with Salt's {old, new} changes and comments (salt/states/apache_module.py).

import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';

async function toggle(ctx: StateContext, name: string, enable: boolean): Promise<StateResult> {
  const word = enable ? 'enabled' : 'disabled';
  const now = await callFn<boolean>(ctx, 'apache.check_mod_enabled', [name]);
  if (!now.ok) return stateResult(name, false, now.message);
  if (now.value === enable) return stateResult(name, true, `${name} already ${word}.`);
  const changes = enable ? { old: null, new: name } : { old: name, new: null };
  if (ctx.test) return stateResult(name, null, `Apache module ${name} is set to be ${word}.`, changes);
  const r = await callFn<{ Status: unknown }>(ctx, enable ? 'apache.a2enmod' : 'apache.a2dismod', [name]);
  if (!r.ok) return stateResult(name, false, `Failed to ${enable ? 'enable' : 'disable'} ${name} Apache module (${r.message})`);
  const status = r.value.Status;
  if (typeof status === 'string' && status.includes(word)) return stateResult(name, true, '', changes);
  return stateResult(name, false, `Failed to ${enable ? 'enable' : 'disable'} ${name} Apache module${typeof status === 'string' ? ` (${status})` : ''}`);
}

const NAME = { name: 'name', type: 'string', required: true, doc: "the Apache module, e.g. 'rewrite'" } as const;

export const apacheModuleStates: readonly StateFunction[] = [
  defineState({
    name: 'apache_module.enabled',
    doc: 'Make sure an Apache module is enabled (a2enmod; Debian layout).',
    params: [NAME],
    example: 'rewrite:\n  apache_module.enabled: []',
    run: (ctx, a) => toggle(ctx, a.named.name, true),
  }),
  defineState({
    name: 'apache_module.disabled',
    doc: 'Make sure an Apache module is disabled (a2dismod; Debian layout).',
    params: [NAME],
    example: 'status:\n  apache_module.disabled: []',
    run: (ctx, a) => toggle(ctx, a.named.name, false),
  }),
];
