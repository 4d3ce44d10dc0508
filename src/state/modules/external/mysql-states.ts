// mysql_user, mysql_database and mysql_grants present/absent with Salt's arguments and test=True
// answers (salt/states/mysql_user.py, mysql_database.py, mysql_grants.py), for an object that
// does not exist yet (brine does not query the server). A real run fails: no MySQL/MariaDB
// client here, or brine not driving the server yet.

import type { ParamSpec } from '../../../modules/index.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct, findProgram, isUnreachable } from './backend.js';

// Salt's connection_args (passed as **kwargs there; declared here so they show in the docs).
const CONNECTION = [
  { name: 'connection_host', type: 'string' },
  { name: 'connection_port', type: 'int' },
  { name: 'connection_user', type: 'string' },
  { name: 'connection_pass', type: 'string' },
  { name: 'connection_db', type: 'string' },
  { name: 'connection_unix_socket', type: 'string' },
  { name: 'connection_default_file', type: 'string' },
  { name: 'connection_charset', type: 'string' },
] as const satisfies readonly ParamSpec[];

function refuse(ctx: StateContext, name: string): StateResult {
  const client = findProgram('mysql', 'mariadb-client');
  if (isUnreachable(client)) return cannotAct(ctx, name, client);
  return cannotAct(ctx, name, { reason: 'brine answers mysql states only with test=True so far; use cmd.run with the mysql client until it does' });
}

const userPresent = defineState({
  name: 'mysql_user.present',
  doc: 'Make sure a MySQL/MariaDB user exists (test=True only on brine).',
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
    if (n.password === undefined && n.password_hash === undefined && !n.allow_passwordless && !n.unix_socket) {
      return stateResult(n.name, false, 'Either password or password_hash must be specified, unless allow_passwordless is True');
    }
    const passwordless = n.password === undefined && n.password_hash === undefined;
    return ctx.test ? stateResult(n.name, null, `User ${n.name}@${n.host} is set to be added${passwordless ? ' with passwordless login' : ''}`) : refuse(ctx, n.name);
  },
});

const userAbsent = defineState({
  name: 'mysql_user.absent',
  doc: 'Make sure a MySQL/MariaDB user does not exist (test=True only on brine).',
  params: [{ name: 'name', type: 'string', required: true }, { name: 'host', type: 'string', default: 'localhost' }, ...CONNECTION],
  example: 'olduser:\n  mysql_user.absent:\n    - host: "%"',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `User ${a.named.name}@${a.named.host} is set to be removed`) : refuse(ctx, a.named.name)),
});

const databasePresent = defineState({
  name: 'mysql_database.present',
  doc: 'Make sure a MySQL/MariaDB database exists (test=True only on brine).',
  params: [{ name: 'name', type: 'string', required: true }, { name: 'character_set', type: 'string' }, { name: 'collate', type: 'string' }, ...CONNECTION],
  example: 'appdb:\n  mysql_database.present:\n    - character_set: utf8mb4',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `Database ${a.named.name} is not present and needs to be created`) : refuse(ctx, a.named.name)),
});

const databaseAbsent = defineState({
  name: 'mysql_database.absent',
  doc: 'Make sure a MySQL/MariaDB database does not exist (test=True only on brine).',
  params: [{ name: 'name', type: 'string', required: true }, ...CONNECTION],
  example: 'olddb:\n  mysql_database.absent: []',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `Database ${a.named.name} is present and needs to be removed`) : refuse(ctx, a.named.name)),
});

const grantParams = [
  { name: 'name', type: 'string', required: true },
  { name: 'grant', type: 'string', doc: 'e.g. select,insert or ALL PRIVILEGES' },
  { name: 'database', type: 'string', doc: 'db.table, e.g. appdb.*' },
  { name: 'user', type: 'string' },
  { name: 'host', type: 'string', default: 'localhost' },
  { name: 'grant_option', type: 'bool', default: false },
  { name: 'escape', type: 'bool', default: true },
] as const satisfies readonly ParamSpec[];

const grantsPresent = defineState({
  name: 'mysql_grants.present',
  doc: 'Make sure a MySQL/MariaDB grant exists (test=True only on brine).',
  params: [...grantParams, { name: 'revoke_first', type: 'bool', default: false }, { name: 'ssl_option', type: 'any', default: false }, ...CONNECTION],
  example: 'app-rw:\n  mysql_grants.present:\n    - grant: select,insert,update,delete\n    - database: appdb.*\n    - user: app',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `MySQL grant ${a.named.name} is set to be created`) : refuse(ctx, a.named.name)),
});

const grantsAbsent = defineState({
  name: 'mysql_grants.absent',
  doc: 'Make sure a MySQL/MariaDB grant does not exist (test=True only on brine).',
  params: [...grantParams, ...CONNECTION],
  example: 'app-admin:\n  mysql_grants.absent:\n    - grant: all privileges\n    - database: appdb.*\n    - user: app',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `MySQL grant ${a.named.name} is set to be revoked`) : refuse(ctx, a.named.name)),
});

export const mysqlStates: readonly StateFunction[] = [userPresent, userAbsent, databasePresent, databaseAbsent, grantsPresent, grantsAbsent];
