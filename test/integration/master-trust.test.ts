// Master key trust with real processes (issue 4 item 5, issue 8 item 6): each master's key is
// pinned once that master accepts the minion; master_finger (one or a list) is checked before
// anything is trusted; a master whose key changed, or that refuses a minion it never accepted,
// is refused with a CRITICAL log and retried while the other masters are served; masters set up
// independently (their own key pairs) work for failover and hot/hot; and a rejection from a
// trusted master still ends the minion (77) when no other master accepts it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type Proc } from '../helpers/cluster.js';

const pkiOf = (c: Cluster, name: string) => path.join(c.root, 'minions', name, 'etc', 'brine', 'pki', 'minion');
const pinsOf = (c: Cluster, name: string) => path.join(pkiOf(c, name), 'masters');
const masterPki = (c: Cluster) => path.join(c.root, 'master', 'etc', 'brine', 'pki', 'master');
const masterFp = async (c: Cluster) => (await c.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]!;
const at = (c: Cluster) => `127.0.0.1:${c.port}`;
/** Lines the minion logged as ready on one master. */
const readyOn = (m: Proc, c: Cluster) => m.output.split('\n').filter((l) => l.includes('ready to receive requests') && l.includes(`master=${at(c)}`)).length;

async function ping(c: Cluster, id: string): Promise<void> {
  const r = await c.brine(['run', id, 'test.ping', '--out', 'txt', '-t', '10']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(r.stdout.trim(), `${id}: True`);
}

/** Removes a master's key pair, so its next start makes a new one (a re-keyed master). */
function rekey(c: Cluster): void {
  for (const f of ['master.pem', 'master.pub', 'master.crt']) fs.rmSync(path.join(masterPki(c), f), { force: true });
}

describe('master key trust, one master', () => {
  let cluster: Cluster;
  let master: Proc;

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster({ auto_accept: true });
  });
  after(() => cluster.cleanup());

  it('accepts a master whose fingerprint matches master_finger (any spelling, or in a list)', async () => {
    const fp = await masterFp(cluster);
    const m = cluster.startMinion('fingered', { master_finger: fp.replace(/:/g, '').toUpperCase() });
    await m.waitForOutput(/ready to receive requests/);
    await m.kill();
    const listed = cluster.startMinion('listed', { master_finger: [`${'aa:'.repeat(31)}aa`, fp] });
    await listed.waitForOutput(/ready to receive requests/);
    await listed.kill();
  });

  it('refuses a master that does not match master_finger: CRITICAL, retried, nothing pinned, no exit', async () => {
    const wrong = `${'aa:'.repeat(31)}aa`;
    const m = cluster.startMinion('wrongfinger', { master_finger: wrong, log_level: 'debug' });
    const [line] = await m.waitForOutput(/\[CRITICAL\] Refusing master 127\.0\.0\.1:\d+: master 127\.0\.0\.1:\d+ presented key .*/);
    assert.ok(line.includes(await masterFp(cluster)) && line.includes(wrong), 'names the fingerprint the master presented and master_finger');
    // retried with backoff (logged once, repeats at debug), and the minion stays up
    await waitUntil(() => (m.output.match(/still unable to connect/g) ?? []).length >= 2, 15_000, `two more attempts\n${m.output}`);
    assert.equal((m.output.match(/\[CRITICAL\]/g) ?? []).length, 1, 'CRITICAL once per outage, not per attempt');
    assert.ok(m.running, m.output);
    assert.equal(fs.existsSync(pinsOf(cluster, 'wrongfinger')), false);
    assert.equal(fs.existsSync(path.join(pkiOf(cluster, 'wrongfinger'), 'minion_master.pub')), false);
    await m.kill();
  });

  it('with untrusted_master_exit a wrong master_finger ends the minion with exit 42, as before', async () => {
    const m = cluster.startMinion('strict', { master_finger: `${'ab:'.repeat(31)}ab`, untrusted_master_exit: true });
    assert.equal(await m.exited, 42, m.output);
    assert.match(m.output, /MASTER_FINGER_MISMATCH/);
  });

  it('pins the master once it accepts, and refuses a changed master key with both fingerprints (CRITICAL, no exit)', async () => {
    const m = cluster.startMinion('pinned');
    await m.waitForOutput(/ready to receive requests/);
    const oldFp = await masterFp(cluster);
    const pinFile = path.join(pinsOf(cluster, 'pinned'), `127.0.0.1_${cluster.port}.pub`);
    assert.equal(fs.existsSync(pinFile), true, 'pinned per master');
    await m.kill();
    await master.kill();
    rekey(cluster);
    master = await cluster.startMaster({ auto_accept: true });
    const newFp = await masterFp(cluster);
    assert.notEqual(newFp, oldFp);
    const again = cluster.startMinion('pinned');
    const [line] = await again.waitForOutput(/\[CRITICAL\] Refusing master .*MASTER_KEY_CHANGED|\[CRITICAL\] Refusing master .*The master key has changed.*/);
    assert.ok(line.includes(oldFp) && line.includes(newFp), line);
    assert.ok(line.includes(pinFile), line);
    assert.ok(again.running);
    // re-trusting: delete the pin as the message says; the running minion picks up the master at its next retry
    fs.rmSync(pinFile);
    await again.waitForOutput(/ready to receive requests/, 20_000);
    await ping(cluster, 'pinned');
    await again.kill();
  });

  it('migrates an old single minion_master.pub: same key pinned per master, a different key refused', async () => {
    const m = cluster.startMinion('legacy');
    await m.waitForOutput(/ready to receive requests/);
    await m.kill();
    const pins = pinsOf(cluster, 'legacy');
    const pem = fs.readFileSync(path.join(pins, `127.0.0.1_${cluster.port}.pub`), 'utf8');
    // as brine before per-master pins left it
    fs.rmSync(pins, { recursive: true });
    fs.writeFileSync(path.join(pkiOf(cluster, 'legacy'), 'minion_master.pub'), pem);
    const again = cluster.startMinion('legacy');
    await again.waitForOutput(/ready to receive requests/);
    assert.match(again.output, /moved the master key pin/);
    assert.equal(fs.existsSync(path.join(pkiOf(cluster, 'legacy'), 'minion_master.pub')), false);
    assert.equal(fs.readFileSync(path.join(pins, `127.0.0.1_${cluster.port}.pub`), 'utf8'), pem);
    await again.kill();
  });

  it('a rejection from the pinned master with no other master still ends the minion with exit 77', async () => {
    const m = cluster.startMinion('outcast');
    await m.waitForOutput(/ready to receive requests/);
    await m.kill();
    // the operator rejects the (now known) key: delete, then reject it when it comes back pending
    await master.kill();
    master = await cluster.startMaster({ auto_accept: false });
    assert.equal((await cluster.brine(['key', '-d', 'outcast', '-y'])).code, 0);
    const again = cluster.startMinion('outcast');
    await cluster.waitForPending(['outcast']);
    assert.equal((await cluster.brine(['key', '-r', 'outcast', '-y'])).code, 0);
    assert.equal(await again.exited, 77, again.output);
    assert.match(again.output, /The master has rejected this minion's public key!/);
    await master.kill();
    master = await cluster.startMaster({ auto_accept: true });
  });
});

