// Issue 5, targeting end to end: a real master and seven real minions with different grains
// (config grains roles/env/ipv4 and the real os) over loopback TLS. Every target type (glob,
// pcre, list, grain, grain_pcre, ipcidr, compound, nodegroup) selects the right minions; a
// connected minion whose grains the master has not cached is expected under grain targets
// (it returns when it matches, and is reported as not returning when it does not); the cached
// grains survive a master restart and are purged with the key; and malformed targets, unknown
// nodegroups and nodegroup loops exit 2 with a coded error and publish nothing.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';

const NODEGROUPS = {
  webs: 'G@roles:web and not bloated',
  listed: ['db2', 'cache1'],
  combo: 'N@webs or N@listed',
  loop1: 'N@loop2',
  loop2: 'web* or N@loop1',
  dangling: 'db* or N@nosuch',
};

// config grains; db2 also overrides the real `os`, web1/web2 the real `ipv4`
const MINIONS: Record<string, Record<string, unknown>> = {
  web1: { roles: ['web'], env: 'prod', ipv4: ['10.9.1.11'] },
  web2: { roles: ['web', 'cache'], env: 'dev', ipv4: ['10.9.2.12'] },
  db1: { roles: ['db'], env: 'prod' },
  db2: { roles: ['db'], env: 'dev', os: 'Plan9' },
  cache1: { roles: ['cache'], env: 'prod', site: { rack: 'r1' } },
  // grains over the protocol bound are never sent: the master has no data for this minion
  bloated: { roles: ['web'], env: 'prod', blob: 'x'.repeat(1_100_000) },
};
const WITH_DATA = ['web1', 'web2', 'db1', 'db2', 'cache1'];

/** id -> first line of its result, from `--out txt`. */
function results(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = /^([A-Za-z0-9._@-]+): (.*)$/.exec(line);
    if (m && !out.has(m[1]!)) out.set(m[1]!, m[2]!);
  }
  return out;
}

