// What every postgres_* state shares: Salt's connection arguments, and the rule for a server
// that cannot be reached (test=True: Salt's answer for an object to create; a real run: a
// failure naming the server and what to start or set).

import type { ParamSpec } from '../../../modules/index.js';
import type { StateContext, StateResult } from '../../types.js';
import { cannotAct } from './backend.js';
import { PgError, pgConnection, type PgArgs, type PgConnection, unreachableServer } from './postgres-client.js';

export const CONNECTION_PARAMS = [
  { name: 'user', type: 'string', doc: 'the system account psql runs as (default: postgres over a local socket as root)' },
  { name: 'maintenance_db', type: 'string', doc: 'the database to connect to (default: postgres)' },
  { name: 'db_user', type: 'string', doc: 'the database role to connect as' },
  { name: 'db_password', type: 'string' },
  { name: 'db_host', type: 'string', doc: 'host name, or a socket directory' },
  { name: 'db_port', type: 'any' },
] as const satisfies readonly ParamSpec[];

/**
 * Runs `look` (which reads the server); when the server cannot be used, answers `offline` under
 * test=True and fails with the reason otherwise. Other errors propagate.
 */
export async function lookUp<T>(ctx: StateContext, name: string, a: PgArgs, offline: () => StateResult, look: (c: PgConnection) => Promise<T>): Promise<{ c: PgConnection; value: T } | StateResult> {
  const c = pgConnection(ctx, a);
  try {
    return { c, value: await look(c) };
  } catch (err) {
    if (!(err instanceof PgError)) throw err;
    return ctx.test ? offline() : cannotAct(ctx, name, unreachableServer(c, err));
  }
}

export function isResult(v: object): v is StateResult {
  return 'result' in v && 'comment' in v;
}

/** A failure of the change itself: Salt's comment, then psql's reason. */
export function failed(name: string, comment: string, err: unknown): StateResult {
  if (!(err instanceof PgError)) throw err;
  return { name, result: false, changes: {}, comment: `${comment}: ${err.message}` };
}
