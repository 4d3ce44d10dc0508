// config.option (salt/modules/config.py): one configuration value, looked up by its whole name
// in the minion's config, grains, pillar and the master's config in the pillar, without
// traversing nested data (that is config.get). Salt's built-in DEFAULTS table (mongo.*, ldap.*
// ...) is not brine's, so a name found nowhere gives the default.

import { isDict, truthy } from '../jinja/py-values.js';
import type { TemplateFunction } from './template-function.js';

function fnmatchRe(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[' && pattern.indexOf(']', i + 2) > 0) {
      const j = pattern.indexOf(']', i + 2);
      const set = pattern.slice(i + 1, j).replace(/\\/g, '\\\\');
      re += `[${set.startsWith('!') ? `^${set.slice(1)}` : set}]`;
      i = j;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

export const CONFIG_FUNCTIONS: Record<string, TemplateFunction> = {
  'config.option': {
    doc: "A config value by its whole name from the minion config, grains, pillar or the pillar's master key; wildcard=True returns every match.",
    params: [
      { name: 'value' },
      { name: 'default', default: null },
      { name: 'omit_opts', default: false },
      { name: 'omit_grains', default: false },
      { name: 'omit_pillar', default: false },
      { name: 'omit_master', default: false },
      { name: 'omit_all', default: false },
      { name: 'wildcard', default: false },
    ],
    run: (host, a) => {
      const all = truthy(a.omit_all);
      const pillar = host.pillar();
      const master = isDict(pillar.master) ? pillar.master : {};
      const stores: [boolean, Record<string, unknown>][] = [
        [all || truthy(a.omit_opts), host.opts()],
        [all || truthy(a.omit_grains), host.grains()],
        [all || truthy(a.omit_pillar), pillar],
        [all || truthy(a.omit_master), master],
      ];
      const wildcard = truthy(a.wildcard);
      const dflt = a.default === null ? (wildcard ? {} : '') : a.default;
      const name = String(a.value);
      if (!wildcard) {
        for (const [omit, data] of stores) if (!omit && Object.hasOwn(data, name)) return data[name];
        return dflt;
      }
      // the minion's own config wins: apply the stores from the lowest priority up
      const re = fnmatchRe(name);
      const ret: Record<string, unknown> = {};
      for (const [omit, data] of [...stores].reverse()) if (!omit) for (const k of Object.keys(data)) if (re.test(k)) ret[k] = data[k];
      return Object.keys(ret).length > 0 ? ret : dflt;
    },
  },
};
