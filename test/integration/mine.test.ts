// Issue 10 item 3, the mine end to end: a real master and three real minions over loopback TLS.
// mine_functions from the minion config are sent at start and read back by another minion with
// mine.get (answered by the master, every target type); allow_tgt restricts who reads an entry;
// an unknown mine function is reported by name while the others are sent; mine.send, delete and
// flush; mine_interval re-sends; a raw client signed in as one ID cannot write another's mine
// and oversized data is refused with a code; a deleted key takes its mine with it, also across
// a master restart (threats.md #4, #6).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { runCli, waitUntil, type Proc } from '../helpers/cluster.js';
import type { RawClient } from '../helpers/raw-client.js';
import { RawPeerFixture } from '../helpers/raw-peer.js';

const MINIONS: Record<string, Record<string, unknown>> = {
  m1: {
    grains: { role: 'web' },
    // a short interval: the stamp changes at every update
    mine_interval: 0.04,
    mine_functions: { 'test.ping': [], role: [{ mine_function: 'grains.get' }, 'role'], stamp: [{ mine_function: 'cmd.run' }, 'date +%s%N'] },
  },
  m2: {
    grains: { role: 'web' },
    mine_functions: { 'test.ping': [], role: [{ mine_function: 'grains.get' }, 'role'], 'nosuch.fun': [] },
  },
  m3: {
    grains: { role: 'db' },
    mine_functions: {
      'test.ping': [],
      role: { mine_function: 'grains.get', key: 'role' },
      secret: [{ mine_function: 'test.echo' }, 'for m2 only', { allow_tgt: 'm2' }],
      dbonly: [{ mine_function: 'test.echo' }, 'for db', { allow_tgt: 'G@role:db', allow_tgt_type: 'compound' }],
    },
  },
};

