// Fault suite: faults on the path between one minion and its master, through the FaultProxy.
// An RST in the middle of a job, a blackhole longer than heartbeat_timeout, a master that
// accepts TCP but never speaks TLS, and exceptions thrown by every link callback: the minion
// recovers by itself each time, and every return reaches the master exactly once.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil, type Proc } from '../helpers/cluster.js';
import { EventStream } from '../helpers/events.js';
import { injectedMessage } from '../helpers/throwing-minion.js';
import { AUTH_TIMEOUT, FAST, HB_TIMEOUT, ProxiedMaster, jidOf, logLines, readyMasters, waitForReady } from './proxied-master.js';

/** After a fault ends: at most one backoff step at recon_max plus a handshake on a loaded machine. */
const RECON_WAIT_MS = 15_000;

/** Starts `brine run -v` in the background (it prints the jid as soon as the job is published). */
function runInBackground(pm: ProxiedMaster, args: string[]): Proc {
  return pm.cluster.spawnBrine('run', ['run', '-v', ...args, '-c', pm.cluster.masterConfigDir]);
}

async function waitForJid(run: Proc): Promise<string> {
  await run.waitForOutput(/Executing job with jid \d+/, 15_000);
  return jidOf(run.output)!;
}

/** `brine jobs show JID --out json` parsed, once the minion's return is in the job cache. */
async function waitForReturn(pm: ProxiedMaster, jid: string, id: string, timeoutMs: number): Promise<unknown> {
  let last = '';
  return waitUntil(
    async () => {
      const r = await pm.cluster.brine(['jobs', 'show', jid, '--out', 'json']);
      last = r.stdout + r.stderr;
      if (r.code !== 0) return undefined;
      const row = JSON.parse(r.stdout) as Record<string, unknown>;
      return id in row ? { value: row[id] } : undefined;
    },
    timeoutMs,
    `the return of ${id} for ${jid} in the job cache (last: ${last})`,
  ).then((v) => v.value);
}

/** The job has reached its minion and runs there: `brine jobs active` (asked of the minions) lists it. */
async function waitForRunning(pm: ProxiedMaster, jid: string): Promise<void> {
  await waitUntil(async () => (await pm.cluster.brine(['jobs', 'active', '--out', 'json'])).stdout.includes(jid), 10_000, `job ${jid} to run on its minion`);
}

/** Event lines for one minion's return of one job. */
function returnsFor(lines: string[], jid: string, id: string): string[] {
  return lines.filter((l) => l.startsWith(`salt/job/${jid}/ret/${id}\t`));
}

