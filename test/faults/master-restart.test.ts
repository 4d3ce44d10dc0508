// Fault suite, seed 002: the master is SIGKILLed and started again on the same config. Every
// minion comes back by itself within heartbeat_timeout + recon_max of the new master listening,
// a crowd of 200 emulated minions comes back spread out by jitter, not in one burst, and a crowd
// larger than the master's handshake pacing is told at the door when to come back (issue 12).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { lastStats } from './emulator-stats.js';
import { logTime } from '../helpers/log-lines.js';
import { nothingFor } from '../helpers/wait.js';

const HB_INTERVAL = 0.5;
const HB_TIMEOUT = 1.5;
const RECON_DEFAULT = 100;
const RECON_MAX = 1000;
const LIVENESS = { heartbeat_interval: HB_INTERVAL, heartbeat_timeout: HB_TIMEOUT };
const MINION = { ...LIVENESS, recon_default: RECON_DEFAULT, recon_max: RECON_MAX, auth_timeout: 2 };
/** TLS handshake and sign-in on a loaded 2-core machine; the bound under test is the rest. */
const SLACK_MS = 2500;

/** Epoch ms of the first log line matching `msg` (a regex source for the message part). */
function firstLogAt(output: string, msg: string): number | undefined {
  const m = new RegExp(`^(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}) \\[[^\\]]*\\]\\[[A-Z]+\\s*\\] ${msg}`, 'm').exec(output);
  return m ? logTime(m[1]!) : undefined;
}

/** Each `minion <id> connected` line of a master's log, with its time. */
function connectedLines(output: string): { id: string; at: number }[] {
  const re = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[[^\]]*\]\[INFO\s*\] minion (\S+) connected/gm;
  return [...output.matchAll(re)].map((m) => ({ at: logTime(m[1]!), id: m[2]! }));
}

