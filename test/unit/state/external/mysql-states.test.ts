// mysql_database and mysql_user against a real MariaDB server (Debian's mariadb-server) started
// for this test in a temp dir on a unix socket (mariadb-install-db + mariadbd, no networking)
// and stopped after. Shapes from salt/states/mysql_database.py and mysql_user.py (present,
// absent).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privilegedSkip } from '../../../helpers/privileged.js';
import { runState } from '../state-ctx.js';
import { waitUntil } from '../../../helpers/wait.js';

const has = (p: string) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0;
const reason =
  process.getuid?.() !== 0
    ? 'needs root to run mariadbd as root in a temp dir'
    : !has('mariadbd') || !has('mariadb-install-db') || !has('mysql')
      ? 'MariaDB is not installed (Debian: apt-get install mariadb-server)'
      : false;
const skip = privilegedSkip('mysql states', reason);

describe('mysql states against a real MariaDB server', { skip }, () => {
  let dir = '';
  let pid = 0;
  const conn = () => ({ connection_unix_socket: path.join(dir, 'sock'), connection_user: 'root' });
  const sql = (q: string) => execFileSync('mysql', ['--socket', path.join(dir, 'sock'), '-u', 'root', '-N', '-B', '-e', q], { encoding: 'utf8' }).trim();

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-my-'));
    execFileSync('mariadb-install-db', ['--no-defaults', `--datadir=${dir}/data`, '--user=root', '--auth-root-authentication-method=socket', '--skip-test-db'], { stdio: 'ignore' });
    const server = spawn('mariadbd', ['--no-defaults', `--datadir=${dir}/data`, `--socket=${dir}/sock`, '--skip-networking', '--user=root', `--pid-file=${dir}/pid`, `--log-error=${dir}/server.log`], {
      stdio: 'ignore',
      detached: true,
    });
    pid = server.pid ?? 0;
    server.unref();
    // InnoDB's first start takes a while on a busy machine.
    await waitUntil(() => fs.existsSync(path.join(dir, 'sock')), 60_000, 'the mariadbd socket').catch(() => undefined); // the assert below shows the server log
    assert.ok(fs.existsSync(path.join(dir, 'sock')), `mariadbd did not start: ${fs.existsSync(path.join(dir, 'server.log')) ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8') : 'no log'}`);
  });
  after(async () => {
    if (pid) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const exited = (): boolean => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      };
      await waitUntil(exited, 15_000, `mariadbd (pid ${pid}) to exit`);
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('mysql_database.present creates it, finds it, then changes its character set with before/now changes', async () => {
    assert.deepEqual(await runState('mysql_database.present', { name: 'appdb', ...conn() }, { test: true }), {
      name: 'appdb',
      result: null,
      changes: {},
      comment: 'Database appdb is not present and needs to be created',
    });
    const r = await runState('mysql_database.present', { name: 'appdb', character_set: 'latin1', ...conn() });
    assert.deepEqual(r, { name: 'appdb', result: true, changes: { appdb: 'Present' }, comment: 'The database appdb has been created' });
    assert.equal(sql("SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'appdb'"), 'latin1');
    assert.deepEqual(await runState('mysql_database.present', { name: 'appdb', character_set: 'latin1', ...conn() }), {
      name: 'appdb',
      result: true,
      changes: {},
      comment: 'Database appdb is already present',
    });
    const t = await runState('mysql_database.present', { name: 'appdb', character_set: 'utf8mb4', ...conn() }, { test: true });
    assert.deepEqual(t, { name: 'appdb', result: null, changes: {}, comment: 'Database character set utf8mb4 != latin1 needs to be updated\nDatabase appdb is going to be updated' });
    const u = await runState('mysql_database.present', { name: 'appdb', character_set: 'utf8mb4', ...conn() });
    assert.equal(u.result, true);
    assert.equal(u.comment, 'Database character set utf8mb4 != latin1 needs to be updated');
    assert.deepEqual((u.changes as { character_set: unknown }).character_set, { before: 'latin1', now: 'utf8mb4' });
    assert.equal(sql("SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'appdb'"), 'utf8mb4');
  });

  it('mysql_user.present adds a user who can log in, finds the password, changes it', async () => {
    const t = await runState('mysql_user.present', { name: 'app', password: 'pw1', ...conn() }, { test: true });
    assert.deepEqual(t, { name: 'app', result: null, changes: {}, comment: 'User app@localhost is set to be added' });
    const r = await runState('mysql_user.present', { name: 'app', password: 'pw1', ...conn() });
    assert.deepEqual(r, { name: 'app', result: true, changes: { app: 'Present' }, comment: 'The user app@localhost has been added' });
    const login = spawnSync('mysql', ['--socket', path.join(dir, 'sock'), '-u', 'app', '-N', '-B', '-e', 'SELECT CURRENT_USER()'], { encoding: 'utf8', env: { ...process.env, MYSQL_PWD: 'pw1' } });
    assert.equal(login.stdout.trim(), 'app@localhost', login.stderr);
    assert.deepEqual(await runState('mysql_user.present', { name: 'app', password: 'pw1', ...conn() }), {
      name: 'app',
      result: true,
      changes: {},
      comment: 'User app@localhost is already present with the desired password',
    });
    assert.equal((await runState('mysql_user.present', { name: 'app', password: 'pw2', ...conn() }, { test: true })).comment, 'Password for user app@localhost is set to be changed');
    const c = await runState('mysql_user.present', { name: 'app', password: 'pw2', ...conn() });
    assert.deepEqual(c, { name: 'app', result: true, changes: { app: 'Updated' }, comment: 'Password for user app@localhost has been changed' });
    const relogin = spawnSync('mysql', ['--socket', path.join(dir, 'sock'), '-u', 'app', '-N', '-B', '-e', 'SELECT 1'], { encoding: 'utf8', env: { ...process.env, MYSQL_PWD: 'pw2' } });
    assert.equal(relogin.status, 0, relogin.stderr);
  });

  it('a name with quotes reaches SQL quoted, never as SQL text', async () => {
    const odd = "o'dd`; DROP DATABASE appdb; --";
    const r = await runState('mysql_database.present', { name: odd, ...conn() });
    assert.equal(r.result, true, r.comment);
    assert.equal(sql("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'appdb'"), '1', 'appdb is still there');
    const u = await runState('mysql_user.present', { name: odd, password: "p'w\\", ...conn() });
    assert.equal(u.result, true, u.comment);
    assert.equal((await runState('mysql_user.present', { name: odd, password: "p'w\\", ...conn() })).comment, `User ${odd}@localhost is already present with the desired password`);
    assert.equal((await runState('mysql_user.absent', { name: odd, ...conn() })).result, true);
    assert.equal((await runState('mysql_database.absent', { name: odd, ...conn() })).result, true);
  });

  it('absent removes the user and the database, then reports them not present', async () => {
    assert.deepEqual(await runState('mysql_user.absent', { name: 'app', ...conn() }, { test: true }), { name: 'app', result: null, changes: {}, comment: 'User app@localhost is set to be removed' });
    assert.deepEqual(await runState('mysql_user.absent', { name: 'app', ...conn() }), { name: 'app', result: true, changes: { app: 'Absent' }, comment: 'User app@localhost has been removed' });
    assert.equal((await runState('mysql_user.absent', { name: 'app', ...conn() })).comment, 'User app@localhost is not present, so it cannot be removed');
    assert.deepEqual(await runState('mysql_database.absent', { name: 'appdb', ...conn() }, { test: true }), {
      name: 'appdb',
      result: null,
      changes: {},
      comment: 'Database appdb is present and needs to be removed',
    });
    assert.deepEqual(await runState('mysql_database.absent', { name: 'appdb', ...conn() }), { name: 'appdb', result: true, changes: { appdb: 'Absent' }, comment: 'Database appdb has been removed' });
    assert.equal((await runState('mysql_database.absent', { name: 'appdb', ...conn() })).comment, 'Database appdb is not present, so it cannot be removed');
  });
});
