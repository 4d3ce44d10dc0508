// mysql_database and mysql_user present/absent with Salt's arguments, comments and changes
// (salt/states/mysql_database.py, mysql_user.py), acting for real through the mysql client.

import type { ParamSpec } from '../../../modules/index.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct } from './backend.js';
import { ident, lit, type MyArgs, type MyConnection, MyError, myConnection, mysql, unreachableServer } from './mysql-client.js';

// Salt's connection_args (passed as **kwargs there; declared here so they show in the docs).
export const CONNECTION = [
  { name: 'connection_host', type: 'string' },
  { name: 'connection_port', type: 'int' },
  { name: 'connection_user', type: 'string' },
  { name: 'connection_pass', type: 'string' },
  { name: 'connection_db', type: 'string' },
  { name: 'connection_unix_socket', type: 'string' },
  { name: 'connection_default_file', type: 'string' },
  { name: 'connection_charset', type: 'string' },
] as const satisfies readonly ParamSpec[];

/**
 * Runs `look`; a server that cannot be used answers `offline` under test=True (Salt's answer for
 * an object to create) and fails with the reason otherwise.
 */
async function lookUp<T>(ctx: StateContext, name: string, a: MyArgs, offline: () => StateResult, look: (c: MyConnection) => Promise<T>): Promise<{ c: MyConnection; value: T } | StateResult> {
  const c = myConnection(ctx, a);
  try {
    return { c, value: await look(c) };
  } catch (err) {
    if (!(err instanceof MyError)) throw err;
    return ctx.test ? offline() : cannotAct(ctx, name, unreachableServer(c, err));
  }
}

const isResult = (v: object): v is StateResult => 'result' in v && 'comment' in v;
const errText = (err: unknown): string => {
  if (!(err instanceof MyError)) throw err;
  return err.message;
};

const schema = (c: MyConnection, ctx: StateContext, name: string) =>
  mysql(ctx, c, `SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ${lit(name)};`).then((r) => r[0]);

const databasePresent = defineState({
  name: 'mysql_database.present',
  // Salt's mysql_database.present takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a MySQL/MariaDB database exists with the given character set and collation (acts for real).',
  params: [{ name: 'name', type: 'string', required: true }, { name: 'character_set', type: 'string' }, { name: 'collate', type: 'string' }, ...CONNECTION],
  example: 'appdb:\n  mysql_database.present:\n    - character_set: utf8mb4',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const found = await lookUp(
      ctx,
      name,
      n,
      () => stateResult(name, null, `Database ${name} is not present and needs to be created`),
      (c) => schema(c, ctx, name),
    );
    if (isResult(found)) return found;
    const { c, value: existing } = found;
    if (existing !== undefined) {
      const [charset, collate] = existing;
      let comment = `Database ${name} is already present`;
      let result: boolean | null = true;
      const alterCharset = n.character_set !== undefined && n.character_set !== charset;
      const alterCollate = n.collate !== undefined && n.collate !== collate;
      if (alterCharset) {
        comment = `Database character set ${n.character_set} != ${charset} needs to be updated`;
        if (ctx.test) result = null;
      }
      if (alterCollate) {
        comment += `\nDatabase collate ${n.collate} != ${collate} needs to be updated`;
        if (ctx.test) return stateResult(name, null, comment);
      }
      if (!alterCharset && !alterCollate) return stateResult(name, true, comment);
      if (ctx.test) return stateResult(name, result, `${comment}\nDatabase ${name} is going to be updated`);
      try {
        await mysql(ctx, c, `ALTER DATABASE ${ident(name)}${n.character_set ? ` CHARACTER SET ${lit(n.character_set)}` : ''}${n.collate ? ` COLLATE ${lit(n.collate)}` : ''};`);
      } catch (err) {
        return stateResult(name, false, `${comment}\n${errText(err)}`);
      }
      const now = await schema(c, ctx, name);
      const changes: Record<string, unknown> = {};
      if (now?.[1] !== collate) changes.collate = { before: collate, now: now?.[1] };
      if (now?.[0] !== charset) changes.character_set = { before: charset, now: now?.[0] };
      return stateResult(name, true, comment, changes);
    }
    if (ctx.test) return stateResult(name, null, `Database ${name} is not present and needs to be created`);
    try {
      await mysql(ctx, c, `CREATE DATABASE ${ident(name)}${n.character_set ? ` CHARACTER SET ${lit(n.character_set)}` : ''}${n.collate ? ` COLLATE ${lit(n.collate)}` : ''};`);
    } catch (err) {
      return stateResult(name, false, `Failed to create database ${name} (${errText(err)})`);
    }
    return stateResult(name, true, `The database ${name} has been created`, { [name]: 'Present' });
  },
});

const databaseAbsent = defineState({
  name: 'mysql_database.absent',
  // Salt's mysql_database.absent takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a MySQL/MariaDB database does not exist (acts for real).',
  params: [{ name: 'name', type: 'string', required: true }, ...CONNECTION],
  example: 'olddb:\n  mysql_database.absent: []',
  run: async (ctx, a) => {
    const name = a.named.name;
    const found = await lookUp(
      ctx,
      name,
      a.named,
      () => stateResult(name, null, `Database ${name} is present and needs to be removed`),
      (c) => schema(c, ctx, name),
    );
    if (isResult(found)) return found;
    if (found.value === undefined) return stateResult(name, true, `Database ${name} is not present, so it cannot be removed`);
    if (ctx.test) return stateResult(name, null, `Database ${name} is present and needs to be removed`);
    try {
      await mysql(ctx, found.c, `DROP DATABASE ${ident(name)};`);
    } catch (err) {
      return stateResult(name, false, `Unable to remove database ${name} (${errText(err)})`);
    }
    return stateResult(name, true, `Database ${name} has been removed`, { [name]: 'Absent' });
  },
});

