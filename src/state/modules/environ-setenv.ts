// environ.setenv: variables of the process running the job, as Salt's salt/states/environ.py
// decides them and salt/modules/environ.py applies them. Later states of the same run (cmd.run,
// pip, ...) see the values; like Salt's default (update_minion False) the minion daemon itself is
// not changed. `permanent` is Windows-only in Salt and ignored here as there.

import { defineState, type StateFunction, type StateResult } from '../types.js';
import { failingSoftly, stateResult } from './state-result.js';

type Wanted = Record<string, string | false>;

/** Salt's state-side decision: what would change (a value, '' or None for a removal). */
export function environChanges(current: Readonly<Record<string, string | undefined>>, environ: Wanted, falseUnsets: boolean, clearAll: boolean): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  if (clearAll) for (const key of Object.keys(current)) if (!(key in environ)) changes[key] = falseUnsets ? null : '';
  for (const [key, val] of Object.entries(environ)) {
    const now = current[key];
    if (val === false) {
      if (now === undefined) {
        if (!falseUnsets) changes[key] = '';
      } else if (!falseUnsets) {
        if (now !== '') changes[key] = '';
      } else changes[key] = null;
    } else if ((now ?? '') !== val) changes[key] = val;
  }
  return changes;
}

/** Salt's environ.setenv module function: applies everything and returns every key it set (None when removed). */
function apply(environ: Wanted, falseUnsets: boolean, clearAll: boolean): Record<string, string | null> {
  const ret: Record<string, string | null> = {};
  const set = (key: string, val: string | false, unsets: boolean) => {
    if (val === false && unsets) {
      delete process.env[key];
      ret[key] = null;
    } else {
      process.env[key] = val === false ? '' : val;
      ret[key] = process.env[key]!;
    }
  };
  if (clearAll) for (const key of Object.keys(process.env)) if (!(key in environ)) set(key, false, falseUnsets);
  for (const [key, val] of Object.entries(environ)) set(key, val, falseUnsets);
  return ret;
}

function wanted(name: string, value: unknown): Wanted | undefined {
  if (typeof value === 'string' || value === false) return { [name]: value };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Wanted = {};
  for (const [k, v] of Object.entries(value)) {
    // Salt's module refuses a dict value that is neither a string nor False (the whole call fails)
    if (typeof v !== 'string' && v !== false) return undefined;
    out[k] = v;
  }
  return out;
}

export const environSetenv: StateFunction = failingSoftly(
  defineState({
    name: 'environ.setenv',
    doc: "Set environment variables of the process running the job (seen by the run's later states).",
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the variable to set (ignored when value is a mapping)' },
      { name: 'value', type: 'any', required: true, doc: 'a string, False (empty it, or unset with false_unsets), or a mapping of variables' },
      { name: 'false_unsets', type: 'bool', default: false, doc: 'a False value removes the variable instead of emptying it' },
      { name: 'clear_all', type: 'bool', default: false, doc: 'empty (or with false_unsets remove) every variable not listed' },
      { name: 'update_minion', type: 'bool', default: false, doc: "accepted for Salt's trees; the minion daemon's own environment is not changed" },
      { name: 'permanent', type: 'any', default: false, doc: 'Windows registry only in Salt; ignored' },
    ],
    example: 'a_dict_env:\n  environ.setenv:\n    - name: does_not_matter\n    - value:\n        LANG: C.UTF-8\n        http_proxy: ""',
    run: async (ctx, a): Promise<StateResult> => {
      const name = a.named.name;
      const environ = wanted(name, a.named.value);
      if (environ === undefined) return stateResult(name, false, 'Environ value must be string, dict or False');
      const changes = environChanges(process.env, environ, a.named.false_unsets, a.named.clear_all);
      const some = Object.keys(changes).length > 0;
      // Salt's test run keeps result True (salt/states/environ.py never sets None)
      if (ctx.test) return stateResult(name, true, some ? 'Environ values will be changed' : 'Environ values are already set with the correct values', changes);
      if (!some) return stateResult(name, true, 'Environ values were already set with the correct values');
      return stateResult(name, true, 'Environ values were set', apply(environ, a.named.false_unsets, a.named.clear_all));
    },
  }),
);
