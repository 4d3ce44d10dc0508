// debconf.set: answers to a package's debconf questions, set only where they differ, with
// Salt's comments and changes (salt/states/debconfmod.py set()).

import type { Selection } from '../../modules/debconf-module.js';
import { defineState, type StateFunction } from '../types.js';
import { callFn, stateResult } from './state-result.js';

/** Python's str() of a YAML scalar, as Salt compares and reports answers. */
const pyStr = (v: unknown): string => (v === true ? 'True' : v === false ? 'False' : v === null || v === undefined ? 'None' : String(v));

const set = defineState({
  name: 'debconf.set',
  // Salt's debconf.set takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: "Make sure a package's debconf questions have the given answers (for its next install or reconfigure).",
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the package' },
    { name: 'data', type: 'map', required: true, doc: '{question: {type: ..., value: ...}}; type is string, boolean, select, multiselect, password, note or text' },
  ],
  example:
    "mysql-server:\n  debconf.set:\n    - data:\n        'mysql-server/root_password': {'type': 'password', 'value': 'temp'}\n        'mysql-server/start_on_boot': {'type': 'boolean', 'value': True}",
  run: async (ctx, a) => {
    const { name } = a.named;
    const shown = await callFn<Selection[] | null>(ctx, 'debconf.show', [name]);
    if (!shown.ok) return stateResult(name, false, shown.message);
    const current = shown.value ?? [];
    let result: boolean | null = true;
    let comment = '';
    const changes: Record<string, string> = {};
    for (const [key, spec] of Object.entries(a.named.data)) {
      const s = (spec ?? {}) as { type?: unknown; value?: unknown };
      const type = String(s.type);
      // debconf's booleans are 'true' and 'false'; Salt lowercases them before comparing.
      const value = type === 'boolean' ? (s.value ? 'true' : 'false') : pyStr(s.value);
      if (current.some(([q, t, v]) => q === key && t === type && v === value)) {
        if (comment === '') comment = 'Unchanged answers: ';
        comment += `${key} `;
      } else if (ctx.test) {
        result = null;
        changes[key] = `New value: ${value}`;
      } else {
        const r = await callFn<boolean>(ctx, 'debconf.set', [name, key, type, value]);
        if (r.ok && r.value) {
          changes[key] = type === 'password' ? '(password hidden)' : value;
        } else {
          result = false;
          comment = 'Some settings failed to be applied.';
          changes[key] = 'Failed to set!';
        }
      }
    }
    if (Object.keys(changes).length === 0) comment = 'All specified answers are already set';
    return stateResult(name, result, comment, changes);
  },
});

export const debconfStates: readonly StateFunction[] = [set];
