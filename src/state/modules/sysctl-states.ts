// sysctl.present: a kernel parameter set now and persisted in a sysctl.conf-style file, with
// Salt's comments (salt/states/sysctl.py) in both modes.

import { defineState, type StateFunction } from '../types.js';
import { callFn, stateResult } from './state-result.js';

// Salt compares multi-value parameters with runs of blanks collapsed (or split on whitespace).
const words = (v: string): string => v.split(/\s+/).filter(Boolean).join(' ');
const blanks = (v: string): string => v.replace(/ +|\t+/g, ' ');

const present = defineState({
  name: 'sysctl.present',
  doc: 'Make sure a kernel parameter has a value now and in a config file.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the parameter, e.g. net.ipv4.ip_forward' },
    { name: 'value', type: 'any', required: true, doc: 'the value (several values separated by blanks, as sysctl prints them)' },
    { name: 'config', type: 'string', doc: 'the file to persist it in (default: /etc/sysctl.d/99-salt.conf under systemd 207+, else /etc/sysctl.conf)' },
  ],
  example: 'vm.swappiness:\n  sysctl.present:\n    - value: 20\n\nnet.ipv4.ip_forward:\n  sysctl.present:\n    - value: 1\n    - config: /etc/sysctl.d/90-routing.conf',
  run: async (ctx, a) => {
    const { name } = a.named;
    const value = String(a.named.value);
    let config = a.named.config;
    if (config === undefined) {
      const d = await callFn<string>(ctx, 'sysctl.default_config');
      if (!d.ok) return stateResult(name, false, d.message);
      config = d.value;
    }
    if (ctx.test) {
      const conf = await callFn<Record<string, string> | []>(ctx, 'sysctl.show', [], { config_file: config });
      if (!conf.ok) {
        return stateResult(name, null, `Sysctl option ${name} might be changed, we failed to check config file at ${config}. The file is either unreadable, or missing.`);
      }
      const configured = !Array.isArray(conf.value) && Object.hasOwn(conf.value, name);
      const cur = await callFn<string>(ctx, 'sysctl.get', [name]);
      const current = cur.ok ? cur.value : '';
      if (current) {
        if (configured) {
          if (words(value) === words(current)) return stateResult(name, true, `Sysctl value ${name} = ${value} is already set`);
        } else if (blanks(current) !== blanks(value)) {
          return stateResult(name, null, `Sysctl option ${name} set to be changed to ${value}`);
        } else {
          return stateResult(name, null, `Sysctl value is currently set on the running system but not in a config file. Sysctl option ${name} set to be changed to ${value} in config file.`);
        }
      } else if (configured) {
        return stateResult(name, null, `Sysctl value ${name} is present in configuration file but is not present in the running config. The value ${name} is set to be changed to ${value}`);
      }
      return stateResult(name, null, `Sysctl option ${name} would be changed to ${value}`);
    }
    const r = await callFn<string>(ctx, 'sysctl.persist', [name, a.named.value, config]);
    if (!r.ok) return stateResult(name, false, `Failed to set ${name} to ${value}: ${r.message}`);
    if (r.value === 'Updated') return stateResult(name, true, `Updated sysctl value ${name} = ${value}`, { [name]: a.named.value });
    return stateResult(name, true, `Sysctl value ${name} = ${value} is already set`);
  },
});

export const sysctlStates: readonly StateFunction[] = [present];