describe('mine: mine_functions, mine.get through the master, allow_tgt, purge with the key', () => {
  let fx: RawPeerFixture;
  const minions = new Map<string, Proc>();
  let master: Proc;

  /** `brine run <who> <fun> ...` and the minion's return (JSON). */
  const call = async (who: string, args: string[]): Promise<{ ret: unknown; code: number; raw: string }> => {
    const r = await fx.cluster.brine(['run', who, ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    const parsed = r.stdout.trim() === '' ? {} : (JSON.parse(r.stdout) as Record<string, unknown>);
    return { ret: parsed[who], code: r.code ?? -1, raw: r.stdout + r.stderr };
  };
  const mineGet = async (who: string, args: string[]): Promise<Record<string, unknown>> => {
    const r = await call(who, ['mine.get', ...args]);
    assert.equal(typeof r.ret, 'object', r.raw);
    return r.ret as Record<string, unknown>;
  };
  const sqliteMineIds = (): string[] => {
    const file = path.join(fx.cluster.root, 'master', 'var', 'cache', 'brine', 'master', 'jobs.sqlite');
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT id FROM mine_data ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
    } finally {
      db.close();
    }
  };

  before(async () => {
    fx = await RawPeerFixture.start({ auto_accept: true }, { goodMinion: false });
    master = fx.master;
    const srv = path.join(fx.cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(srv, { recursive: true });
    fs.writeFileSync(
      path.join(srv, 'roles.sls'),
      "{% set roles = salt['mine.get']('*', 'role') %}\nshow_roles:\n  cmd.run:\n    - name: echo {{ roles['m1'] }}-{{ roles['m3'] }}-{{ roles | length }}\n",
    );
    fs.writeFileSync(path.join(srv, 'sendit.sls'), 'send_from_state:\n  module.run:\n    - mine.send:\n      - fromstate\n      - hello from a state\n      - mine_function: test.echo\n');
    for (const [id, extra] of Object.entries(MINIONS)) minions.set(id, fx.cluster.startMinion(id, extra));
    for (const p of minions.values()) await p.waitForOutput(/ready to receive requests/, 30_000);
  });
  after(async () => {
    await fx.close();
  });

  it('mine_functions in the config are sent at start: one minion reads every minion through the master', async () => {
    const got = await waitUntil(
      async () => {
        const r = await mineGet('m1', ['*', 'test.ping']);
        return Object.keys(r).length === 3 ? r : undefined;
      },
      30_000,
      'every minion in the mine',
    );
    assert.deepEqual(got, { m1: true, m2: true, m3: true });
    // aliases (mine_function) in the list and the mapping form, with their arguments
    assert.deepEqual(await mineGet('m2', ['*', 'role']), { m1: 'web', m2: 'web', m3: 'db' });
  });

  it('mine.get evaluates every target type on the master, with its cached grains', async () => {
    assert.deepEqual(await mineGet('m1', ['m[23]', 'role']), { m2: 'web', m3: 'db' });
    assert.deepEqual(await mineGet('m1', ['role:db', 'role', 'tgt_type=grain']), { m3: 'db' });
    assert.deepEqual(await mineGet('m1', ['role:w.*', 'role', 'tgt_type=grain_pcre']), { m1: 'web', m2: 'web' });
    assert.deepEqual(await mineGet('m1', ['m1,m3', 'role', 'tgt_type=list']), { m1: 'web', m3: 'db' });
    assert.deepEqual(await mineGet('m1', ['^m[12]$', 'role', 'tgt_type=pcre']), { m1: 'web', m2: 'web' });
    assert.deepEqual(await mineGet('m1', ['G@role:web and not m1', 'role', 'tgt_type=compound']), { m2: 'web' });
    assert.deepEqual(await mineGet('m1', ['127.0.0.0/8', 'test.ping', 'tgt_type=ipcidr']).then((r) => typeof r), 'object');
    // several functions: {fun: {minion: data}}; exclude_minion leaves the asker out
    assert.deepEqual(await mineGet('m3', ['m3', 'test.ping,role']), { 'test.ping': { m3: true }, role: { m3: 'db' } });
    assert.deepEqual(await mineGet('m3', ['*', 'role', 'exclude_minion=True']), { m1: 'web', m2: 'web' });
    const bad = await call('m1', ['mine.get', 'G@role:web and (', 'role', 'tgt_type=compound']);
    assert.equal(bad.code, 1, bad.raw);
    assert.match(bad.raw, /compound|parse|expression/i);
    const badType = await call('m1', ['mine.get', '*', 'role', 'tgt_type=bogus']);
    assert.match(badType.raw, /tgtType|bogus|must be one of/i);
    // selecting by pillar would tell m1 about other minions' pillar: refused by default (threats.md #38)
    for (const args of [
      ['role:web', 'role', 'tgt_type=pillar'],
      ['role:^w', 'role', 'tgt_type=pillar_pcre'],
      ['G@role:web and I@role:web', 'role', 'tgt_type=compound'],
    ]) {
      const refused = await call('m1', ['mine.get', ...args]);
      assert.equal(refused.code, 1, refused.raw);
      assert.match(refused.raw, /cannot select minions by their pillar/);
    }
    await master.waitForOutput(/refused a mine_get from m1: .*cannot select minions by their pillar/);
  });

  it("salt['mine.get'] in a template is answered through the minion's session", async () => {
    const r = await call('m1', ['state.show_sls', 'roles']);
    assert.equal(r.code, 0, r.raw);
    assert.match(JSON.stringify(r.ret), /echo web-db-3/);
  });

  it('module.run of mine.send in a state (run in a worker thread) reaches the mine', async () => {
    const r = await call('m2', ['state.apply', 'sendit']);
    assert.equal(r.code, 0, r.raw);
    assert.deepEqual(await mineGet('m1', ['m2', 'fromstate']), { m2: 'hello from a state' });
  });

  it('allow_tgt: an entry is only returned to minions matching it', async () => {
    assert.deepEqual(await mineGet('m2', ['m3', 'secret']), { m3: 'for m2 only' });
    assert.deepEqual(await mineGet('m1', ['m3', 'secret']), {});
    assert.deepEqual(await mineGet('m3', ['m3', 'secret']), {});
    // compound allow_tgt evaluated with the master's cached grains of the asker
    assert.deepEqual(await mineGet('m3', ['*', 'dbonly']), { m3: 'for db' });
    assert.deepEqual(await mineGet('m2', ['*', 'dbonly']), {});
  });

  it('a mine function that does not exist is a coded error naming it; the others are still updated', async () => {
    await minions.get('m2')!.waitForOutput(/mine function nosuch\.fun was not updated: UNKNOWN_FUNCTION/);
    const r = await call('m2', ['mine.update']);
    assert.equal(r.code, 1, r.raw);
    assert.match(String(r.ret), /nosuch\.fun: UNKNOWN_FUNCTION: .*nosuch\.fun is not a function on this minion/);
    assert.match(String(r.ret), /updated: test\.ping, role/);
    assert.deepEqual(await mineGet('m1', ['m2', 'test.ping']), { m2: true });
    assert.deepEqual(await mineGet('m1', ['m2', 'nosuch.fun']), {});
    // where an operator looks: brine doctor on that minion names the entry and the fix
    const doc = await runCli(['doctor', 'minion', '-c', fx.cluster.minionConfigDir('m2')], { timeoutMs: 30_000 });
    assert.match(doc.stdout, /^WARN mine: last mine\.update \d+ s ago: 2 entries sent, 1 failed \(nosuch\.fun: UNKNOWN_FUNCTION: .*fix mine_functions/m);
    const healthy = await runCli(['doctor', 'minion', '-c', fx.cluster.minionConfigDir('m3')], { timeoutMs: 30_000 });
    assert.match(healthy.stdout, /^OK {3}mine: last mine\.update \d+ s ago: 4 entries sent\.$/m);
  });

  it('mine.send stores one function (or an alias), mine.delete drops one entry, mine.flush all', async () => {
    let r = await call('m2', ['mine.send', 'test.echo', 'hello']);
    assert.equal(r.ret, true, r.raw);
    r = await call('m2', ['mine.send', 'greeting', 'hi there', 'mine_function=test.echo']);
    assert.equal(r.ret, true, r.raw);
    assert.deepEqual(await mineGet('m1', ['m2', 'test.echo,greeting']), { 'test.echo': { m2: 'hello' }, greeting: { m2: 'hi there' } });
    const unknown = await call('m2', ['mine.send', 'nosuch.thing']);
    assert.equal(unknown.code, 1);
    assert.match(String(unknown.ret), /nosuch\.thing is not a function/);

    assert.equal((await call('m2', ['mine.delete', 'test.echo'])).ret, true);
    assert.deepEqual(await mineGet('m1', ['m2', 'test.echo,greeting']), { 'test.echo': {}, greeting: { m2: 'hi there' } });
    assert.deepEqual(await mineGet('m1', ['m2', 'role']), { m2: 'web' }, 'other entries are kept');

    assert.equal((await call('m2', ['mine.flush'])).ret, true);
    assert.deepEqual(await mineGet('m1', ['m2', 'test.ping,role,greeting']), { 'test.ping': {}, role: {}, greeting: {} });
    assert.deepEqual(await mineGet('m1', ['m3', 'test.ping']), { m3: true }, 'only the caller is flushed');
    // mine.update sends it again
    await call('m2', ['mine.update']);
    assert.deepEqual(await mineGet('m1', ['m2', 'role']), { m2: 'web' });
    assert.deepEqual(await call('m2', ['mine.valid']).then((x) => x.ret), { 'test.ping': [], role: { 'grains.get': ['role'] } });
  });

  it('mine_interval runs mine.update again', async () => {
    const stamp = async () => (await mineGet('m2', ['m1', 'stamp'])).m1;
    const first = await waitUntil(stamp, 20_000, 'a first stamp');
    const second = await waitUntil(
      async () => {
        const s = await stamp();
        return s !== first ? s : undefined;
      },
      20_000,
      'the stamp to change with mine_interval',
    );
    assert.match(String(second), /^\d+$/);
  });

  describe('through the real protocol: identity and bounds (threats.md #4)', () => {
    let raw: RawClient;
    before(async () => {
      raw = await fx.connect();
      raw.send({ t: 'hello', versions: [1], id: 'rawpeer', agent: 'raw-client' });
      const auth = await raw.nextFrame(10_000);
      assert.equal(auth?.status, 'accepted', JSON.stringify(auth));
    });

    it('a client signed in as rawpeer that claims to be m3 only ever changes its own mine', async () => {
      raw.send({ t: 'mine_send', rid: 1, id: 'm3', minion: 'm3', data: { role: { data: 'forged' }, 'test.ping': { data: false } }, clear: false });
      let reply = await raw.nextFrame(5000);
      assert.equal(reply?.t, 'mine_reply');
      assert.equal(reply?.ok, true, JSON.stringify(reply));
      raw.send({ t: 'mine_flush', rid: 2, id: 'm3' });
      reply = await raw.nextFrame(5000);
      assert.equal(reply?.ok, true);
      raw.send({ t: 'mine_send', rid: 3, id: 'm3', data: { role: { data: 'forged again' } }, clear: false });
      await raw.nextFrame(5000);
      const role = await mineGet('m1', ['*', 'role']);
      assert.equal(role.m3, 'db', 'm3 keeps its own data');
      assert.equal(role.rawpeer, 'forged again', 'the data went to the session ID');
      assert.deepEqual(await mineGet('m1', ['m3', 'test.ping']), { m3: true });
      // reading: allow_tgt is checked for the session's ID, and a peer that never sent grains is not let in
      raw.send({ t: 'mine_get', rid: 4, id: 'm2', tgt: 'm3', tgtType: 'glob', funs: ['secret', 'dbonly', 'role'] });
      reply = await raw.nextFrame(5000);
      assert.equal(reply?.ok, true, JSON.stringify(reply));
      assert.deepEqual(reply?.data, { secret: {}, dbonly: {}, role: { m3: 'db' } });
      // the raw protocol cannot select by pillar either
      raw.send({ t: 'mine_get', rid: 5, tgt: 'role:^d', tgtType: 'pillar_pcre', funs: ['role'] });
      reply = await raw.nextFrame(5000);
      assert.equal(reply?.ok, false, JSON.stringify(reply));
      assert.equal((reply?.error as { code: string } | undefined)?.code, 'PILLAR_DENIED');
      assert.equal(reply?.data, undefined);
    });

    it('an entry over the bound is refused with MINE_DATA_TOO_LARGE and nothing is stored', async () => {
      const chunk = 'x'.repeat(700_000);
      raw.send({ t: 'mine_send', rid: 10, data: { big1: { data: chunk } }, clear: false });
      assert.equal((await raw.nextFrame(5000))?.ok, true);
      raw.send({ t: 'mine_send', rid: 11, data: { big2: { data: chunk } }, clear: false });
      const reply = await raw.nextFrame(5000);
      assert.equal(reply?.ok, false);
      assert.equal((reply?.error as { code: string } | undefined)?.code, 'MINE_DATA_TOO_LARGE', JSON.stringify(reply?.error));
      const got = await mineGet('m1', ['rawpeer', 'big1,big2']);
      assert.deepEqual(Object.keys(got.big1 as object), ['rawpeer']);
      assert.deepEqual(got.big2, {});
      // the minion side refuses to send what the master would refuse
      const bigFile = path.join(fx.cluster.root, 'big.txt');
      fs.writeFileSync(bigFile, 'x'.repeat(1_100_000));
      const r = await call('m2', ['mine.send', 'huge', bigFile, 'mine_function=file.read']);
      assert.equal(r.code, 1);
      assert.match(String(r.ret), /larger than 1048576/);
      assert.match(r.raw, /MINE_DATA_TOO_LARGE|larger than/);
    });
  });

  it('a deleted key takes its mine with it (memory and SQLite), also after a master restart', async () => {
    await minions.get('m3')!.kill();
    assert.ok(sqliteMineIds().includes('m3'));
    const del = await fx.cluster.brine(['key', '-d', 'm3', '-y']);
    assert.equal(del.code, 0, del.stderr);
    await waitUntil(() => !sqliteMineIds().includes('m3'), 10_000, 'm3 to leave mine_data');
    assert.match(master.output, /forgot the mine of m3/);
    assert.deepEqual(Object.keys(await mineGet('m1', ['*', 'test.ping'])).sort(), ['m1', 'm2']);
    // m2 is stopped: what the master shows of it after the restart comes from the job cache
    await minions.get('m2')!.kill();
    await master.kill();
    master = fx.cluster.spawnBrine('master', ['master', '-c', fx.cluster.masterConfigDir]);
    await master.waitForOutput(/brine master listening/);
    assert.match(master.output, /loaded the mine of \d+ minions/);
    await minions.get('m1')!.waitForOutput(/ready to receive requests[\s\S]*ready to receive requests/, 30_000);
    const after = await mineGet('m1', ['*', 'role']);
    assert.equal(after.m3, undefined, 'no stale data from a departed host');
    assert.equal(after.m2, 'web', 'the mine of a stopped minion survives the restart');
  });

  it('a replaced key (a re-imaged host) does not inherit the mine of its predecessor (threats.md #6)', async () => {
    fs.rmSync(path.join(fx.cluster.root, 'minions', 'm2', 'etc', 'brine', 'pki', 'minion'), { recursive: true, force: true });
    const finger = (await fx.cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]!;
    // the new host has no mine_functions: whatever the master shows of m2 afterwards would be inherited
    const reimaged = fx.cluster.startMinion('m2', { master_finger: finger });
    assert.equal(await reimaged.exited, 77, reimaged.output);
    assert.equal((await mineGet('m1', ['m2', 'role'])).m2, 'web', 'the old mine is still there before the replace');
    const r = await fx.cluster.brine(['key', '--replace', 'm2', '-y']);
    assert.equal(r.code, 0, r.stderr);
    await waitUntil(async () => (await mineGet('m1', ['m2', 'role'])).m2 === undefined, 15_000, "m2's old mine to be dropped");
    const fresh = fx.cluster.startMinion('m2', { master_finger: finger });
    await fresh.waitForOutput(/ready to receive requests/, 30_000);
    assert.deepEqual(await mineGet('m1', ['m2', 'role,test.ping']), { role: {}, 'test.ping': {} });
  });
});