describe('targeting: every target type against real minions with different grains', () => {
  let cluster: Cluster;
  let master: Proc;
  const minions = new Map<string, Proc>();
  let realOs = '';

  const run = (args: string[]) => cluster.brine(['run', ...args, '--out', 'txt']);
  const returned = (r: { stdout: string }) =>
    [...results(r.stdout)]
      .filter(([, v]) => v === 'True')
      .map(([id]) => id)
      .sort();
  const cachedGrains = (id: string) => new RegExp(`cached grains of ${id}\\b`);
  const jobCount = async () => (await cluster.brine(['jobs', 'list', '--limit', '1000'])).stdout.split('\n').filter((l) => /^\d{20}\s/.test(l)).length;

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster({ nodegroups: NODEGROUPS });
    for (const [id, grains] of Object.entries(MINIONS)) minions.set(id, cluster.startMinion(id, { grains }));
    await cluster.waitForPending(Object.keys(MINIONS), 30_000);
    const acc = await cluster.brine(['key', '-A', '-y']);
    assert.equal(acc.code, 0, acc.stderr);
    for (const id of WITH_DATA) await master.waitForOutput(cachedGrains(id), 20_000);
    await minions.get('bloated')!.waitForOutput(/not sending grains to the master: .*larger than 1048576/);
    await minions.get('bloated')!.waitForOutput(/ready to receive requests/);
    const os = await cluster.brine(['run', 'db1', 'grains.item', 'os', '--out', 'json']);
    realOs = (JSON.parse(os.stdout) as { db1: { os: string } }).db1.os;
    assert.ok(realOs.length > 0 && realOs !== 'Plan9');
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('glob, pcre and list look at IDs only', async () => {
    assert.deepEqual(returned(await run(['web*', 'test.ping'])), ['web1', 'web2']);
    assert.deepEqual(returned(await run(['-E', '(db|cache)\\d', 'test.ping'])), ['cache1', 'db1', 'db2']);
    assert.deepEqual(returned(await run(['-L', 'web2,db1', 'test.ping'])), ['db1', 'web2']);
  });

  it('-G matches config grains, lists, nested keys and the real os; the minion without cached data returns when it matches', async () => {
    const web = await run(['-G', 'roles:web', 'test.ping']);
    assert.equal(web.code, 0, web.stdout + web.stderr);
    assert.deepEqual(returned(web), ['bloated', 'web1', 'web2']);
    assert.deepEqual(returned(await run(['-G', 'roles:cache', 'test.ping'])), ['cache1', 'web2']);
    assert.deepEqual(returned(await run(['-G', 'site:rack:r*', 'test.ping'])), ['cache1']);
    const os = await run(['-G', `os:${realOs.toLowerCase()}`, 'test.ping']);
    assert.deepEqual(returned(os), ['bloated', 'cache1', 'db1', 'web1', 'web2'], 'case-insensitive, db2 overrides os');
    assert.deepEqual(returned(await run(['-G', 'env|prod', '--delimiter', '|', 'test.ping'])), ['bloated', 'cache1', 'db1', 'web1']);
  });

  it('a minion without cached data is expected under a grain target it does not match, and reported as not returning', async () => {
    const r = await run(['-G', 'roles:db', 'test.ping', '-t', '2']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const res = results(r.stdout);
    assert.deepEqual(returned(r), ['db1', 'db2']);
    assert.match(res.get('bloated') ?? '', /^Minion did not return\. \[No response\]/);
    assert.equal(res.has('web1'), false, 'minions whose cached grains do not match are not expected');
    assert.match(r.stderr, /Minions returned with non-zero exit code/);
  });

  it('-P matches the value with a regular expression', async () => {
    assert.deepEqual(returned(await run(['-P', 'env:^pr', 'test.ping'])), ['bloated', 'cache1', 'db1', 'web1']);
    assert.deepEqual(returned(await run(['-P', 'roles:(db|cache)$', 'test.ping', '-t', '2'])), ['cache1', 'db1', 'db2', 'web2']);
  });

  it('-S matches addresses and networks against the cached ipv4 grains', async () => {
    const net = await run(['-S', '10.9.0.0/16', 'test.ping', '-t', '2']);
    assert.deepEqual(returned(net), ['web1', 'web2']);
    assert.match(results(net.stdout).get('bloated') ?? '', /\[No response\]/, 'no data: expected, and it does not match itself');
    assert.deepEqual(returned(await run(['-S', '10.9.2.12', 'test.ping', '-t', '2'])), ['web2']);
    assert.deepEqual(returned(await run(['-S', '127.0.0.1', 'test.ping'])), ['bloated', 'cache1', 'db1', 'db2']);
  });

  it('-C combines engines with and, or, not and parentheses (not > and > or)', async () => {
    // bloated has no cached data, so it is in G@env:dev too and `not` removes it
    assert.deepEqual(returned(await run(['-C', 'G@roles:web and not G@env:dev', 'test.ping'])), ['web1']);
    assert.deepEqual(returned(await run(['-C', 'L@db1,cache1 or E@^web2$', 'test.ping'])), ['cache1', 'db1', 'web2']);
    assert.deepEqual(returned(await run(['-C', '( G@roles:db or G@roles:cache ) and G@env:prod and not bloated', 'test.ping'])), ['cache1', 'db1']);
    assert.deepEqual(returned(await run(['-C', 'db1 or web* and G@env:dev', 'test.ping'])), ['db1', 'web2']);
    assert.deepEqual(returned(await run(['-C', `S@10.9.1.0/24 or G@os:Plan9 or P@os:^${realOs.slice(0, 2).toLowerCase()} and G@site:rack:r1`, 'test.ping'])), ['cache1', 'db2', 'web1']);
  });

  it('-N expands nodegroups from the master config (nested N@ and a list of IDs), and minions evaluate the expansion', async () => {
    assert.deepEqual(returned(await run(['-N', 'webs', 'test.ping'])), ['web1', 'web2']);
    assert.deepEqual(returned(await run(['-N', 'listed', 'test.ping'])), ['cache1', 'db2']);
    const combo = await run(['-N', 'combo', 'test.ping']);
    assert.equal(combo.code, 0, combo.stdout + combo.stderr);
    assert.deepEqual(returned(combo), ['cache1', 'db2', 'web1', 'web2']);
    assert.deepEqual(returned(await run(['-C', 'N@listed and not db*', 'test.ping'])), ['cache1']);
  });

  it('malformed targets, unknown nodegroups and loops exit 2 with a coded error, and nothing is published', async () => {
    const before = await jobCount();
    assert.ok(before > 0);
    const logFrom = master.output.length;
    const bad: Array<[string[], RegExp]> = [
      [['-C', 'G@roles:web and'], /TARGET_INVALID: compound target "G@roles:web and": at the end: .*a target is missing/],
      [['-C', 'web1 or or db1'], /TARGET_INVALID: .*at position 9 \("or"\)/],
      [['-C', '( web1 or db1'], /TARGET_INVALID: .*'\(' is never closed/],
      [['-C', 'web1 and G@roles'], /TARGET_INVALID: .*at position 10 \("G@roles"\).*not key:value/],
      [['-N', 'nosuch'], /TARGET_INVALID: unknown nodegroup 'nosuch'; known nodegroups: combo, dangling, listed, loop1, loop2, webs/],
      [['-N', 'dangling'], /TARGET_INVALID: unknown nodegroup 'nosuch' \(used as N@nosuch in nodegroup 'dangling'\)/],
      [['-N', 'loop1'], /TARGET_INVALID: nodegroup loop: N@loop1 -> N@loop2 -> N@loop1/],
      [['-C', 'web* and N@loop2'], /TARGET_INVALID: nodegroup loop: N@loop2 -> N@loop1 -> N@loop2/],
      [['-G', 'roles'], /TARGET_INVALID: .*not key:value/],
      [['-P', 'roles:(web'], /TARGET_INVALID: .*not a valid regular expression/],
      [['-S', '10.9.1.11/16'], /TARGET_INVALID: .*host bits set; the network is 10\.9\.0\.0\/16/],
    ];
    for (const [flags, message] of bad) {
      const r = await run([...flags, 'test.ping']);
      assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, flags.join(' '));
      assert.match(r.stderr, /fix: /);
      assert.equal(r.stdout, '', 'no minion output');
    }
    const usage = await run(['-G', '-C', 'roles:web', 'test.ping']);
    assert.equal(usage.code, 64);
    assert.match(usage.stderr, /choose one target type, not -G and -C/);
    assert.equal(await jobCount(), before, 'no job was stored for any bad target');
    assert.doesNotMatch(master.output.slice(logFrom), /published job/, 'the master published nothing');
  });

  it('cached grains survive a master restart: a stopped minion whose cached grains do not match is not expected', async () => {
    await minions.get('web1')!.kill();
    await minions.get('db2')!.kill();
    await master.kill();
    master = cluster.spawnBrine('master', ['master', '-c', cluster.masterConfigDir]);
    await master.waitForOutput(/brine master listening/);
    assert.match(master.output, /loaded cached grains of 5 minions/);
    const r = await run(['-G', 'os:Plan9', 'test.ping', '-t', '2']);
    const res = results(r.stdout);
    // db2 is expected from its cached grains and known to be down; web1's cached grains say Debian-like
    assert.match(res.get('db2') ?? '', /\[Not connected\]/, r.stdout);
    assert.equal(res.has('web1'), false, `web1 must not be expected: ${r.stdout}`);
    assert.equal(res.has('cache1'), false);
    assert.equal(res.has('bloated'), true, 'no data: greedy');
  });

  it('deleting a key purges that minion from the data cache (memory and SQLite)', async () => {
    const file = path.join(cluster.root, 'master', 'var', 'cache', 'brine', 'master', 'jobs.sqlite');
    const rows = () => {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare('SELECT id FROM minion_data ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);
      } finally {
        db.close();
      }
    };
    assert.ok(rows().includes('db2'));
    const del = await cluster.brine(['key', '-d', 'db2', '-y']);
    assert.equal(del.code, 0, del.stderr);
    await waitUntil(() => !rows().includes('db2'), 10_000, 'db2 to leave minion_data');
    assert.match(master.output, /forgot the cached grains of db2/);
    assert.ok(rows().includes('cache1'), 'others are kept');
  });
});
