// postgres_tablespace.present/absent (issue 22: postgres-formula's `manage`) against a real
// PostgreSQL server (Debian's postgresql package, started for this test in a temp dir and
// stopped after), and without one. Shapes from salt/states/postgres_tablespace.py.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { privilegedSkip } from '../../../helpers/privileged.js';
import { runState } from '../state-ctx.js';
import { PostgresServer, postgresSkipReason } from '../../../helpers/postgres.js';
import { freePort } from '../../../helpers/ports.js';
import { parseSpcOptions } from '../../../../src/state/modules/external/postgres-tablespace.js';

const skip = privilegedSkip('postgres_tablespace states', postgresSkipReason);

/** A directory the server account owns, outside its data directory, as CREATE TABLESPACE needs. */
function tablespaceDir(server: PostgresServer, name: string): string {
  const dir = path.join(server.dir, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  execFileSync('chown', ['postgres:', dir]);
  return dir;
}

describe('postgres_tablespace against a real server', { skip }, () => {
  let server: PostgresServer | undefined;
  const db = () => ({ db_host: '127.0.0.1', db_port: (server as PostgresServer).port, db_user: 'postgres' });
  const sql = (q: string) => (server as PostgresServer).sql(q);

  before(async () => {
    server = await PostgresServer.start();
    sql('CREATE ROLE "ts owner"');
  });
  after(() => server?.stop());

  it('present creates the tablespace at the directory with owner and options; again it is already present', async () => {
    const dir = tablespaceDir(server as PostgresServer, 'fast');
    const args = { name: 'fast', directory: dir, owner: 'ts owner', options: { random_page_cost: 1.1, seq_page_cost: 1.0 }, ...db() };
    assert.deepEqual(await runState('postgres_tablespace.present', args, { test: true }), { name: 'fast', result: null, changes: {}, comment: 'Tablespace fast is set to be created' });
    assert.equal(sql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'fast'"), '0', 'test=True created nothing');
    assert.deepEqual(await runState('postgres_tablespace.present', args), { name: 'fast', result: true, changes: { fast: 'Present' }, comment: 'The tablespace fast has been created' });
    assert.equal(sql("SELECT pg_get_userbyid(spcowner) || ' ' || pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname = 'fast'"), `ts owner ${dir}`);
    const opts = parseSpcOptions(sql("SELECT spcoptions::text FROM pg_tablespace WHERE spcname = 'fast'"));
    assert.deepEqual([Number(opts.get('random_page_cost')), Number(opts.get('seq_page_cost'))], [1.1, 1]);
    assert.deepEqual(await runState('postgres_tablespace.present', args), { name: 'fast', result: true, changes: {}, comment: 'Tablespace fast is already present' });
    assert.deepEqual(await runState('postgres_tablespace.present', { ...args, directory: `${dir}/` }, { test: true }), {
      name: 'fast',
      result: true,
      changes: {},
      comment: 'Tablespace fast is already present',
    });
  });

  it('a new owner and a changed option are altered, with Salt’s comments and changes; test=True alters nothing', async () => {
    const dir = path.join((server as PostgresServer).dir, 'fast');
    const owner = await runState('postgres_tablespace.present', { name: 'fast', directory: dir, owner: 'postgres', ...db() }, { test: true });
    assert.deepEqual(owner, { name: 'fast', result: null, changes: {}, comment: 'Tablespace fast owner to be altered' });
    assert.equal(sql("SELECT pg_get_userbyid(spcowner) FROM pg_tablespace WHERE spcname = 'fast'"), 'ts owner', 'test=True left the owner (Salt alters it)');
    const both = { name: 'fast', directory: dir, owner: 'postgres', options: { random_page_cost: 2 }, ...db() };
    assert.deepEqual(await runState('postgres_tablespace.present', both, { test: true }), {
      name: 'fast',
      result: null,
      changes: {},
      comment: 'Tablespace fast options to be\n                        altered',
    });
    assert.deepEqual(await runState('postgres_tablespace.present', both), {
      name: 'fast',
      result: true,
      changes: { fast: { owner: 'postgres', options: { random_page_cost: 2 } } },
      comment: 'Tablespace fast opts changed',
    });
    assert.equal(sql("SELECT pg_get_userbyid(spcowner) FROM pg_tablespace WHERE spcname = 'fast'"), 'postgres');
    assert.equal(parseSpcOptions(sql("SELECT spcoptions::text FROM pg_tablespace WHERE spcname = 'fast'")).get('random_page_cost'), '2');
  });

  it('a tablespace at another directory fails on a real run (Salt cannot move it) and is left where it is', async () => {
    const r = await runState('postgres_tablespace.present', { name: 'fast', directory: '/srv/elsewhere', ...db() });
    assert.deepEqual(r, {
      name: 'fast',
      result: false,
      changes: {},
      comment: 'Tablespace fast is not at the right location. This is\n            unfixable without dropping and recreating the tablespace.',
    });
  });

  it('a name and option with quotes reach SQL as identifiers and literals, never as SQL text', async () => {
    const odd = `o'dd "ts"; DROP TABLESPACE fast`;
    const dir = tablespaceDir(server as PostgresServer, 'odd');
    assert.equal((await runState('postgres_tablespace.present', { name: odd, directory: dir, ...db() })).result, true);
    assert.equal(sql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'fast'"), '1', 'fast is still there');
    const bad = await runState('postgres_tablespace.present', { name: odd, directory: dir, options: { 'x = 1); DROP TABLESPACE fast; --': 1 }, ...db() });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /^Failed to alter tablespace o'dd "ts"; DROP TABLESPACE fast: .*invalid option name "x = 1\); DROP TABLESPACE fast; --"/s);
    assert.equal(sql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'fast'"), '1');
    assert.equal((await runState('postgres_tablespace.absent', { name: odd, ...db() })).result, true);
  });

  it('a directory the server cannot use fails with psql’s reason and creates nothing', async () => {
    const r = await runState('postgres_tablespace.present', { name: 'nowhere', directory: '/nonexistent/brine-ts', ...db() });
    assert.equal(r.result, false);
    assert.match(r.comment, /^Failed to create tablespace nowhere: .*\/nonexistent\/brine-ts/s);
    assert.equal(sql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'nowhere'"), '0');
  });

  it('absent drops it, then reports it not present', async () => {
    assert.deepEqual(await runState('postgres_tablespace.absent', { name: 'fast', ...db() }, { test: true }), {
      name: 'fast',
      result: null,
      changes: {},
      comment: 'Tablespace fast is set to be removed',
    });
    assert.equal(sql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'fast'"), '1');
    assert.deepEqual(await runState('postgres_tablespace.absent', { name: 'fast', ...db() }), { name: 'fast', result: true, changes: { fast: 'Absent' }, comment: 'Tablespace fast has been removed' });
    assert.equal(sql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'fast'"), '0');
    assert.deepEqual(await runState('postgres_tablespace.absent', { name: 'fast', ...db() }), {
      name: 'fast',
      result: true,
      changes: {},
      comment: 'Tablespace fast is not present, so it cannot be removed',
    });
  });
});

describe('postgres_tablespace without a server', { skip: spawnSync('sh', ['-c', 'command -v psql']).status !== 0 ? 'psql is not installed' : false }, () => {
  it("test=True gives Salt's answer for a tablespace to create or remove; a real run fails naming the server", async () => {
    const port = await freePort(); // nothing listens there
    const args = { name: 'fast', db_host: '127.0.0.1', db_port: port, db_user: 'postgres' };
    assert.deepEqual(await runState('postgres_tablespace.present', { ...args, directory: '/srv/ts' }, { test: true }), {
      name: 'fast',
      result: null,
      changes: {},
      comment: 'Tablespace fast is set to be created',
    });
    assert.deepEqual(await runState('postgres_tablespace.absent', args, { test: true }), { name: 'fast', result: null, changes: {}, comment: 'Tablespace fast is set to be removed' });
    const r = await runState('postgres_tablespace.present', { ...args, directory: '/srv/ts' });
    assert.equal(r.result, false);
    assert.match(r.comment, new RegExp(`^postgres_tablespace\\.present cannot act on this minion: PostgreSQL at 127\\.0\\.0\\.1:${port} cannot be used: .*Connection refused`, 's'));
  });
});

describe('parseSpcOptions', () => {
  it('reads the text[] psql prints for spcoptions', () => {
    assert.deepEqual(
      [...parseSpcOptions('{seq_page_cost=1.1,random_page_cost=3.9}')],
      [
        ['seq_page_cost', '1.1'],
        ['random_page_cost', '3.9'],
      ],
    );
    assert.deepEqual([...parseSpcOptions('')], []);
    assert.deepEqual([...parseSpcOptions('{"effective_io_concurrency=2"}')], [['effective_io_concurrency', '2']]);
  });
});
