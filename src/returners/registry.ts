// The returners brine has, by Salt's virtual name, and how a `ret` value names them: Salt splits
// `--return a,b` on commas and runs each once; event_return may also be a list.

import { BrineError } from '../util/errors.js';
import { PostgresReturner } from './postgres.js';
import type { Returner, ReturnerContext } from './returner.js';
import { SyslogReturner } from './syslog.js';

/**
 * `local_cache` is brine's own job cache: every return and load reaches it anyway, so as a
 * returner it stores nothing more (Salt's default master_job_cache, and `--return local_cache`).
 */
class LocalCacheReturner implements Returner {
  readonly name = 'local_cache';
  async returner(): Promise<void> {}
  async saveLoad(): Promise<void> {}
  async eventReturn(): Promise<void> {}
}

const FACTORIES: Readonly<Record<string, (ctx: ReturnerContext) => Returner>> = {
  local_cache: () => new LocalCacheReturner(),
  postgres: (ctx) => new PostgresReturner(ctx),
  syslog: (ctx) => new SyslogReturner(ctx),
};

export const RETURNER_NAMES: readonly string[] = Object.keys(FACTORIES);

/** The returner called `name`, or RETURNER_UNKNOWN naming the ones there are. */
export function buildReturner(name: string, ctx: ReturnerContext): Returner {
  const make = Object.hasOwn(FACTORIES, name) ? FACTORIES[name] : undefined;
  if (make === undefined) throw new BrineError('RETURNER_UNKNOWN', `there is no returner '${name.slice(0, 100)}': use one of ${RETURNER_NAMES.join(', ')} (docs/returners.md)`);
  return make(ctx);
}

export { returnerNames } from './names.js';