describe('path faults between a minion and its master', () => {
  const masters: ProxiedMaster[] = [];
  after(async () => {
    await Promise.all(masters.map((m) => m.close()));
  });

  const start = async (): Promise<ProxiedMaster> => {
    const pm = await ProxiedMaster.start();
    masters.push(pm);
    return pm;
  };

  it('RST in the middle of a job: the minion reconnects and the return arrives exactly once', async () => {
    const pm = await start();
    const minion = pm.cluster.startMinion('rst', { ...FAST, master: pm.viaProxy });
    await waitForReady(minion, 0, 15_000);
    // subscribed for sure: a probe job has come through the stream
    const events = await EventStream.open(pm.cluster, ['job_published', 'job_return'], 'rst', { timeoutSeconds: 60 });

    const run = runInBackground(pm, ['-t', '20', 'rst', 'test.sleep', '2']);
    const jid = await waitForJid(run);
    await waitForRunning(pm, jid);
    pm.proxy.resetAll();

    await minion.waitForOutput(/Connection to master 127\.0\.0\.1 lost \((reset|peer_closed)\); reconnecting/, 5000);
    await waitForReady(minion, 1, 10_000);
    assert.equal(await waitForReturn(pm, jid, 'rst', 15_000), true);
    await run.exited;

    await events.close();
    const lines = events.proc.output.split('\n');
    assert.equal(lines.filter((l) => l.startsWith(`salt/job/${jid}/new\t`)).length, 1, `the events stream saw the job published\n${lines.join('\n')}`);
    assert.equal(returnsFor(lines, jid, 'rst').length, 1, lines.join('\n'));
    assert.equal(logLines(pm.master, `Got return from rst for job ${jid}`).length, 1, pm.master.output);
    assert.ok(minion.running);
  });

  it('blackhole longer than heartbeat_timeout: detected, reconnected after restore, the queued return delivered once', async () => {
    const pm = await start();
    const minion = pm.cluster.startMinion('hole', { ...FAST, master: pm.viaProxy });
    await waitForReady(minion, 0, 15_000);
    const events = await EventStream.open(pm.cluster, ['job_published', 'job_return'], 'hole', { timeoutSeconds: 60 });

    const run = runInBackground(pm, ['-t', '20', 'hole', 'test.sleep', '2']);
    const jid = await waitForJid(run);
    await waitForRunning(pm, jid);
    pm.proxy.blackhole();

    // both sides notice within heartbeat_timeout; the master says why
    await pm.waitForStatus('hole', (r) => r.state === 'disconnected', HB_TIMEOUT * 1000 + 8000, 'the master to drop the blackholed minion');
    const row = await pm.status('hole');
    assert.equal(row?.lastDisconnectReason, 'heartbeat_timeout', JSON.stringify(row));
    await minion.waitForOutput(/Connection to master 127\.0\.0\.1 lost \(heartbeat_timeout\)/, 5000);
    // the job finished during the blackhole; its return is waiting in the minion's queue, not delivered
    const queued = path.join(pm.cluster.root, 'minions', 'hole', 'var', 'cache', 'brine', 'minion', 'returns', `${jid}.json`);
    await waitUntil(() => fs.existsSync(queued), 10_000, `the return of ${jid} in the minion's queue (${queued})`);
    const during = await pm.cluster.brine(['jobs', 'show', jid, '--out', 'json']);
    assert.doesNotMatch(during.stdout, /"hole":\s*true/, 'no return can cross a blackhole');
    assert.equal(readyMasters(minion).length, 1, 'no reconnect through the blackhole');

    pm.proxy.restore();
    await waitForReady(minion, 1, RECON_WAIT_MS);
    assert.equal(await waitForReturn(pm, jid, 'hole', 10_000), true);
    await pm.waitForStatus('hole', (r) => r.state === 'connected', 5000, 'connected again');
    await run.exited;

    await events.close();
    const lines = events.proc.output.split('\n');
    assert.equal(lines.filter((l) => l.startsWith(`salt/job/${jid}/new\t`)).length, 1, `the events stream saw the job published\n${lines.join('\n')}`);
    assert.equal(returnsFor(lines, jid, 'hole').length, 1, lines.join('\n'));
    assert.equal(logLines(pm.master, `Got return from hole for job ${jid}`).length, 1, pm.master.output);
    const ping = await pm.ping('hole');
    assert.ok(ping.ok, ping.stdout + ping.stderr);
  });

  it('a master that accepts TCP but never speaks TLS: the minion keeps retrying, logs once, connects after forward()', async () => {
    const pm = await start();
    pm.proxy.stallNew();
    const minion = pm.cluster.startMinion('stall', { ...FAST, master: pm.viaProxy });
    // each attempt waits auth_timeout for the handshake, then backs off and tries again
    await waitUntil(() => pm.proxy.stats.flowsOpened >= 3, 3 * (AUTH_TIMEOUT * 1000 + 1000) + 10_000, 'three stalled attempts');
    const complaints = logLines(minion, 'Cannot connect to master');
    assert.equal(complaints.length, 1, `logged once, not per attempt:\n${minion.output}`);
    assert.match(complaints[0]!, /handshake_timeout/);
    assert.equal(readyMasters(minion).length, 0);

    pm.proxy.forward();
    await waitForReady(minion, 0, RECON_WAIT_MS);
    const ping = await pm.ping('stall');
    assert.ok(ping.ok, ping.stdout + ping.stderr);
    assert.ok(minion.running);
  });

  it('an exception in every link callback: the minion still connects, survives a reset and answers', async () => {
    const pm = await start();
    const names = ['onReady', 'onMessage', 'onDown', 'onRetryScheduled', 'onConnectionState'];
    // a real minion process whose link callbacks are wrapped by the test (no hook in the minion itself)
    const minion = pm.cluster.startMinionScript('thrower', fileURLToPath(new URL('../helpers/throwing-minion.js', import.meta.url)), ['--throw', names.join(',')], { ...FAST, master: pm.viaProxy });
    await waitForReady(minion, 0, 15_000);
    const first = await pm.ping('thrower');
    assert.ok(first.ok, first.stdout + first.stderr);

    pm.proxy.resetAll();
    await waitForReady(minion, 1, RECON_WAIT_MS);
    const again = await pm.ping('thrower');
    assert.ok(again.ok, again.stdout + again.stderr);
    for (const name of names) {
      assert.equal(logLines(minion, injectedMessage(name)).length, 1, `${name} threw once and was logged\n${minion.output}`);
    }
    assert.ok(minion.running, 'the minion never exited');
  });
});
