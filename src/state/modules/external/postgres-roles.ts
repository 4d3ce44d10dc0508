// postgres_user.present/absent and postgres_database.present/absent, with Salt's arguments,
// comments and changes (salt/states/postgres_user.py, postgres_database.py). They act for real
// through psql.

import { defineState, type StateFunction } from '../../types.js';
import { stateResult } from '../state-result.js';
import { psql } from './postgres-client.js';
import { absentState, CONNECTION_PARAMS, failed, isResult, lookUp } from './postgres-common.js';

// Salt's role flags: state argument, pg_roles column, SQL keyword.
const FLAGS = [
  ['createdb', 'rolcreatedb', 'CREATEDB'],
  ['createroles', 'rolcreaterole', 'CREATEROLE'],
  ['inherit', 'rolinherit', 'INHERIT'],
  ['login', 'rolcanlogin', 'LOGIN'],
  ['replication', 'rolreplication', 'REPLICATION'],
  ['superuser', 'rolsuper', 'SUPERUSER'],
] as const;
type Flag = (typeof FLAGS)[number][0];

const userPresent = defineState({
  name: 'postgres_user.present',
  doc: 'Make sure a PostgreSQL role that can log in exists with the given attributes (acts for real).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'createdb', type: 'bool' },
    { name: 'createroles', type: 'bool' },
    { name: 'encrypted', type: 'any', doc: 'accepted; the server hashes the password with its password_encryption' },
    { name: 'superuser', type: 'bool' },
    { name: 'replication', type: 'bool' },
    { name: 'inherit', type: 'bool' },
    { name: 'login', type: 'bool' },
    { name: 'password', type: 'string' },
    { name: 'default_password', type: 'string', doc: 'the password of a new role when password is not given' },
    { name: 'refresh_password', type: 'bool', doc: 'set the password of an existing role again' },
    { name: 'valid_until', type: 'string' },
    { name: 'groups', type: 'any', doc: 'roles to make it a member of (list or comma-separated)' },
    ...CONNECTION_PARAMS,
  ],
  example: 'app:\n  postgres_user.present:\n    - password: secret\n    - createdb: True',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const found = await lookUp(
      ctx,
      name,
      n,
      () => stateResult(name, null, `User ${name} is set to be created`),
      async (c) => (await psql(ctx, c, `SELECT ${FLAGS.map(([, col]) => col).join(', ')} FROM pg_roles WHERE rolname = :'n';`, { n: name }))[0],
    );
    if (isResult(found)) return found;
    const { c, value: row } = found;
    const password = n.password ?? (row === undefined ? n.default_password : undefined);
    const update: Record<string, unknown> = {};
    if (row !== undefined) {
      FLAGS.forEach(([arg, ,], i) => {
        const want = n[arg as Flag];
        if (want !== undefined && (row[i] === 't') !== want) update[arg] = want;
      });
      if (n.password !== undefined && n.refresh_password) update.password = true;
      if (Object.keys(update).length === 0) return stateResult(name, true, `User ${name} is already present`);
    }
    const mode = row === undefined ? 'create' : 'update';
    if (ctx.test) return stateResult(name, null, `User ${name} is set to be ${mode}d`);
    const opts: string[] = [];
    for (const [arg, , kw] of FLAGS) {
      const want = arg === 'login' && n.login === undefined && mode === 'create' ? true : n[arg as Flag];
      if (want !== undefined && (mode === 'create' || arg in update)) opts.push(want ? kw : `NO${kw}`);
    }
    const vars: Record<string, string> = { n: name };
    if (password !== undefined && (mode === 'create' || update.password)) {
      opts.push(`PASSWORD :'p'`);
      vars.p = password;
    }
    if (n.valid_until !== undefined) {
      opts.push(`VALID UNTIL :'v'`);
      vars.v = n.valid_until;
    }
    const groups = (Array.isArray(n.groups) ? n.groups : typeof n.groups === 'string' ? n.groups.split(',') : []).map((g) => String(g).trim()).filter((g) => g !== '');
    const grants = groups.map((g, i) => {
      vars[`g${i}`] = g;
      return `GRANT :"g${i}" TO :"n";`;
    });
    try {
      await psql(ctx, c, `${mode === 'create' ? 'CREATE' : 'ALTER'} ROLE :"n"${opts.length ? ` WITH ${opts.join(' ')}` : ''};\n${grants.join('\n')}`, vars);
    } catch (err) {
      return failed(name, `Failed to ${mode} user ${name}`, err);
    }
    return stateResult(name, true, `The user ${name} has been ${mode}d`, { [name]: mode === 'create' ? 'Present' : update });
  },
});

