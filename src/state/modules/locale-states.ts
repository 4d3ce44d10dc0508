// locale.system and locale.present: the system locale and generated locales, with the comments
// and changes of salt/states/locale.py.

import { defineState, type StateFunction } from '../types.js';
import { callFn, stateResult } from './state-result.js';

const NAME = { name: 'name', type: 'string', required: true, doc: 'the locale, e.g. en_US.UTF-8' } as const;

export const localeStates: readonly StateFunction[] = [
  defineState({
    name: 'locale.system',
    doc: 'Make sure the system locale (LANG in /etc/default/locale) is name.',
    params: [NAME],
    // Salt's own example: a state requiring itself would be a requisite cycle
    example: 'us_locale:\n  locale.present:\n    - name: en_US.UTF-8\n\ndefault_locale:\n  locale.system:\n    - name: en_US.UTF-8\n    - require:\n      - locale: us_locale',
    run: async (ctx, a) => {
      const { name } = a.named;
      const now = await callFn<string>(ctx, 'locale.get_locale');
      if (!now.ok) return stateResult(name, false, `Failed to set system locale: ${now.message}`);
      if (now.value === name) return stateResult(name, true, `System locale ${name} already set`);
      if (ctx.test) return stateResult(name, null, `System locale ${name} needs to be set`);
      const r = await callFn<boolean>(ctx, 'locale.set_locale', [name]);
      if (!r.ok) return stateResult(name, false, `Failed to set system locale: ${r.message}`);
      return r.value ? stateResult(name, true, `Set system locale ${name}`, { locale: name }) : stateResult(name, false, `Failed to set system locale to ${name}`);
    },
  }),
  defineState({
    name: 'locale.present',
    doc: 'Make sure a locale is generated (enabled in /etc/locale.gen, then locale-gen).',
    params: [NAME],
    example: 'en_US.UTF-8:\n  locale.present: []',
    run: async (ctx, a) => {
      const { name } = a.named;
      const avail = await callFn<boolean>(ctx, 'locale.avail', [name]);
      if (!avail.ok) return stateResult(name, false, avail.message);
      if (avail.value) return stateResult(name, true, `Locale ${name} is already present`);
      if (ctx.test) return stateResult(name, null, `Locale ${name} needs to be generated`);
      const r = await callFn<boolean>(ctx, 'locale.gen_locale', [name]);
      if (r.ok && r.value) return stateResult(name, true, `Generated locale ${name}`, { locale: name });
      return stateResult(name, false, `Failed to generate locale ${name}${r.ok ? '' : `: ${r.message}`}`);
    },
  }),
];
