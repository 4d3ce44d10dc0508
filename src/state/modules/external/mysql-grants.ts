// mysql_grants.present/absent with Salt's arguments and test=True answers
// (salt/states/mysql_grants.py), for a grant that does not exist yet (brine does not read
// grants). A real run fails: no MySQL/MariaDB client here, or brine not managing grants yet.

import type { ParamSpec } from '../../../modules/index.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct, findProgram, isUnreachable } from './backend.js';
import { CONNECTION } from './mysql-states.js';

function refuse(ctx: StateContext, name: string): StateResult {
  const client = findProgram('mysql', 'mariadb-client');
  if (isUnreachable(client)) return cannotAct(ctx, name, client);
  return cannotAct(ctx, name, { reason: 'brine answers mysql_grants only with test=True so far; use cmd.run with the mysql client until it does' });
}

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
  // Salt's mysql_grants.present takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a MySQL/MariaDB grant exists (test=True only on brine).',
  params: [...grantParams, { name: 'revoke_first', type: 'bool', default: false }, { name: 'ssl_option', type: 'any', default: false }, ...CONNECTION],
  example: 'app-rw:\n  mysql_grants.present:\n    - grant: select,insert,update,delete\n    - database: appdb.*\n    - user: app',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `MySQL grant ${a.named.name} is set to be created`) : refuse(ctx, a.named.name)),
});

const grantsAbsent = defineState({
  name: 'mysql_grants.absent',
  // Salt's mysql_grants.absent takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a MySQL/MariaDB grant does not exist (test=True only on brine).',
  params: [...grantParams, ...CONNECTION],
  example: 'app-admin:\n  mysql_grants.absent:\n    - grant: all privileges\n    - database: appdb.*\n    - user: app',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `MySQL grant ${a.named.name} is set to be revoked`) : refuse(ctx, a.named.name)),
});

export const mysqlGrantStates: readonly StateFunction[] = [grantsPresent, grantsAbsent];
