// The minion's `saltenv` and `lock_saltenv` options, as Salt's get_sls_opts applies them to the
// state functions: a call without saltenv= uses the minion's saltenv (for a highstate: only
// that environment's top file and section); with lock_saltenv another saltenv= is refused.

import type { ExecContext, ModuleFunction } from '../modules/index.js';
import { BrineError } from '../util/errors.js';

/** The saltenv a state call runs with: its own saltenv=, else the minion's `saltenv` option. */
export function effectiveSaltenv(config: ExecContext['config'], given: unknown): string | undefined {
  const own = typeof config.saltenv === 'string' && config.saltenv !== '' ? config.saltenv : undefined;
  if (given === undefined || given === null) return own;
  const asked = String(given);
  if (config.lock_saltenv === true && asked !== own) {
    throw new BrineError(
      'BAD_ARGUMENTS',
      `lock_saltenv is enabled, saltenv cannot be changed: this minion runs states from saltenv ${own ?? 'base (none set)'}; call it without saltenv=${asked}, or remove lock_saltenv from the minion configuration`,
    );
  }
  return asked;
}

/** The function with its saltenv= argument replaced by the effective one (functions without saltenv are returned as they are). */
export function withMinionSaltenv(fn: ModuleFunction): ModuleFunction {
  if (!fn.params.some((p) => p.name === 'saltenv')) return fn;
  return {
    ...fn,
    run: (ctx, a) => {
      const saltenv = effectiveSaltenv(ctx.config, a.named.saltenv);
      const { saltenv: _given, ...named } = a.named;
      return fn.run(ctx, { ...a, named: saltenv === undefined ? named : { ...named, saltenv } });
    },
  };
}
