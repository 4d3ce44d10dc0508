// timezone.system: the system time zone and whether the hardware clock keeps UTC, with the
// comments and changes of salt/states/timezone.py.

import { defineState, type StateFunction } from '../types.js';
import { callFn, stateResult } from './state-result.js';

const system = defineState({
  name: 'timezone.system',
  doc: "Make sure the system's time zone is name (and the hardware clock keeps UTC, or local time with utc: False).",
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the zone, e.g. Europe/Paris' },
    { name: 'utc', type: 'bool', default: true, doc: 'the hardware clock keeps UTC (False: local time)' },
  ],
  example: 'Europe/Paris:\n  timezone.system:\n    - utc: True',
  run: async (ctx, a) => {
    const { name, utc } = a.named;
    const cmp = await callFn<boolean>(ctx, 'timezone.zone_compare', [name]);
    if (!cmp.ok) return stateResult(name, false, `Unable to compare desired timezone '${name}' to system timezone: ${cmp.message}`);
    const hw = await callFn<string>(ctx, 'timezone.get_hwclock');
    if (!hw.ok) return stateResult(name, false, hw.message);
    const myutc = hw.value !== 'localtime';
    const messages: string[] = [];
    let result: boolean | null = null;
    if (cmp.value) {
      result = true;
      messages.push(`Timezone ${name} already set`);
    }
    const doZone = !cmp.value;
    // As in Salt, utc: False never changes the clock setting (only utc: True is checked).
    const doUtc = utc && utc !== myutc;
    if (doUtc) result = null;
    else if (utc) messages.push(`UTC already set to ${name}`);
    if (result === true) return stateResult(name, true, messages.join(', '));
    if (ctx.test) {
      const would = [...(doZone ? [`Timezone ${name} needs to be set`] : []), ...(doUtc ? [`UTC needs to be set to ${utc ? 'True' : 'False'}`] : [])];
      return stateResult(name, null, would.join(', '));
    }
    const done: string[] = [];
    const changes: Record<string, unknown> = {};
    if (doZone) {
      const r = await callFn<boolean | string>(ctx, 'timezone.set_zone', [name]);
      if (r.ok && r.value === true) {
        changes.timezone = name;
        done.push(`Set timezone ${name}`);
        result = true;
      } else {
        done.push('Failed to set timezone');
        result = false;
      }
    }
    if (doUtc) {
      const r = await callFn<boolean>(ctx, 'timezone.set_hwclock', [utc ? 'UTC' : 'localtime']);
      if (r.ok && r.value) {
        changes.utc = utc;
        done.push(`Set UTC to ${utc ? 'True' : 'False'}`);
        result = true;
      } else {
        done.push(`Failed to set UTC to ${utc ? 'True' : 'False'}`);
        result = false;
      }
    }
    return stateResult(name, result, done.join(', '), changes);
  },
});

export const timezoneStates: readonly StateFunction[] = [system];