const userAbsent = absentState({
  name: 'postgres_user.absent',
  doc: 'Make sure a PostgreSQL role does not exist (acts for real).',
  example: 'olduser:\n  postgres_user.absent: []',
  noun: 'User',
  exists: `SELECT 1 FROM pg_roles WHERE rolname = :'n';`,
  drop: `DROP ROLE :"n";`,
});

const databasePresent = defineState({
  name: 'postgres_database.present',
  doc: 'Make sure a PostgreSQL database exists with the given owner, encoding and locale (acts for real).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'tablespace', type: 'string' },
    { name: 'encoding', type: 'string' },
    { name: 'lc_collate', type: 'string' },
    { name: 'lc_ctype', type: 'string' },
    { name: 'owner', type: 'string' },
    { name: 'owner_recurse', type: 'bool', default: false, doc: 'accepted; the owner of the objects inside is not changed' },
    { name: 'template', type: 'string' },
    ...CONNECTION_PARAMS,
  ],
  example: 'appdb:\n  postgres_database.present:\n    - owner: app\n    - encoding: UTF8',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const found = await lookUp(
      ctx,
      name,
      n,
      () => stateResult(name, null, `Database ${name} is set to be created`),
      async (c) =>
        (
          await psql(
            ctx,
            c,
            `SELECT pg_encoding_to_char(d.encoding), d.datcollate, d.datctype, pg_get_userbyid(d.datdba), t.spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace WHERE d.datname = :'n';`,
            { n: name },
          )
        )[0],
    );
    if (isResult(found)) return found;
    const { c, value: row } = found;
    if (row !== undefined) {
      const [encoding, collate, ctype, owner, tablespace] = row;
      if ((n.encoding && n.encoding !== encoding) || (n.lc_collate && n.lc_collate !== collate) || (n.lc_ctype && n.lc_ctype !== ctype)) {
        return stateResult(name, false, `Database ${name} has wrong parameters which couldn't be changed on fly.`);
      }
      if ((!n.owner || n.owner === owner) && (!n.tablespace || n.tablespace === tablespace)) return stateResult(name, true, `Database ${name} is already present`);
    }
    if (ctx.test) return stateResult(name, null, row === undefined ? `Database ${name} is set to be created` : `Database ${name} exists, but parameters need to be changed`);
    const vars: Record<string, string> = { n: name };
    const opts: string[] = [];
    for (const [arg, sql, quote] of [
      ['owner', 'OWNER', '"'],
      ['template', 'TEMPLATE', '"'],
      ['encoding', 'ENCODING', "'"],
      ['lc_collate', 'LC_COLLATE', "'"],
      ['lc_ctype', 'LC_CTYPE', "'"],
      ['tablespace', 'TABLESPACE', '"'],
    ] as const) {
      const v = n[arg];
      if (v === undefined || (row !== undefined && arg !== 'owner' && arg !== 'tablespace')) continue;
      vars[arg] = v;
      opts.push(`${sql} :${quote}${arg}${quote}`);
    }
    try {
      if (row === undefined) await psql(ctx, c, `CREATE DATABASE :"n"${opts.length ? ` WITH ${opts.join(' ')}` : ''};`, vars);
      else await psql(ctx, c, opts.map((o) => (o.startsWith('OWNER') ? `ALTER DATABASE :"n" OWNER TO :"owner";` : `ALTER DATABASE :"n" SET TABLESPACE :"tablespace";`)).join('\n'), vars);
    } catch (err) {
      return failed(name, row === undefined ? `Failed to create database ${name}` : `Failed to change parameters for database ${name}`, err);
    }
    if (row === undefined) return stateResult(name, true, `The database ${name} has been created`, { [name]: 'Present' });
    return stateResult(name, true, `Parameters for database ${name} have been changed`, { [name]: 'Parameters changed' });
  },
});

const databaseAbsent = absentState({
  name: 'postgres_database.absent',
  doc: 'Make sure a PostgreSQL database does not exist (acts for real).',
  example: 'olddb:\n  postgres_database.absent: []',
  noun: 'Database',
  exists: `SELECT 1 FROM pg_database WHERE datname = :'n';`,
  drop: `DROP DATABASE :"n";`,
});

export const postgresRoleStates: readonly StateFunction[] = [userPresent, userAbsent, databasePresent, databaseAbsent];
