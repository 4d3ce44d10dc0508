// psql as Salt's postgres module runs it (salt/modules/postgres.py _psql_cmd/_run_psql): the
// connection from the state's db_* arguments, else the minion's postgres.host/port/user/pass/
// maintenance_db options; over a local socket as root it runs as the `postgres` account, as Salt
// does. Values reach SQL only as psql variables (:'v' literals, :"v" identifiers), never spliced.

import { resolveRunas, runProcess } from '../../../modules/index.js';
import type { StateContext } from '../../types.js';
import { findProgram, isUnreachable, type Unreachable } from './backend.js';
import { errorMessage } from '../../../util/errors.js';

export interface PgConnection {
  host?: string;
  port?: string;
  user?: string;
  password?: string;
  maintenanceDb: string;
  /** The system account psql runs as (Salt's `user`/runas). */
  runas?: string;
}

export interface PgArgs {
  user?: string | undefined;
  maintenance_db?: string | undefined;
  db_user?: string | undefined;
  db_password?: string | undefined;
  db_host?: string | undefined;
  db_port?: unknown;
}

const opt = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));

export function pgConnection(ctx: StateContext, a: PgArgs): PgConnection {
  const conf = (k: string): string | undefined => opt(ctx.exec.config[`postgres.${k}`]);
  const host = opt(a.db_host) ?? conf('host');
  let runas = opt(a.user);
  // Salt: no host (or a socket directory) and running as root means peer authentication as postgres.
  if (runas === undefined && (host === undefined || host.startsWith('/')) && process.getuid?.() === 0) runas = 'postgres';
  const c: PgConnection = { maintenanceDb: opt(a.maintenance_db) ?? conf('maintenance_db') ?? 'postgres' };
  if (host !== undefined) c.host = host;
  const port = opt(a.db_port) ?? conf('port');
  if (port !== undefined) c.port = port;
  const user = opt(a.db_user) ?? conf('user');
  if (user !== undefined) c.user = user;
  const password = opt(a.db_password) ?? conf('pass');
  if (password !== undefined) c.password = password;
  if (runas !== undefined) c.runas = runas;
  return c;
}

export class PgError extends Error {}

const SEP = '\u001f';

/**
 * Runs SQL (from stdin, stopping at the first error) and returns the rows of its last query,
 * fields split. Throws PgError with psql's message when the server refuses or is unreachable.
 */
export async function psql(ctx: StateContext, c: PgConnection, sql: string, vars: Record<string, string> = {}, db?: string): Promise<string[][]> {
  const prog = findProgram('psql', 'postgresql-client');
  if (isUnreachable(prog)) throw new PgError(prog.reason);
  const argv = [prog.path, '--no-align', '--no-readline', '--no-psqlrc', '--no-password', '--tuples-only', '--quiet', '--field-separator', SEP, '--set', 'ON_ERROR_STOP=1'];
  for (const [k, v] of Object.entries(vars)) argv.push('--set', `${k}=${v}`);
  if (c.user !== undefined) argv.push('--username', c.user);
  if (c.host !== undefined) argv.push('--host', c.host);
  if (c.port !== undefined) argv.push('--port', c.port);
  argv.push('--dbname', db ?? c.maintenanceDb, '--file', '-');
  const who = c.runas !== undefined ? await resolveRunas('psql', c.runas) : undefined;
  const r = await runProcess({
    argv,
    stdin: sql,
    label: 'psql',
    rstrip: true,
    signal: ctx.exec.signal,
    timeoutMs: 120_000,
    ...(c.password !== undefined ? { env: { PGPASSWORD: c.password } } : {}),
    ...(who ? { uid: who.uid, gid: who.gid, cwd: who.cwd } : {}),
  });
  if (r.retcode !== 0) throw new PgError((r.stderr || r.stdout).trim() || `psql exited with ${r.retcode}`);
  return r.stdout === '' ? [] : r.stdout.split('\n').map((l) => l.split(SEP));
}

/** Why PostgreSQL cannot be used here, for a state's run-time failure: psql's own words plus what to check. */
export function unreachableServer(c: PgConnection, err: unknown): Unreachable {
  const where = c.host !== undefined ? `${c.host}:${c.port ?? 5432}` : `the local socket${c.port !== undefined ? ` (port ${c.port})` : ''}`;
  const msg = errorMessage(err);
  return { reason: `PostgreSQL at ${where} cannot be used: ${msg}; start the server (systemctl start postgresql) or set db_host/db_port/db_user (or the minion's postgres.host/port/user options)` };
}
