// The API's views of the whole fleet: the unfiltered /events stream, /stats and /metrics show
// every minion, job and hook, so each needs its own permission (threats.md #48). They are spelled
// as Salt spells runner permissions, one runner "module" each: '@events', '@stats', '@metrics';
// '@runner' grants all three, {'@runner': ['stats.*']} one of them.

import type { Principal } from '../auth/index.js';
import { checkAcl } from '../auth/index.js';
import { BrineError } from '../util/errors.js';
import type { ApiBackend } from './backend.js';

export type FleetView = 'events' | 'stats' | 'metrics';

/** The runner function each view stands for in the ACL check (none of them is callable). */
const VIEW_FUNCTION: Record<FleetView, string> = { events: 'events.stream', stats: 'stats.read', metrics: 'metrics.read' };

/** True when the user's current external_auth entries grant the view. */
export function mayView(backend: ApiBackend, who: Principal, view: FleetView): boolean {
  // runner entries have no targets, so no minion lookup is needed
  return checkAcl(backend.auth.permsOf(who), { client: 'runner', fun: VIEW_FUNCTION[view] }, () => []).allowed;
}

/** ACL_DENIED (logged as every ACL refusal) unless the user may see the view. */
export function requireView(backend: ApiBackend, who: Principal, view: FleetView, source: string): void {
  if (mayView(backend, who, view)) return;
  const fun = VIEW_FUNCTION[view];
  const reason = `/${view} shows the whole fleet and needs '@${view}' (or '@runner') in the user's external_auth entries`;
  backend.auth.logRefusal('API request denied', { user: who.user, eauth: who.eauth, source, client: 'runner', fun, reason, code: 'ACL_DENIED' });
  throw new BrineError('ACL_DENIED', `${who.user} may not read /${view}: ${reason}`, { details: { fun, client: 'runner' } });
}