const account = (name: string, host: string) => `${lit(name)}@${lit(host)}`;
const userRow = (name: string, host: string, extra = '') => `SELECT 1 FROM mysql.user WHERE User = ${lit(name)} AND Host = ${lit(host)}${extra};`;

const userPresent = defineState({
  name: 'mysql_user.present',
  // Salt's mysql_user.present takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a MySQL/MariaDB user exists with the given password (acts for real).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'host', type: 'string', default: 'localhost' },
    { name: 'password', type: 'string' },
    { name: 'password_hash', type: 'string' },
    { name: 'allow_passwordless', type: 'bool', default: false },
    { name: 'unix_socket', type: 'bool', default: false },
    { name: 'password_column', type: 'string' },
    { name: 'auth_plugin', type: 'string', default: 'mysql_native_password' },
    ...CONNECTION,
  ],
  example: 'app:\n  mysql_user.present:\n    - host: localhost\n    - password: secret',
  run: async (ctx, a) => {
    const n = a.named;
    const { name, host } = n;
    const passwordless = !n.password && !n.password_hash;
    if (passwordless && !n.allow_passwordless && !n.unix_socket) {
      return stateResult(name, false, 'Either password or password_hash must be specified, unless allow_passwordless is True');
    }
    const toAdd = `User ${name}@${host} is set to be added${passwordless ? ' with passwordless login' : ''}`;
    // Salt's user_exists with the password: the stored hash matches (PASSWORD() computes it server-side).
    const matches = passwordless
      ? " AND authentication_string = ''"
      : n.password
        ? ` AND authentication_string = PASSWORD(${lit(n.password)})`
        : ` AND authentication_string = ${lit(n.password_hash ?? '')}`;
    const found = await lookUp(
      ctx,
      name,
      n,
      () => stateResult(name, null, toAdd),
      async (c) => ({
        same: (await mysql(ctx, c, userRow(name, host, n.unix_socket && passwordless ? '' : matches))).length > 0,
        exists: (await mysql(ctx, c, userRow(name, host))).length > 0,
      }),
    );
    if (isResult(found)) return found;
    const { c, value } = found;
    if (value.same) {
      let comment = `User ${name}@${host} is already present`;
      if (passwordless) comment += n.allow_passwordless ? ' with passwordless login' : '';
      else if (n.auth_plugin === 'mysql_native_password') comment += ` with the desired password${n.password_hash && !n.password ? ' hash' : ''}`;
      else comment += '. Unable to verify password.';
      return stateResult(name, true, comment);
    }
    const identified = n.unix_socket ? ' IDENTIFIED VIA unix_socket' : n.password ? ` IDENTIFIED BY ${lit(n.password)}` : n.password_hash ? ` IDENTIFIED BY PASSWORD ${lit(n.password_hash)}` : '';
    if (value.exists) {
      const verb = passwordless ? 'cleared' : 'changed';
      if (ctx.test) return stateResult(name, null, `Password for user ${name}@${host} is set to be ${verb}`);
      try {
        await mysql(ctx, c, `ALTER USER ${account(name, host)}${identified || " IDENTIFIED BY ''"};`);
      } catch (err) {
        return stateResult(name, false, `Failed to ${passwordless ? 'clear' : 'change'} password for user ${name}@${host} (${errText(err)})`);
      }
      return stateResult(name, true, `Password for user ${name}@${host} has been ${verb}`, { [name]: 'Updated' });
    }
    if (ctx.test) return stateResult(name, null, toAdd);
    try {
      await mysql(ctx, c, `CREATE USER ${account(name, host)}${identified};`);
    } catch (err) {
      return stateResult(name, false, `Failed to create user ${name}@${host} (${errText(err)})`);
    }
    return stateResult(name, true, `The user ${name}@${host} has been added${passwordless ? ' with passwordless login' : ''}`, { [name]: 'Present' });
  },
});

const userAbsent = defineState({
  name: 'mysql_user.absent',
  // Salt's mysql_user.absent takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a MySQL/MariaDB user does not exist (acts for real).',
  params: [{ name: 'name', type: 'string', required: true }, { name: 'host', type: 'string', default: 'localhost' }, ...CONNECTION],
  example: 'olduser:\n  mysql_user.absent:\n    - host: "%"',
  run: async (ctx, a) => {
    const { name, host } = a.named;
    const found = await lookUp(
      ctx,
      name,
      a.named,
      () => stateResult(name, null, `User ${name}@${host} is set to be removed`),
      async (c) => (await mysql(ctx, c, userRow(name, host))).length > 0,
    );
    if (isResult(found)) return found;
    if (!found.value) return stateResult(name, true, `User ${name}@${host} is not present, so it cannot be removed`);
    if (ctx.test) return stateResult(name, null, `User ${name}@${host} is set to be removed`);
    try {
      await mysql(ctx, found.c, `DROP USER ${account(name, host)};`);
    } catch (err) {
      return stateResult(name, false, errText(err));
    }
    return stateResult(name, true, `User ${name}@${host} has been removed`, { [name]: 'Absent' });
  },
});

export const mysqlStates: readonly StateFunction[] = [userPresent, userAbsent, databasePresent, databaseAbsent];
