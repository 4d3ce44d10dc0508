// postgres_* states against a real PostgreSQL server (Debian's postgresql package) started for
// this test in a temp dir on 127.0.0.1 (initdb + pg_ctl as the postgres account, trust auth) and
// stopped after. Shapes from salt/states/postgres_user.py, postgres_database.py,
// postgres_schema.py and postgres_extension.py (present/absent).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { privilegedSkip } from '../../../helpers/privileged.js';
import { runState } from '../state-ctx.js';
import { PostgresServer, postgresSkipReason } from '../../../helpers/postgres.js';
import { freePort } from '../../../helpers/ports.js';

const skip = privilegedSkip('postgres states', postgresSkipReason);

describe('postgres states against a real server', { skip }, () => {
  let server: PostgresServer | undefined;
  let port = 0;
  const db = () => ({ db_host: '127.0.0.1', db_port: port, db_user: 'postgres' });
  const sql = (q: string, dbname = 'postgres') => (server as PostgresServer).sql(q, dbname);

  before(async () => {
    server = await PostgresServer.start();
    port = server.port;
  });
  after(() => server?.stop());

  it('postgres_user.present creates a login role, then finds it; a flag change is an update with its changes', async () => {
    const t = await runState('postgres_user.present', { name: 'app', password: 's3cret', createdb: true, ...db() }, { test: true });
    assert.deepEqual(t, { name: 'app', result: null, changes: {}, comment: 'User app is set to be created' });
    assert.equal(sql("SELECT count(*) FROM pg_roles WHERE rolname = 'app'"), '0');
    const r = await runState('postgres_user.present', { name: 'app', password: 's3cret', createdb: true, ...db() });
    assert.deepEqual(r, { name: 'app', result: true, changes: { app: 'Present' }, comment: 'The user app has been created' });
    assert.equal(sql("SELECT rolcanlogin::text || rolcreatedb::text FROM pg_roles WHERE rolname = 'app'"), 'truetrue');
    const login = spawnSync('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'app', '-d', 'postgres', '-tAc', 'SELECT current_user'], { encoding: 'utf8' });
    assert.equal(login.stdout.trim(), 'app', 'the role can log in');
    assert.deepEqual(await runState('postgres_user.present', { name: 'app', createdb: true, ...db() }), { name: 'app', result: true, changes: {}, comment: 'User app is already present' });
    const u = await runState('postgres_user.present', { name: 'app', createdb: false, ...db() });
    assert.deepEqual(u, { name: 'app', result: true, changes: { app: { createdb: false } }, comment: 'The user app has been updated' });
    assert.equal(sql("SELECT rolcreatedb::text FROM pg_roles WHERE rolname = 'app'"), 'false');
  });

  it('a name with quotes and spaces reaches SQL as an identifier, never as SQL text', async () => {
    const odd = `o'dd "role"; DROP ROLE app`;
    const r = await runState('postgres_user.present', { name: odd, ...db() });
    assert.equal(r.result, true, r.comment);
    assert.equal(sql("SELECT count(*) FROM pg_roles WHERE rolname = 'app'"), '1', 'app is still there');
    assert.equal((await runState('postgres_user.absent', { name: odd, ...db() })).result, true);
  });

  it('postgres_database.present creates a database owned by the role; a new owner changes parameters', async () => {
    const t = await runState('postgres_database.present', { name: 'appdb', owner: 'app', ...db() }, { test: true });
    assert.deepEqual(t, { name: 'appdb', result: null, changes: {}, comment: 'Database appdb is set to be created' });
    const r = await runState('postgres_database.present', { name: 'appdb', owner: 'app', encoding: 'UTF8', ...db() });
    assert.deepEqual(r, { name: 'appdb', result: true, changes: { appdb: 'Present' }, comment: 'The database appdb has been created' });
    assert.equal(sql("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'appdb'"), 'app');
    assert.equal((await runState('postgres_database.present', { name: 'appdb', owner: 'app', ...db() })).comment, 'Database appdb is already present');
    const wrong = await runState('postgres_database.present', { name: 'appdb', encoding: 'LATIN1', ...db() });
    assert.deepEqual(wrong, { name: 'appdb', result: false, changes: {}, comment: "Database appdb has wrong parameters which couldn't be changed on fly." });
    const t2 = await runState('postgres_database.present', { name: 'appdb', owner: 'postgres', ...db() }, { test: true });
    assert.equal(t2.comment, 'Database appdb exists, but parameters need to be changed');
    const o = await runState('postgres_database.present', { name: 'appdb', owner: 'postgres', ...db() });
    assert.deepEqual(o, { name: 'appdb', result: true, changes: { appdb: 'Parameters changed' }, comment: 'Parameters for database appdb have been changed' });
    assert.equal(sql("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'appdb'"), 'postgres');
  });

  it('postgres_schema and postgres_extension act inside the database they name', async () => {
    const s = await runState('postgres_schema.present', { name: 'reporting', dbname: 'appdb', owner: 'app', ...db() });
    assert.deepEqual(s, { name: 'reporting', result: true, changes: { reporting: 'Present' }, comment: 'Schema reporting has been created in database appdb' });
    assert.equal(sql("SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'reporting'", 'appdb'), 'app');
    assert.equal((await runState('postgres_schema.present', { name: 'reporting', dbname: 'appdb', ...db() })).comment, 'Schema reporting already exists in database appdb');
    const e = await runState('postgres_extension.present', { name: 'hstore', schema: 'reporting', ...db(), maintenance_db: 'appdb' });
    assert.deepEqual(e, { name: 'hstore', result: true, changes: { hstore: 'Installed' }, comment: 'The extension hstore has been installed' });
    assert.equal(sql("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE extname = 'hstore'", 'appdb'), 'reporting');
    assert.equal((await runState('postgres_extension.present', { name: 'hstore', ...db(), maintenance_db: 'appdb' })).comment, 'Extension hstore is already present');
    const te = await runState('postgres_extension.absent', { name: 'hstore', ...db(), maintenance_db: 'appdb' }, { test: true });
    assert.deepEqual(te, { name: 'hstore', result: null, changes: {}, comment: 'Extension hstore is set to be removed' });
    const re = await runState('postgres_extension.absent', { name: 'hstore', ...db(), maintenance_db: 'appdb' });
    assert.deepEqual(re, { name: 'hstore', result: true, changes: { hstore: 'Absent' }, comment: 'Extension hstore has been removed' });
    const rs = await runState('postgres_schema.absent', { name: 'reporting', dbname: 'appdb', ...db() });
    assert.deepEqual(rs, { name: 'reporting', result: true, changes: { reporting: 'Absent' }, comment: 'Schema reporting has been removed from database appdb' });
    assert.equal((await runState('postgres_schema.absent', { name: 'reporting', dbname: 'appdb', ...db() })).comment, 'Schema reporting is not present in database appdb, so it cannot be removed');
  });

  it('absent: database then role removed, then reported not present', async () => {
    assert.deepEqual(await runState('postgres_database.absent', { name: 'appdb', ...db() }), { name: 'appdb', result: true, changes: { appdb: 'Absent' }, comment: 'Database appdb has been removed' });
    assert.equal((await runState('postgres_database.absent', { name: 'appdb', ...db() })).comment, 'Database appdb is not present, so it cannot be removed');
    assert.deepEqual(await runState('postgres_user.absent', { name: 'app', ...db() }, { test: true }), { name: 'app', result: null, changes: {}, comment: 'User app is set to be removed' });
    assert.deepEqual(await runState('postgres_user.absent', { name: 'app', ...db() }), { name: 'app', result: true, changes: { app: 'Absent' }, comment: 'User app has been removed' });
    assert.equal((await runState('postgres_user.absent', { name: 'app', ...db() })).comment, 'User app is not present, so it cannot be removed');
  });
});

describe('postgres states without a server', { skip: spawnSync('sh', ['-c', 'command -v psql']).status !== 0 ? 'psql is not installed' : false }, () => {
  it("test=True gives Salt's answer for an object to create; a real run fails naming the server and what to start", async () => {
    const port = await freePort(); // nothing listens there
    const args = { name: 'app', db_host: '127.0.0.1', db_port: port, db_user: 'postgres' };
    assert.deepEqual(await runState('postgres_user.present', args, { test: true }), { name: 'app', result: null, changes: {}, comment: 'User app is set to be created' });
    assert.deepEqual(await runState('postgres_database.present', args, { test: true }), { name: 'app', result: null, changes: {}, comment: 'Database app is set to be created' });
    const r = await runState('postgres_user.present', args);
    assert.equal(r.result, false);
    assert.match(
      r.comment,
      new RegExp(
        `^postgres_user\\.present cannot act on this minion: PostgreSQL at 127\\.0\\.0\\.1:${port} cannot be used: .*Connection refused.*; start the server \\(systemctl start postgresql\\)`,
        's',
      ),
    );
  });
});
