// The mine without a master (file_client: local, or brine call --local), as Salt's masterless
// mine: mine.update keeps this minion's own data in <cachedir>/mine.json (0600), mine.get sees
// only this minion (when the target matches it), delete and flush work on the file, a bad entry is
// reported by name; a masterless minion daemon fills it at start. Without local mode brine call
// says the mine needs the daemon.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type CliResult } from '../helpers/cluster.js';

describe('mine: masterless (file_client: local)', () => {
  let cluster: Cluster;
  let callIn: (name: string, args: string[]) => Promise<CliResult>;
  const mineFile = (name: string) => path.join(cluster.root, 'minions', name, 'var', 'cache', 'brine', 'minion', 'mine.json');
  const got = (r: CliResult): unknown => (JSON.parse(r.stdout) as { local: unknown }).local;

  before(async () => {
    cluster = await Cluster.create();
    const functions = { 'test.ping': [], role: [{ mine_function: 'grains.get' }, 'role'], 'nosuch.fun': [] };
    cluster.writeMinionConfig('solo', { file_client: 'local', grains: { role: 'db' }, mine_functions: functions });
    cluster.writeMinionConfig('remote', { grains: { role: 'db' }, mine_functions: functions });
    callIn = (name, args) => runCli(['call', ...args, '--out', 'json', '-c', cluster.minionConfigDir(name)]);
  });
  after(() => cluster.cleanup());

  it('mine.update keeps the data in cachedir (0600) and reports the unknown function by name', async () => {
    const r = await callIn('solo', ['mine.update']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /nosuch\.fun: UNKNOWN_FUNCTION/);
    assert.match(r.stdout + r.stderr, /updated: test\.ping, role/);
    assert.equal(fs.statSync(mineFile('solo')).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(fs.readFileSync(mineFile('solo'), 'utf8')), { 'test.ping': { data: true }, role: { data: 'db' } });
  });

  it('mine.get sees this minion only, when the target matches it', async () => {
    assert.deepEqual(got(await callIn('solo', ['mine.get', '*', 'role'])), { solo: 'db' });
    assert.deepEqual(got(await callIn('solo', ['mine.get', 'role:db', 'role,test.ping', 'tgt_type=grain'])), { role: { solo: 'db' }, 'test.ping': { solo: true } });
    assert.deepEqual(got(await callIn('solo', ['mine.get', 'other*', 'role'])), {});
  });

  it('mine.send, delete and flush work on the local mine', async () => {
    assert.equal(got(await callIn('solo', ['mine.send', 'greeting', 'hi', 'mine_function=test.echo'])), true);
    assert.deepEqual(got(await callIn('solo', ['mine.get', 'solo', 'greeting'])), { solo: 'hi' });
    assert.equal(got(await callIn('solo', ['mine.delete', 'greeting'])), true);
    assert.deepEqual(got(await callIn('solo', ['mine.get', 'solo', 'greeting,role'])), { greeting: {}, role: { solo: 'db' } });
    assert.equal(got(await callIn('solo', ['mine.flush'])), true);
    assert.equal(fs.existsSync(mineFile('solo')), false);
  });

  it("salt['mine.get'] in a state file sees the local mine, as Salt's masterless mine.get (mysql-formula, hostsfile-formula)", async () => {
    const roots = path.join(cluster.root, 'minions', 'solo', 'srv', 'salt');
    fs.mkdirSync(roots, { recursive: true });
    fs.writeFileSync(
      path.join(roots, 'minehosts.sls'),
      "{% set seen = salt['mine.get']('*', 'role') %}\nmine-seen:\n  test.show_notification:\n    - text: '{{ seen | json }}'\n{% set nobody = salt['mine.get']('other*', 'role') %}\nmine-none:\n  test.show_notification:\n    - text: '{{ nobody | json }}'\n",
    );
    assert.equal((await callIn('solo', ['mine.send', 'role', 'mine_function=grains.get', 'role'])).code, 0);
    const r = await callIn('solo', ['state.apply', 'minehosts']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const states = got(r) as Record<string, { comment: string }>;
    const comments = Object.values(states)
      .map((s) => s.comment)
      .sort();
    assert.deepEqual(comments, ['{"solo": "db"}', '{}']);
  });

  it('--local uses the local mine; without local mode the mine needs the daemon (MINION_NOT_RUNNING when none runs)', async () => {
    const r = await callIn('remote', ['mine.get', '*', 'role']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^MINION_NOT_RUNNING: /m);
    const local = await callIn('remote', ['--local', 'mine.send', 'test.ping']);
    assert.equal(local.code, 0, local.stderr);
    assert.deepEqual(got(await callIn('remote', ['--local', 'mine.get', 'remote', 'test.ping'])), { remote: true });
  });

  it('a masterless minion daemon fills its mine at start', async () => {
    const p = cluster.startMinion('solo', { file_client: 'local', master_type: 'disable', grains: { role: 'db' }, mine_functions: { role: [{ mine_function: 'grains.get' }, 'role'] } });
    await waitUntil(() => fs.existsSync(mineFile('solo')) && fs.readFileSync(mineFile('solo'), 'utf8').includes('"db"'), 20_000, `the daemon's mine.json\n${p.output}`);
    assert.deepEqual(JSON.parse(fs.readFileSync(mineFile('solo'), 'utf8')), { role: { data: 'db' } });
  });
});
