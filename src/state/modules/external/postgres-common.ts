// What every postgres_* state shares: Salt's connection arguments, and the rule for a server
// that cannot be reached (test=True: Salt's answer for an object to create; a real run: a
// failure naming the server and what to start or set).

import type { ParamSpec } from '../../../modules/index.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct } from './backend.js';
import { PgError, pgConnection, psql, type PgArgs, type PgConnection, unreachableServer } from './postgres-client.js';

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

/**
 * A postgres_*.absent state: `exists` looks the object up and `drop` removes it (both take the
 * name as the psql variable n), with Salt's comments for `noun` ("User", "Database", ...).
 */
export function absentState(spec: { name: string; doc: string; example: string; noun: string; exists: string; drop: string }): StateFunction {
  return defineState({
    name: spec.name,
    doc: spec.doc,
    params: [{ name: 'name', type: 'string', required: true }, ...CONNECTION_PARAMS],
    example: spec.example,
    run: async (ctx, a) => {
      const name = a.named.name;
      const what = `${spec.noun} ${name}`;
      const found = await lookUp(
        ctx,
        name,
        a.named,
        () => stateResult(name, null, `${what} is set to be removed`),
        async (c) => (await psql(ctx, c, spec.exists, { n: name })).length > 0,
      );
      if (isResult(found)) return found;
      if (!found.value) return stateResult(name, true, `${what} is not present, so it cannot be removed`);
      if (ctx.test) return stateResult(name, null, `${what} is set to be removed`);
      try {
        await psql(ctx, found.c, spec.drop, { n: name });
      } catch (err) {
        return failed(name, `${what} failed to be removed`, err);
      }
      return stateResult(name, true, `${what} has been removed`, { [name]: 'Absent' });
    },
  });
}
