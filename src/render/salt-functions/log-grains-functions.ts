// log.* (salt/modules/logmod.py: log the message at that level on the minion, return True) and
// the grains predicates templates call (grains.equals, grains.has_value).

import { str } from '../jinja/py-values.js';
import type { LogLevel, TemplateFunction } from './template-function.js';

// log.exception logs at ERROR, as Python's logging does (there is no traceback to add)
const LOG_LEVELS: Record<string, LogLevel> = { debug: 'debug', info: 'info', warning: 'warning', error: 'error', critical: 'critical', exception: 'error' };

export const LOG_FUNCTIONS: Record<string, TemplateFunction> = Object.fromEntries(
  Object.entries(LOG_LEVELS).map(([fun, level]) => [
    `log.${fun}`,
    {
      doc:
        fun === 'exception'
          ? "Writes the message to the minion's log at level ERROR, as Python's log.exception does; returns True."
          : `Writes the message to the minion's log at level ${fun.toUpperCase()}; returns True.`,
      params: [{ name: 'message' }],
      run: (host, a) => {
        host.log?.(level, str(a.message));
        return true;
      },
    } satisfies TemplateFunction,
  ]),
);

export const GRAINS_FUNCTIONS: Record<string, TemplateFunction> = {
  'grains.equals': {
    doc: "True when str(value) equals str(grains.get(key)) (':' traverses nested grains).",
    params: [{ name: 'key' }, { name: 'value' }],
    run: (host, a) => str(a.value) === str(host.grain(a.key, '')),
  },
  'grains.has_value': {
    doc: "True when the grain exists, whatever its value (':' traverses nested grains).",
    params: [{ name: 'key' }],
    run: (host, a) => {
      const missing = Symbol('missing');
      return host.grain(a.key, missing) !== missing;
    },
  },
};
