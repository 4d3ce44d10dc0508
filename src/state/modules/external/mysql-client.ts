// The mysql client as Salt's mysql module connects (salt/modules/mysql.py _connect): the
// state's connection_* arguments, else the minion's mysql.host/port/user/pass/db/unix_socket/
// default_file options, else the client's own defaults (root over the local socket on Debian).
// The password travels in MYSQL_PWD, never in argv; values are quoted here for SQL text.

import { runArgv } from '../../../modules/host-tools.js';
import type { StateContext } from '../../types.js';
import { findProgram, isUnreachable, type Unreachable } from './backend.js';
import { errorMessage } from '../../../util/errors.js';

export interface MyArgs {
  connection_host?: string | undefined;
  connection_port?: number | undefined;
  connection_user?: string | undefined;
  connection_pass?: string | undefined;
  connection_db?: string | undefined;
  connection_unix_socket?: string | undefined;
  connection_default_file?: string | undefined;
  connection_charset?: string | undefined;
}

export interface MyConnection {
  argv: string[];
  password?: string;
  where: string;
}

const opt = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));

export function myConnection(ctx: StateContext, a: MyArgs): MyConnection {
  const conf = (k: string): string | undefined => opt(ctx.exec.config[`mysql.${k}`]);
  const file = opt(a.connection_default_file) ?? conf('default_file');
  const host = opt(a.connection_host) ?? conf('host');
  const port = opt(a.connection_port) ?? conf('port');
  const user = opt(a.connection_user) ?? conf('user');
  const socket = opt(a.connection_unix_socket) ?? conf('unix_socket');
  const db = opt(a.connection_db) ?? conf('db');
  const charset = opt(a.connection_charset) ?? conf('charset');
  // --defaults-file must come first, or the client ignores it.
  const argv = [...(file ? [`--defaults-file=${file}`] : []), '--batch', '--skip-column-names', '--raw'];
  if (host) argv.push('--host', host);
  if (port) argv.push('--port', port);
  if (user) argv.push('--user', user);
  if (socket) argv.push('--socket', socket);
  if (charset) argv.push('--default-character-set', charset);
  if (db) argv.push('--database', db);
  const c: MyConnection = { argv, where: socket ? `the socket ${socket}` : host ? `${host}:${port ?? 3306}` : 'the local socket' };
  const pass = opt(a.connection_pass) ?? conf('pass');
  if (pass !== undefined) c.password = pass;
  return c;
}

export class MyError extends Error {}

/** Runs SQL from stdin and returns the rows of its output, fields split. Throws MyError with the client's message. */
export async function mysql(ctx: StateContext, c: MyConnection, sql: string): Promise<string[][]> {
  const prog = findProgram('mysql', 'mariadb-client');
  if (isUnreachable(prog)) throw new MyError(prog.reason);
  const r = await runArgv('mysql', [prog.path, ...c.argv], {
    stdin: sql,
    signal: ctx.exec.signal,
    timeoutMs: 120_000,
    ...(c.password !== undefined ? { env: { MYSQL_PWD: c.password } } : {}),
  });
  if (r.retcode !== 0) throw new MyError((r.stderr || r.stdout).trim() || `mysql exited with ${r.retcode}`);
  return r.stdout === '' ? [] : r.stdout.split('\n').map((l) => l.split('\t'));
}

/** A string literal (backslash and quote escaped, as the server's default sql_mode reads them). */
export const lit = (v: string): string => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
/** An identifier in backquotes. */
export const ident = (v: string): string => `\`${v.replace(/`/g, '``')}\``;

export function unreachableServer(c: MyConnection, err: unknown): Unreachable {
  const msg = errorMessage(err);
  return {
    reason: `MySQL/MariaDB at ${c.where} cannot be used: ${msg}; start the server (systemctl start mariadb) or set connection_host/connection_user/connection_pass (or the minion's mysql.* options)`,
  };
}
