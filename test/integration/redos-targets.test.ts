// Issue 21 point 5 (threats.md #44), end to end: a real master, two real minions whose grains and
// pillar hold a 40-character hex machine_id, and the REST API. Targets with catastrophic
// backtracking (the issue's `machine_id:[0-9a-f]{4}([0-9a-f]+)+X`) arrive through the control
// socket (-E, -P, -J, -C), through the API with a token restricted to one minion, and from a
// minion's mine.get; meanwhile root's `brine run '*' test.ping` answers as usual. On V8's
// backtracking RegExp each of these held the master's event loop for minutes. Patterns a linear
// engine cannot run (lookaround, backreferences) are refused with TARGET_INVALID.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { Cluster, freePort, type Proc } from '../helpers/cluster.js';

const SHA256_OF_PW = '1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0'; // sha256("s3cret")
const MACHINE_ID = '0123456789abcdef0123456789abcdef01234567'; // 40 hex characters
const EVIL = '[0-9a-f]{4}([0-9a-f]+)+X';
// the second minion's ID is hex too, so -E has a long text to backtrack over
const HEX_ID = `h${MACHINE_ID}`;
const EVIL_ID = `h${EVIL}`;

describe('ReDoS targets: the master keeps answering while catastrophic patterns are evaluated', () => {
  let cluster: Cluster;
  let master: Proc;
  let api: ApiClient;
  let token: string;
  const ids = ['m1', HEX_ID];

  /** `brine run` as root over the control socket; the CLI is killed after the normal -t bound. */
  const run = (args: string[]) => cluster.brine(['run', '--static', ...args, '--out', 'json', '-t', '20'], { timeoutMs: 60_000 });
  const pingAll = async () => {
    const r = await run(['*', 'test.ping']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { m1: true, [HEX_ID]: true });
  };

  before(async () => {
    cluster = await Cluster.create();
    const port = await freePort();
    const users = path.join(cluster.root, 'users.txt');
    fs.writeFileSync(users, `alice:${SHA256_OF_PW}\n`, { mode: 0o600 });
    const pillarRoot = path.join(cluster.root, 'master', 'srv', 'pillar');
    fs.mkdirSync(pillarRoot, { recursive: true });
    fs.writeFileSync(path.join(pillarRoot, 'top.sls'), "base:\n  '*':\n    - ids\n");
    fs.writeFileSync(path.join(pillarRoot, 'ids.sls'), `machine_id: '${MACHINE_ID}'\n`);
    master = await cluster.startMaster({
      auto_accept: true,
      api: { port },
      // a restricted API user: test.* on m1 only
      external_auth: { file: { '^filename': users, '^hashtype': 'sha256', alice: [{ m1: ['test.*'] }] } },
    });
    await master.waitForOutput(/serving the REST API/);
    const minions = ids.map((id) => cluster.startMinion(id, { grains: { machine_id: MACHINE_ID } }));
    for (const m of minions) await m.waitForOutput(/ready to receive requests/, 30_000);
    for (const id of ids) await master.waitForOutput(new RegExp(`cached grains of ${id}\\b`), 20_000);
    api = new ApiClient(port, fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8'));
    token = await api.login('alice', 's3cret');
    await pingAll();
  });
  after(() => cluster.cleanup());

  it('evil -E, -P, -J and -C targets from root, the API and mine.get are answered, and test.ping answers meanwhile', async () => {
    const evilCli = Promise.all([
      run(['-P', `machine_id:${EVIL}`, 'test.ping']),
      run(['-J', `machine_id:${EVIL}`, 'test.ping']),
      run(['-E', EVIL_ID, 'test.ping']),
      run(['-C', `m* and P@machine_id:${EVIL}`, 'test.ping']),
    ]);
    const evilApi = Promise.all([
      api.post('/', token, [{ client: 'local', tgt: `machine_id:${EVIL}`, tgt_type: 'grain_pcre', fun: 'test.ping' }]),
      api.post('/', token, [{ client: 'local', tgt: EVIL_ID, tgt_type: 'pcre', fun: 'test.ping' }]),
    ]);
    const evilMine = Promise.all([run(['m1', 'mine.get', `machine_id:${EVIL}`, 'test.ping', 'tgt_type=grain_pcre']), run(['m1', 'mine.get', EVIL_ID, 'test.ping', 'tgt_type=pcre'])]);
    // root's ping goes out while those are in flight, and must come back within its -t bound
    await pingAll();
    const [[p, j, e, c], apis, mines] = await Promise.all([evilCli, evilApi, evilMine]);
    for (const [name, r] of Object.entries({ p, j, e, c })) {
      // nothing matches: brine run says so and exits 2, like any target that selects no minion
      assert.equal(r.code, 2, `${name}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /NO_MINIONS_MATCHED|matched/i, name);
    }
    for (const res of apis) {
      // refused or empty for this restricted user, but answered, never a server error
      assert.ok(res.status < 500, `${res.status} ${res.text}`);
    }
    for (const r of mines) {
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { m1: {} }, 'no minion matched, so no mine data');
    }
    await pingAll();
  });

  it('lookaround and backreferences are TARGET_INVALID saying why, from root, the API and mine.get', async () => {
    for (const flags of [
      ['-E', 'm(?!2)'],
      ['-P', 'machine_id:(0)\\1'],
      ['-C', 'm* and J@machine_id:(?=0)'],
    ]) {
      const r = await run([...flags, 'test.ping']);
      assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /TARGET_INVALID: .*(lookahead or lookbehind|backreference).*linear-time engine/, flags.join(' '));
      assert.equal(r.stdout, '');
    }
    const res = await api.post('/', token, [{ client: 'local', tgt: 'm(?=1)', tgt_type: 'pcre', fun: 'test.ping' }]);
    assert.ok(res.status === 400 || res.status === 403, `${res.status} ${res.text}`);
    const mine = await run(['m1', 'mine.get', 'm(?=1)', 'test.ping', 'tgt_type=pcre']);
    assert.notEqual(mine.code, 0);
    assert.match(mine.stdout, /not a valid regular expression: it uses lookahead.*linear-time engine/);
    await pingAll();
  });
});
