// postgres_schema.present/absent and postgres_extension.present/absent, with Salt's arguments,
// comments and changes (salt/states/postgres_schema.py, postgres_extension.py). They act for
// real through psql: a schema in `dbname`, an extension in `maintenance_db`.

import { defineState, type StateFunction } from '../../types.js';
import { stateResult } from '../state-result.js';
import { psql } from './postgres-client.js';
import { CONNECTION_PARAMS, failed, isResult, lookUp } from './postgres-common.js';

const schemaPresent = defineState({
  name: 'postgres_schema.present',
  doc: 'Make sure a schema exists in a PostgreSQL database (acts for real).',
  params: [{ name: 'dbname', type: 'string', required: true, doc: 'the database' }, { name: 'name', type: 'string', required: true }, { name: 'owner', type: 'string' }, ...CONNECTION_PARAMS],
  example: 'reporting:\n  postgres_schema.present:\n    - dbname: appdb\n    - owner: app',
  run: async (ctx, a) => {
    const { dbname, name, owner } = a.named;
    const found = await lookUp(
      ctx,
      name,
      a.named,
      () => stateResult(name, null, `Schema ${name} is set to be created in database ${dbname}.`),
      async (c) => (await psql(ctx, c, `SELECT 1 FROM pg_namespace WHERE nspname = :'n';`, { n: name }, dbname)).length > 0,
    );
    if (isResult(found)) return found;
    if (found.value) return stateResult(name, true, `Schema ${name} already exists in database ${dbname}`);
    if (ctx.test) return stateResult(name, null, `Schema ${name} is set to be created in database ${dbname}.`);
    try {
      await psql(ctx, found.c, `CREATE SCHEMA :"n"${owner ? ` AUTHORIZATION :"o"` : ''};`, { n: name, ...(owner ? { o: owner } : {}) }, dbname);
    } catch (err) {
      return failed(name, `Failed to create schema ${name} in database ${dbname}`, err);
    }
    return stateResult(name, true, `Schema ${name} has been created in database ${dbname}`, { [name]: 'Present' });
  },
});

const schemaAbsent = defineState({
  name: 'postgres_schema.absent',
  doc: 'Make sure a schema does not exist in a PostgreSQL database (acts for real).',
  params: [{ name: 'dbname', type: 'string', required: true }, { name: 'name', type: 'string', required: true }, ...CONNECTION_PARAMS],
  example: 'old-schema:\n  postgres_schema.absent:\n    - dbname: appdb',
  run: async (ctx, a) => {
    const { dbname, name } = a.named;
    const found = await lookUp(
      ctx,
      name,
      a.named,
      () => stateResult(name, null, `Schema ${name} is set to be removed from database ${dbname}`),
      async (c) => (await psql(ctx, c, `SELECT 1 FROM pg_namespace WHERE nspname = :'n';`, { n: name }, dbname)).length > 0,
    );
    if (isResult(found)) return found;
    if (!found.value) return stateResult(name, true, `Schema ${name} is not present in database ${dbname}, so it cannot be removed`);
    if (ctx.test) return stateResult(name, null, `Schema ${name} is set to be removed from database ${dbname}`);
    try {
      await psql(ctx, found.c, `DROP SCHEMA :"n";`, { n: name }, dbname);
    } catch (err) {
      return failed(name, `Schema ${name} failed to be removed`, err);
    }
    return stateResult(name, true, `Schema ${name} has been removed from database ${dbname}`, { [name]: 'Absent' });
  },
});

const extensionPresent = defineState({
  name: 'postgres_extension.present',
  doc: 'Make sure an extension is installed in a PostgreSQL database, at a version and in a schema if given (acts for real).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'if_not_exists', type: 'bool' },
    { name: 'schema', type: 'string' },
    { name: 'ext_version', type: 'string' },
    { name: 'from_version', type: 'string', doc: 'accepted; PostgreSQL finds the update path itself' },
    ...CONNECTION_PARAMS,
  ],
  example: 'pgcrypto:\n  postgres_extension.present:\n    - maintenance_db: appdb',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const found = await lookUp(
      ctx,
      name,
      n,
      () => stateResult(name, null, `Extension ${name} is set to be installed`),
      async (c) => (await psql(ctx, c, `SELECT e.extversion, s.nspname FROM pg_extension e JOIN pg_namespace s ON s.oid = e.extnamespace WHERE e.extname = :'n';`, { n: name }))[0],
    );
    if (isResult(found)) return found;
    const { c, value: row } = found;
    const move = row !== undefined && n.schema !== undefined && n.schema !== row[1];
    const upgrade = row !== undefined && n.ext_version !== undefined && n.ext_version !== row[0];
    if (row !== undefined && !move && !upgrade) return stateResult(name, true, `Extension ${name} is already present`);
    const mode = row === undefined ? 'install' : 'upgrade';
    if (ctx.test) return stateResult(name, null, `Extension ${name} is set to be ${mode === 'install' ? 'installed' : 'upgraded'}`);
    const vars: Record<string, string> = { n: name };
    if (n.schema !== undefined) vars.s = n.schema;
    if (n.ext_version !== undefined) vars.v = n.ext_version;
    const sql =
      row === undefined
        ? `CREATE EXTENSION ${n.if_not_exists ? 'IF NOT EXISTS ' : ''}:"n"${n.schema !== undefined ? ` SCHEMA :"s"` : ''}${n.ext_version !== undefined ? ` VERSION :'v'` : ''};`
        : [move ? `ALTER EXTENSION :"n" SET SCHEMA :"s";` : '', upgrade ? `ALTER EXTENSION :"n" UPDATE TO :'v';` : ''].join('\n');
    try {
      await psql(ctx, c, sql, vars);
    } catch (err) {
      return failed(name, `Failed to ${mode} extension ${name}`, err);
    }
    const done = mode === 'install' ? 'installed' : 'upgraded';
    return stateResult(name, true, `The extension ${name} has been ${done}`, { [name]: mode === 'install' ? 'Installed' : 'Upgraded' });
  },
});

const extensionAbsent = defineState({
  name: 'postgres_extension.absent',
  doc: 'Make sure an extension is not installed in a PostgreSQL database (acts for real).',
  params: [{ name: 'name', type: 'string', required: true }, { name: 'if_exists', type: 'bool' }, { name: 'restrict', type: 'bool' }, { name: 'cascade', type: 'bool' }, ...CONNECTION_PARAMS],
  example: 'hstore:\n  postgres_extension.absent:\n    - maintenance_db: appdb',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const found = await lookUp(
      ctx,
      name,
      n,
      () => stateResult(name, null, `Extension ${name} is set to be removed`),
      async (c) => (await psql(ctx, c, `SELECT 1 FROM pg_extension WHERE extname = :'n';`, { n: name })).length > 0,
    );
    if (isResult(found)) return found;
    if (!found.value) return stateResult(name, true, `Extension ${name} is not present, so it cannot be removed`);
    if (ctx.test) return stateResult(name, null, `Extension ${name} is set to be removed`);
    try {
      await psql(ctx, found.c, `DROP EXTENSION ${n.if_exists ? 'IF EXISTS ' : ''}:"n"${n.cascade ? ' CASCADE' : n.restrict ? ' RESTRICT' : ''};`, { n: name });
    } catch (err) {
      return failed(name, `Extension ${name} failed to be removed`, err);
    }
    return stateResult(name, true, `Extension ${name} has been removed`, { [name]: 'Absent' });
  },
});

export const postgresObjectStates: readonly StateFunction[] = [schemaPresent, schemaAbsent, extensionPresent, extensionAbsent];