describe('masters set up independently (their own key pairs)', () => {
  let one: Cluster;
  let two: Cluster;
  let m1: Proc;
  let m2: Proc;

  before(async () => {
    one = await Cluster.create();
    two = await Cluster.create();
    [m1, m2] = await Promise.all([one.startMaster({ auto_accept: true }), two.startMaster({ auto_accept: true })]);
    assert.notEqual(await masterFp(one), await masterFp(two), 'two key pairs');
  });
  after(async () => {
    await one.cleanup();
    await two.cleanup();
  });

  it('(a) failover: accepted on both, the first master dies, the minion fails over and runs test.ping there, no exit', async () => {
    const minion = one.startMinion('fo', { master: [at(one), at(two)], master_type: 'failover' });
    await waitUntil(() => readyOn(minion, one) >= 1, 15_000, `ready on the first master\n${minion.output}`);
    await ping(one, 'fo');
    await m1.kill();
    await waitUntil(() => readyOn(minion, two) >= 1, 20_000, `failover to the second master\n${minion.output}`);
    await ping(two, 'fo');
    assert.ok(minion.running, minion.output);
    assert.doesNotMatch(minion.output, /CRITICAL|MASTER_KEY_CHANGED/);
    const pins = fs.readdirSync(pinsOf(one, 'fo')).sort();
    assert.deepEqual(pins, [`127.0.0.1_${one.port}.pub`, `127.0.0.1_${two.port}.pub`].sort());
    await minion.kill();
    m1 = await one.startMaster({ auto_accept: true });
  });

  it('(b) hot/hot: jobs from both masters run', async () => {
    const minion = one.startMinion('hh', { master: [at(one), at(two)], master_type: 'str' });
    await waitUntil(() => readyOn(minion, one) >= 1 && readyOn(minion, two) >= 1, 15_000, `ready on both masters\n${minion.output}`);
    await ping(one, 'hh');
    await ping(two, 'hh');
    assert.ok(minion.running, minion.output);
    await minion.kill();
  });

  it('(d) a pinned master whose key changes: CRITICAL with both fingerprints, doctor FAIL with both, the other master still served', async () => {
    const minion = one.startMinion('rk', { master: [at(one), at(two)], master_type: 'str' });
    await waitUntil(() => readyOn(minion, one) >= 1 && readyOn(minion, two) >= 1, 15_000, `ready on both masters\n${minion.output}`);
    const oldFp = await masterFp(two);
    await m2.kill();
    rekey(two);
    m2 = await two.startMaster({ auto_accept: true });
    const newFp = await masterFp(two);
    const [line] = await minion.waitForOutput(new RegExp(`\\[CRITICAL\\] Refusing master ${at(two).replace(/\./g, '\\.')}: .*`), 30_000);
    assert.ok(line.includes(oldFp) && line.includes(newFp), line);
    await ping(one, 'rk');
    const doctor = await runCli(['doctor', 'minion', '-c', one.minionConfigDir('rk')], { timeoutMs: 30_000 });
    assert.equal(doctor.code, 1, doctor.stdout);
    const fails = doctor.stdout.split('\n').filter((l) => l.startsWith('FAIL'));
    assert.ok(
      fails.some((l) => l.startsWith(`FAIL master ${at(two)} TLS: the master key has changed`) && l.includes(oldFp) && l.includes(newFp)),
      doctor.stdout,
    );
    assert.ok(
      fails.some((l) => l.startsWith(`FAIL minion daemon -> ${at(two)} refused: MASTER_KEY_CHANGED`) && l.includes(oldFp) && l.includes(newFp)),
      doctor.stdout,
    );
    assert.match(doctor.stdout, new RegExp(`^OK   master ${at(one).replace(/\./g, '\\.')} TLS`, 'm'));
    assert.match(doctor.stdout, /^WARN master_finger: not set/m);
    assert.ok(minion.running, minion.output);
    await minion.kill();
  });
  it('(e) hot/hot: a trusted master that rejects the minion while the other accepts it: no exit; once both reject: exit 77', async () => {
    const minion = one.startMinion('rj', { master: [at(one), at(two)], master_type: 'str' });
    await waitUntil(() => readyOn(minion, one) >= 1 && readyOn(minion, two) >= 1, 15_000, `ready on both masters\n${minion.output}`);
    // the second master (pinned: it accepted us) now rejects the key; its session is closed at once
    assert.equal((await two.brine(['key', '-r', 'rj', '--include-accepted', '-y'])).code, 0);
    await minion.waitForOutput(new RegExp(`\\[ERROR +\\] Master ${at(two).replace(/\./g, '\\.')} rejected this minion: .*Another master still accepts this minion`), 20_000);
    await ping(one, 'rj');
    assert.ok(minion.running, minion.output);
    // and the first one too: no master accepts it any more
    assert.equal((await one.brine(['key', '-r', 'rj', '--include-accepted', '-y'])).code, 0);
    assert.equal(await minion.exited, 77, minion.output);
    assert.match(minion.output, /The master has rejected this minion's public key!/);
  });
});

describe('a fake master on first contact', () => {
  let real: Cluster;
  let fake: Cluster;
  let fakeMaster: Proc;

  before(async () => {
    real = await Cluster.create();
    fake = await Cluster.create();
    // the fake: a master with its own key that rejects everyone (autoreject_file '*')
    const reject = path.join(fake.root, 'master', 'autoreject.conf');
    fs.mkdirSync(path.dirname(reject), { recursive: true });
    fs.writeFileSync(reject, '*\n', { mode: 0o644 });
    fs.chmodSync(reject, 0o644);
    [, fakeMaster] = await Promise.all([real.startMaster({ auto_accept: true }), fake.startMaster({ autoreject_file: '/autoreject.conf' })]);
  });
  after(async () => {
    await real.cleanup();
    await fake.cleanup();
  });

  it('(c) a fresh minion that lists it first does not exit 77: it retries the fake with backoff and serves the real master', async () => {
    const minion = real.startMinion('fresh', { master: [at(fake), at(real)], master_type: 'str' });
    const [line] = await minion.waitForOutput(new RegExp(`\\[CRITICAL\\] Refusing master ${at(fake).replace(/\./g, '\\.')}: .*before it was ever trusted.*`));
    assert.ok(line.includes(await masterFp(fake)), line);
    await waitUntil(() => readyOn(minion, real) >= 1, 15_000, `ready on the real master\n${minion.output}`);
    await ping(real, 'fresh');
    // the fake is asked again (backoff, acceptance_wait_time 0.5 s doubling), and the minion stays
    const rejections = () => fakeMaster.output.split('\n').filter((l) => /fresh/.test(l) && /reject/i.test(l)).length;
    await waitUntil(() => rejections() >= 3, 20_000, `three rejections from the fake master\n${fakeMaster.output}`);
    assert.ok(minion.running, minion.output);
    assert.equal(fs.existsSync(path.join(pinsOf(real, 'fresh'), `127.0.0.1_${fake.port}.pub`)), false, 'the fake master is never pinned');
    assert.equal(fs.existsSync(path.join(pinsOf(real, 'fresh'), `127.0.0.1_${real.port}.pub`)), true);
    await ping(real, 'fresh');
    await minion.kill();
  });
});
