// Issue 4 item 6, `brine doctor`, with real processes: every FAIL and WARN the doctor detects on a
// minion (master unreachable, wrong master_finger, changed master key, pending, rejected, denied
// key, minion not running) and on a master (pending keys, a duplicate ID, a flapping minion made
// by resetting its connection through a FaultProxy), a healthy minion that is all OK with its RTT
// and return queue, and proof that a probe neither creates a key nor replaces a live session.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { Cluster, freePort, runCli, waitUntil, type CliResult, type Proc } from '../helpers/cluster.js';
import { FaultProxy } from '../faults/index.js';
import { fingerprint, loadOrCreateIdentity } from '../../src/pki/index.js';

const LIVENESS = { heartbeat_interval: 1, heartbeat_timeout: 5 };
const FP = /(?:[0-9a-f]{2}:){31}[0-9a-f]{2}/g;

interface StatusRow {
  id: string;
  state: string;
  connectedSince?: number;
  reconnects: number;
  flapping?: boolean;
}

describe('brine doctor', () => {
  let cluster: Cluster;
  let master: Proc;
  let proxy: FaultProxy;
  let masterFp = '';
  const minionPki = (name: string) => path.join(cluster.root, 'minions', name, 'etc', 'brine', 'pki', 'minion');
  const doctor = (name: string, group?: string): Promise<CliResult> => runCli(['doctor', ...(group ? [group] : []), '-c', cluster.minionConfigDir(name)], { timeoutMs: 30_000 });
  const lines = (r: CliResult) => r.stdout.split('\n').filter((l) => l !== '');
  const status = async (id: string): Promise<StatusRow | undefined> => {
    const r = await cluster.brine(['minions', 'status', '--out', 'sessions']);
    return (JSON.parse(r.stdout) as StatusRow[]).find((row) => row.id === id);
  };
  const accept = async (id: string) => {
    await cluster.waitForPending([id]);
    const r = await cluster.brine(['key', '-a', id, '-y']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  };

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster(LIVENESS);
    masterFp = (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]!;
    proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: cluster.port } });
  });
  after(async () => {
    await proxy.close();
    await cluster.cleanup();
  });

  it('every output line starts OK, WARN or FAIL; with no master listening: DNS OK, TCP FAIL with the fix, minion not running, exit 1', async () => {
    const deadPort = await freePort();
    cluster.writeMinionConfig('lonely', { master_port: deadPort });
    const r = await doctor('lonely');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    for (const l of lines(r)) assert.match(l, /^(OK {2}|WARN|FAIL) \S/, l);
    assert.match(r.stdout, /^OK {3}minion config: \S+minion is valid\.$/m);
    assert.match(r.stdout, /^OK {3}minion id: lonely \(from `id:` in the minion config\)/m);
    assert.match(r.stdout, new RegExp(`^OK   master 127\\.0\\.0\\.1:${deadPort} DNS: 127\\.0\\.0\\.1 resolves to 127\\.0\\.0\\.1 \\(\\d`, 'm'));
    assert.match(
      r.stdout,
      new RegExp(`^FAIL master 127\\.0\\.0\\.1:${deadPort} TCP: cannot connect to 127\\.0\\.0\\.1:${deadPort}: .*ECONNREFUSED.* Fix: check that the master runs and listens on port ${deadPort}`, 'm'),
    );
    assert.match(r.stdout, /^WARN minion key: no key pair in \S+ yet/m);
    assert.match(r.stdout, /^WARN minion daemon: minion is not running \(nothing answers on \S+minion\.sock\); the network checks above still ran\. Fix: start it with 'brine minion -c /m);
  });

  it('a healthy minion: every line OK, exit 0, with the heartbeat RTT and the return queue depth', async () => {
    const good = cluster.startMinion('good', LIVENESS);
    await accept('good');
    await good.waitForOutput(/ready to receive requests/);
    // the first heartbeat round trip needs heartbeat_interval of quiet
    const r = await waitUntil(
      async () => {
        const res = await doctor('good', 'minion');
        return /heartbeat RTT/.test(res.stdout) ? res : undefined;
      },
      15_000,
      'an RTT in the doctor output',
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // only the trust-on-first-use warning (no master_finger set)
    assert.deepEqual(
      lines(r).filter((l) => !l.startsWith('OK  ')),
      [lines(r).find((l) => l.startsWith('WARN master_finger: not set'))],
      r.stdout,
    );
    const where = `master 127.0.0.1:${cluster.port}`;
    assert.match(r.stdout, new RegExp(`^OK   ${where} TCP: connected to 127\\.0\\.0\\.1:${cluster.port} in [\\d.]+ ms\\.$`, 'm'));
    assert.ok(r.stdout.includes(`OK   ${where} TLS: handshake in `), r.stdout);
    assert.ok(r.stdout.includes(`master key ${masterFp} matches the pinned key in ${path.join(minionPki('good'), 'masters', `127.0.0.1_${cluster.port}.pub`)}`), r.stdout);
    assert.match(r.stdout, new RegExp(`^OK   ${where} key: the key of good is accepted\\.$`, 'm'));
    assert.match(r.stdout, new RegExp(`^OK   minion daemon -> 127\\.0\\.0\\.1:${cluster.port}: running as good, connected for \\d+ s, heartbeat RTT [\\d.]+ ms, 0 reconnects since start\\.$`, 'm'));
    assert.match(r.stdout, /^OK {3}return queue: return queue 0 waiting for acknowledgement, 0 dropped since start\.$/m);
  });

  it('a probe does not replace the live session, and a key the master has not seen is not stored', async () => {
    const before = await status('good');
    const keysBefore = (await cluster.brine(['key', '-L'])).stdout;
    assert.equal(before?.state, 'connected');
    for (let i = 0; i < 2; i++) assert.equal((await doctor('good', 'minion')).code, 0);

    // a minion with a key pair that never signed in
    cluster.writeMinionConfig('fresh');
    await loadOrCreateIdentity({ pkiDir: minionPki('fresh'), name: 'minion', commonName: 'fresh' });
    const fresh = await doctor('fresh', 'minion');
    assert.equal(fresh.code, 0, fresh.stdout);
    assert.match(
      fresh.stdout,
      new RegExp(
        `^WARN master 127\\.0\\.0\\.1:${cluster.port} key: fresh is pending: The master has not seen this minion's key \\(${FP.source}\\) yet; .* Fix: on the master run 'brine key -a fresh'`,
        'm',
      ),
    );
    assert.equal(fs.existsSync(path.join(minionPki('fresh'), 'minion_master.pub')), false, 'the doctor pins nothing');
    assert.equal(fs.existsSync(path.join(minionPki('fresh'), 'masters')), false, 'the doctor pins nothing');

    const after = await status('good');
    assert.equal(after?.state, 'connected');
    assert.equal(after?.reconnects, before?.reconnects, 'no reconnect');
    assert.equal(after?.connectedSince, before?.connectedSince, 'the same session');
    assert.equal((await cluster.brine(['key', '-L'])).stdout, keysBefore, 'no key written');
    assert.equal(fs.readdirSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'minions_pre')).length, 0);
    assert.match(master.output, /answered a brine doctor probe from fresh at 127\.0\.0\.1:\d+: pending/);
    assert.doesNotMatch(master.output, /minion good reconnected/);
  });

  it('a pending key: WARN with the accept command, exit 0', async () => {
    cluster.startMinion('waiter');
    await cluster.waitForPending(['waiter']);
    const r = await doctor('waiter', 'minion');
    assert.equal(r.code, 0, r.stdout);
    assert.match(
      r.stdout,
      /^WARN master \S+ key: waiter is pending: The master has this minion's key \(\S+\) in pending\. .* Fix: on the master run 'brine key -a waiter' \(check the fingerprint first with 'brine key -f waiter'\)$/m,
    );
    assert.match(r.stdout, /^OK {3}minion daemon -> \S+|^WARN minion daemon -> \S+: running as waiter but not connected/m);
  });

  it('a rejected key: FAIL with the reason and the fix, exit 1', async () => {
    // master_finger makes the master trusted, so its refusal ends the minion (issue 8 item 6)
    const outcast = cluster.startMinion('outcast', { master_finger: masterFp });
    await cluster.waitForPending(['outcast']);
    assert.equal((await cluster.brine(['key', '-r', 'outcast', '-y'])).code, 0);
    assert.equal(await outcast.exited, 77, outcast.output);
    const r = await doctor('outcast');
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /^FAIL master \S+ key: rejected: The master has rejected this minion's key \(\S+\): Public key rejected for outcast\b.* Fix: On the master, delete the rejected key \(`brine key -d outcast`\) and restart the minion, or accept it with `brine key -a outcast --include-rejected`\.$/m,
    );
    assert.match(r.stdout, /^WARN minion daemon: minion is not running/m);
  });

  it("a probe from a key the master never saw, for another minion's accepted ID, learns nothing beyond what it presented (issue 8 point 5)", async () => {
    // 'spy' claims the live minion's ID 'good' with its own key, and 'stranger' an ID nobody has
    cluster.writeMinionConfig('spy', { id: 'good' });
    cluster.writeMinionConfig('stranger', { id: 'nosuchid' });
    const spyFp = (await loadOrCreateIdentity({ pkiDir: minionPki('spy'), name: 'minion', commonName: 'good' })).fingerprint;
    await loadOrCreateIdentity({ pkiDir: minionPki('stranger'), name: 'minion', commonName: 'nosuchid' });
    const live = fingerprint(fs.readFileSync(path.join(minionPki('good'), 'minion.pub'), 'utf8'));
    const keysBefore = (await cluster.brine(['key', '-L'])).stdout;
    const keyLine = (r: CliResult) => lines(r).find((l) => l.startsWith(`WARN master 127.0.0.1:${cluster.port} key:`) || l.startsWith(`FAIL master 127.0.0.1:${cluster.port} key:`));
    const spy = keyLine(await doctor('spy', 'minion'));
    const stranger = keyLine(await doctor('stranger', 'minion'));
    assert.ok(spy && stranger);
    assert.ok(!spy.includes(live), `the accepted key's fingerprint is not revealed: ${spy}`);
    assert.deepEqual(new Set(spy.match(FP)), new Set([spyFp, masterFp]), 'only its own and the master fingerprint');
    assert.ok(spy.startsWith(`WARN master 127.0.0.1:${cluster.port} key: good is pending: The master has not seen this minion's key`), spy);
    assert.doesNotMatch(spy, /accepted:|key: denied/);
    // the same answer as for an ID that has no key at all: "good" cannot be told from "nosuchid"
    const strangerFp = stranger.match(FP)![0]!;
    assert.equal(spy.replace(/\bgood\b/g, 'ID').replace(spyFp, 'FP'), stranger.replace(/\bnosuchid\b/g, 'ID').replace(strangerFp, 'FP'));
    assert.equal((await cluster.brine(['key', '-L'])).stdout, keysBefore, 'no key written');
    assert.equal((await status('good'))?.state, 'connected');
  });

  it('a denied key (duplicate ID): FAIL with its own fingerprint only and brine key --replace, exit 1', async () => {
    const impostor = cluster.startMinion('impostor', { id: 'good', master_finger: masterFp });
    assert.equal(await impostor.exited, 77, impostor.output);
    const r = await doctor('impostor');
    assert.equal(r.code, 1, r.stdout);
    const line = lines(r).find((l) => l.startsWith(`FAIL master 127.0.0.1:${cluster.port} key: denied:`));
    assert.ok(line, r.stdout);
    const own = fingerprint(fs.readFileSync(path.join(minionPki('impostor'), 'minion.pub'), 'utf8'));
    const live = fingerprint(fs.readFileSync(path.join(minionPki('good'), 'minion.pub'), 'utf8'));
    // a probe hears about its own key only; the accepted key was in the real sign-in's answer
    assert.ok(line.includes(`this minion's key (${own}) is among its denied keys`), line);
    assert.ok(!line.includes(live), line);
    assert.match(impostor.output, new RegExp(`accepted: ${live}; this minion: ${own}`));
    assert.match(line, /Fix: If this host was re-imaged, run `brine key --replace good` on the master and restart the minion; otherwise give this minion its own `id:`\.$/);
    // the live minion with that ID is untouched
    assert.equal((await status('good'))?.state, 'connected');
  });

  it('a wrong master_finger: FAIL with both fingerprints, nothing pinned, no probe sent', async () => {
    const wrong = `${'ab:'.repeat(31)}ab`;
    cluster.writeMinionConfig('fingered', { master_finger: wrong });
    await loadOrCreateIdentity({ pkiDir: minionPki('fingered'), name: 'minion', commonName: 'fingered' });
    const r = await doctor('fingered');
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      new RegExp(
        `^FAIL master \\S+ TLS: the master presented key ${masterFp}, but master_finger is ${wrong}; the minion refuses this master and retries it with backoff \\(MASTER_FINGER_MISMATCH\\)\\. Fix: compare with 'brine key -F master' on that master; if it was re-keyed on purpose or has its own key pair, add ${masterFp} to master_finger`,
        'm',
      ),
    );
    assert.doesNotMatch(r.stdout, /key: /);
    assert.equal(fs.existsSync(path.join(minionPki('fingered'), 'minion_master.pub')), false);
    assert.equal(fs.existsSync(path.join(minionPki('fingered'), 'masters')), false);
    assert.doesNotMatch(master.output, /probe from fingered/);
  });

  it('a changed master key: FAIL with both fingerprints and how to re-trust', async () => {
    cluster.writeMinionConfig('moved');
    fs.mkdirSync(minionPki('moved'), { recursive: true });
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const pinFile = path.join(minionPki('moved'), 'minion_master.pub');
    fs.writeFileSync(pinFile, other);
    const r = await doctor('moved');
    assert.equal(r.code, 1, r.stdout);
    const line = lines(r).find((l) => l.startsWith('FAIL master '));
    assert.ok(line, r.stdout);
    assert.ok(line.includes(`the master key has changed: the master presented ${masterFp}, but this minion pinned `), line);
    assert.equal(line.match(FP)?.length, 3, line);
    assert.ok(line.includes(`Fix: if the master was re-keyed on purpose, delete ${pinFile} (or add ${masterFp} to master_finger)`), line);
    assert.equal(fs.readFileSync(pinFile, 'utf8'), other, 'the pin is left alone');
  });

  it('the master: pending keys, a duplicate ID and a flapping minion, each with its fix; exit 1', async () => {
    const flappy = cluster.startMinion('flappy', { ...LIVENESS, master: `127.0.0.1:${proxy.port}` });
    await accept('flappy');
    await flappy.waitForOutput(/ready to receive requests/);
    await waitUntil(async () => (await status('flappy'))?.state === 'connected', 10_000, 'flappy connected');
    for (let i = 0; i < 3; i++) {
      const since = (await status('flappy'))?.connectedSince;
      // drop the session once both ends hold it: the minion has signed in i + 1 times
      await waitUntil(() => (flappy.output.match(/ready to receive requests/g)?.length ?? 0) > i, 15_000, `flappy ready after reset ${i}`);
      proxy.resetAll();
      await waitUntil(
        async () => {
          const row = await status('flappy');
          return row?.state === 'connected' && row.connectedSince !== since;
        },
        15_000,
        `flappy back after reset ${i + 1}`,
      );
    }
    assert.equal((await status('flappy'))?.flapping, true);

    const r = await runCli(['doctor', '-c', cluster.masterConfigDir], { timeoutMs: 30_000 });
    assert.equal(r.code, 1, r.stdout);
    for (const l of lines(r)) assert.match(l, /^(OK {2}|WARN|FAIL) \S/, l);
    assert.doesNotMatch(r.stdout, /minion daemon|minion id/, 'only the master group: there is no minion config here');
    assert.match(r.stdout, /^OK {3}master config: /m);
    assert.match(r.stdout, /^OK {3}master: running: the control socket \S+master\.sock answers; \d+ minions connected\.$/m);
    assert.match(
      r.stdout,
      /^WARN keys: \d+ accepted, 1 pending, 1 rejected, 1 denied; waiting for acceptance: waiter\. Fix: review them with 'brine key -L', check each fingerprint with 'brine key -f waiter'/m,
    );
    const dup = lines(r).find((l) => l.startsWith('FAIL duplicate ID good:'));
    assert.ok(dup, r.stdout);
    assert.equal(dup.match(FP)?.length, 2, `accepted and denied fingerprints: ${dup}`);
    assert.match(
      dup,
      /a second key tried to sign in as good \d+ s ago: accepted key \S+ \(connected from 127\.0\.0\.1:\d+\), denied key \S+\. Fix: if good was re-imaged, run 'brine key --replace good' on the master and restart that minion; if it is another host, give the other host its own id/,
    );
    assert.match(
      r.stdout,
      /^WARN minion flappy: flapping: [3-9] unplanned drops in the last hour, typically up ~\d+ s and silent ~\d+ s before each, reasons [a-z_, ]+; now connected\. Fix: see docs\/troubleshooting-disconnects\.md/m,
    );
    assert.doesNotMatch(r.stdout, /WARN minion good:/, 'a steady minion is not flagged');
    assert.match(r.stdout, /^OK {3}job cache: \S+jobs\.sqlite is writable\.$/m);

    const m = await runCli(['doctor', 'master', '-c', cluster.masterConfigDir], { timeoutMs: 30_000 });
    const noAgo = (text: string) => text.replace(/\d+ s ago/g, 'N s ago');
    assert.equal(noAgo(m.stdout), noAgo(r.stdout), 'brine doctor master runs the same checks');
  });

  it('a sock_dir other users can write: FAIL directories with UNSAFE_DIR and the chmod, before a restart would fail (threats.md #34)', async () => {
    const empty = await Cluster.create();
    try {
      // root_dir is prepended to sock_dir, as in Salt
      const sockDir = path.join(empty.root, 'master', 'open-sock');
      fs.mkdirSync(sockDir, { recursive: true });
      fs.chmodSync(sockDir, 0o777);
      empty.writeMasterConfig({ sock_dir: '/open-sock' });
      const r = await runCli(['doctor', 'master', '-c', empty.masterConfigDir], { timeoutMs: 30_000 });
      assert.equal(r.code, 1, r.stdout);
      const line = lines(r).find((l) => l.startsWith('FAIL directories:'));
      assert.ok(line, r.stdout);
      assert.ok(line.includes(`UNSAFE_DIR: the daemon refuses to start: sock_dir ${sockDir}`), line);
      assert.match(line, /Fix: .*chmod/);
      fs.chmodSync(sockDir, 0o700);
      const again = await runCli(['doctor', 'master', '-c', empty.masterConfigDir], { timeoutMs: 30_000 });
      assert.match(again.stdout, /^OK {3}directories: sock_dir \S+, pki_dir \S+ and cachedir \S+ cannot be changed by other local users\.$/m);
    } finally {
      await empty.cleanup();
    }
  });

  it('a master that is not running: FAIL with how to start it', async () => {
    const empty = await Cluster.create();
    try {
      empty.writeMasterConfig();
      const r = await runCli(['doctor', 'master', '-c', empty.masterConfigDir], { timeoutMs: 30_000 });
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, /^FAIL master: not answering on \S+master\.sock: .* Fix: start it with 'brine master -c /m);
      assert.match(r.stdout, /^OK {3}keys: 0 accepted, 0 pending, 0 rejected, 0 denied\.$/m);
    } finally {
      await empty.cleanup();
    }
  });

  it('a config that does not load: FAIL with the coded message; no config at all: FAIL naming the directory', async () => {
    cluster.writeMinionConfig('broken', { heartbeat_interval: 'often' });
    const r = await doctor('broken');
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /^FAIL minion config: CONFIG_TYPE: option 'heartbeat_interval' in \S+ must be .*\. Fix: Change the value to the expected type/m);
    const none = await runCli(['doctor', '-c', path.join(cluster.root, 'nowhere')]);
    assert.equal(none.code, 1);
    assert.match(none.stdout, /^FAIL config: neither \S+nowhere\/minion nor \S+nowhere\/master exists\. Fix: point -c\/--config-dir/m);
  });
});
