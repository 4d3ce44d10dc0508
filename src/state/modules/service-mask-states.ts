// service.masked / service.unmasked: a systemd unit masked (or not), lasting or runtime-only, with
// Salt 3007's comments and changes (salt/states/service.py masked/unmasked). The mask is read from
// the unit link, so test=True answers without systemd; a real run without systemd fails with the
// service module's explanation.

import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';

async function ensure(ctx: StateContext, name: string, runtime: boolean, want: boolean): Promise<StateResult> {
  const maskType = runtime ? 'runtime masked' : 'masked';
  const action = want ? maskType : runtime ? 'runtime unmasked' : 'unmasked';
  const expected = { [maskType]: { old: !want, new: want } };
  const now = await callFn<boolean>(ctx, 'service.masked', [name], { runtime });
  if (!now.ok) return stateResult(name, false, now.message);
  if (now.value === want) return stateResult(name, true, want ? `Service ${name} is already ${action}` : `Service ${name} was already ${action}`);
  if (ctx.test) return stateResult(name, null, `Service ${name} would be ${action}`, expected);
  const done = await callFn(ctx, want ? 'service.mask' : 'service.unmask', [name], { runtime });
  if (!done.ok) return stateResult(name, false, done.message);
  const after = await callFn<boolean>(ctx, 'service.masked', [name], { runtime });
  if (after.ok && after.value === want) return stateResult(name, true, `Service ${name} was ${action}`, expected);
  // Salt leaves result True here, with only the comment saying it failed
  return stateResult(name, true, `Failed to ${want ? 'mask' : 'unmask'} service ${name}`);
}

const PARAMS = [
  { name: 'name', type: 'string', required: true, doc: "the unit, e.g. 'ntpd' (a name without a type is a .service)" },
  { name: 'runtime', type: 'bool', default: false, doc: 'the runtime mask (under /run, gone at reboot) instead of the lasting one' },
] as const;

export const serviceMaskStates: readonly StateFunction[] = [
  defineState({
    name: 'service.masked',
    doc: 'Make sure a systemd unit is masked (linked to /dev/null), so nothing can start it.',
    params: PARAMS,
    example: 'ntpd:\n  service.masked: []',
    run: (ctx, a) => ensure(ctx, a.named.name, a.named.runtime, true),
  }),
  defineState({
    name: 'service.unmasked',
    doc: 'Make sure a systemd unit is not masked.',
    params: PARAMS,
    example: 'chronyd:\n  service.unmasked:\n    - runtime: False',
    run: (ctx, a) => ensure(ctx, a.named.name, a.named.runtime, false),
  }),
];