/** Returns print in arrival order; compare them as a set. */
function sortedLines(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

/** 200 emulated minions (brine emulate, all started at once) with the suite's fast liveness. */
function spawnEmulator(cluster: Cluster): Proc {
  // biome-ignore format: one flag and its value per line
  return cluster.spawnBrine('emulator', [
    'emulate', '--master', `127.0.0.1:${cluster.port}`, '--count', '200', '--prefix', 'emu-',
    '--pki-dir', path.join(cluster.root, 'emu-pki'),
    '--heartbeat-interval', String(HB_INTERVAL), '--heartbeat-timeout', String(HB_TIMEOUT),
    '--recon-default', String(RECON_DEFAULT), '--recon-max', String(RECON_MAX),
    '--auth-timeout', '5', '--stats-interval', '0.2',
  ]);
}

describe('master SIGKILL, then restart (seed 002)', () => {
  const clusters: Cluster[] = [];
  after(async () => {
    await Promise.all(clusters.map((c) => c.cleanup()));
  });

  it('three real minions answer test.ping again with no action from anyone', async (t) => {
    const cluster = await Cluster.create();
    clusters.push(cluster);
    const master = await cluster.startMaster({ auto_accept: true, ...LIVENESS });
    const ids = ['alpha', 'beta', 'gamma'];
    const minions = ids.map((id) => cluster.startMinion(id, MINION));
    for (const m of minions) await m.waitForOutput(/ready to receive requests/);
    const before = await cluster.brine(['run', '*', 'test.ping', '--out', 'txt']);
    assert.deepEqual(sortedLines(before.stdout), ['alpha: True', 'beta: True', 'gamma: True'], before.stderr);

    await master.kill('SIGKILL');
    // each minion sees the dead connection (the kernel closes the killed master's sockets)
    for (const m of minions) await m.waitForOutput(/Connection to master 127\.0\.0\.1 lost/, 10_000);
    // stay down long enough for the minions' backoff to reach recon_max; none gives up meanwhile
    await nothingFor(2 * RECON_MAX, 'a minion exiting while the master is down', () => minions.find((m) => !m.running)?.output);

    const again = await cluster.startMaster({ auto_accept: true, ...LIVENESS });
    const listening = firstLogAt(again.output, 'brine master listening');
    assert.ok(listening !== undefined, again.output);
    const bound = HB_TIMEOUT * 1000 + RECON_MAX;
    const back = await waitUntil(
      () => {
        const seen = connectedLines(again.output);
        return ids.every((id) => seen.some((c) => c.id === id)) ? seen : undefined;
      },
      bound + SLACK_MS + 10_000,
      `all minions connected to the restarted master\n${again.output}`,
    );
    for (const id of ids) {
      const at = back.find((c) => c.id === id)!.at;
      t.diagnostic(`${id} back ${at - listening} ms after the master listened`);
      assert.ok(at - listening <= bound + SLACK_MS, `${id} came back ${at - listening} ms after the master listened; the bound is heartbeat_timeout + recon_max = ${bound} ms (+${SLACK_MS} ms slack)`);
    }
    for (const m of minions) assert.ok(m.running, `${m.name} must not exit:\n${m.output}`);

    const ping = await cluster.brine(['run', '*', 'test.ping', '--out', 'txt']);
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.deepEqual(sortedLines(ping.stdout), ['alpha: True', 'beta: True', 'gamma: True']);
    const status = await cluster.brine(['minions', 'status', '--out', 'sessions']);
    const infos = JSON.parse(status.stdout) as { id: string; state: string }[];
    assert.deepEqual(
      infos.map((i) => [i.id, i.state]),
      ids.map((id) => [id, 'connected']),
    );
  });

  it('200 emulated minions all come back, spread out by jitter', async (t) => {
    const cluster = await Cluster.create();
    clusters.push(cluster);
    const master = await cluster.startMaster({ auto_accept: true, ...LIVENESS });
    const emu = spawnEmulator(cluster);
    await waitUntil(() => lastStats(emu)?.ready === 200, 30_000, `200 emulated minions ready\n${emu.output.slice(-2000)}`);

    await master.kill('SIGKILL');
    await waitUntil(() => lastStats(emu)?.ready === 0, 10_000, 'every emulated minion to notice the dead master');
    await nothingFor(2 * RECON_MAX, 'an emulated session while the master is down, or the emulator exiting', () => (!emu.running || lastStats(emu)?.ready !== 0) && emu.output.slice(-2000));
    const dropsBefore = lastStats(emu)!.drops;
    assert.ok(dropsBefore >= 200, `each session counts its drop (drops ${dropsBefore})`);

    const again = await cluster.startMaster({ auto_accept: true, ...LIVENESS });
    await waitUntil(() => lastStats(emu)?.ready === 200, 30_000, `200 emulated minions ready after the restart\n${emu.output.slice(-2000)}`);
    assert.equal(lastStats(emu)!.fatal, 0);
    assert.ok(emu.running && again.running);

    const back = connectedLines(again.output).filter((c) => c.id.startsWith('emu-'));
    assert.equal(new Set(back.map((c) => c.id)).size, 200, 'the restarted master logged each emulated minion connecting');
    const times = back.map((c) => c.at).sort((a, b) => a - b);
    const spread = times.at(-1)! - times[0]!;
    t.diagnostic(`200 sign-ins spread over ${spread} ms`);
    assert.ok(spread > 10, `reconnections must be spread by jitter, not within one 10 ms window (spread ${spread} ms)`);

    const ping = await cluster.brine(['run', 'emu-*', 'test.ping', '--out', 'txt']);
    assert.equal(ping.code, 0, ping.stderr);
    assert.equal(ping.stdout.split('\n').filter((l) => / True$/.test(l)).length, 200);
  });

  it('the restart storm is paced at the door: minions are told when to come back before TLS, and no handshake is lost to a timeout', async () => {
    const cluster = await Cluster.create();
    clusters.push(cluster);
    // 2 handshakes at once and 20 sign-ins a second planned: most of 200 must be turned away
    const paced = { auto_accept: true, ...LIVENESS, handshake_concurrency: 2, auth_rate: 20, auth_rate_per_source: 1000 };
    const master = await cluster.startMaster(paced);
    const emu = spawnEmulator(cluster);
    await waitUntil(() => lastStats(emu)?.ready === 200, 60_000, `200 emulated minions ready\n${emu.output.slice(-2000)}`);
    await master.kill('SIGKILL');
    await waitUntil(() => lastStats(emu)?.ready === 0, 10_000, 'every emulated minion to notice the dead master');
    const mark = emu.output.length;
    const again = await cluster.startMaster(paced);
    await waitUntil(() => lastStats(emu)?.ready === 200, 60_000, `200 emulated minions ready after the restart\n${emu.output.slice(-2000)}`);
    assert.ok(again.running && emu.running);
    const log = emu.output.slice(mark);
    const turnedAway = log.match(/asked this minion to come back in \d+ ms/g) ?? [];
    assert.ok(turnedAway.length > 0, `some minions were told at the door to come back later:\n${log.slice(-3000)}`);
    assert.equal((log.match(/handshake_timeout/g) ?? []).length, 0, `no handshake thrown away:\n${log.slice(-3000)}`);
    const ping = await cluster.brine(['run', 'emu-*', 'test.ping', '--out', 'txt']);
    assert.equal(ping.stdout.split('\n').filter((l) => / True$/.test(l)).length, 200, ping.stderr);
  });
});
