// Seed 001 replayed (docs/incidents.md §2): twenty minions whose /etc/hosts maps 127.0.0.1 to
// their hostname. Each runs in its own UTS and mount namespace (its own hostname, /etc/hosts,
// /etc/hostname and /etc/machine-id), as real `brine minion` processes without `id:`.
//   A. the cached ID from the older agent is localhost.localdomain: every minion warns with the
//      cause, refuses to start (INVALID_ID, exit 65) with the fix, and the master stores no key;
//   B. a cloned image cached web-template: one key is accepted, the other 19 are denied with both
//      fingerprints and their addresses in the master's log, and each prints the reason and the
//      fix (cloned image, stale cache, AUTH_DENIED) and exits 77;
//   C. hosts files corrected and caches removed: twenty distinct IDs node1..node20, accepted and
//      answering test.ping.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BRINE_BIN, Cluster, Proc, waitUntil, type CliResult } from '../helpers/cluster.js';
import { privilegedSkip } from '../helpers/privileged.js';
import { pace } from '../helpers/wait.js';

const COUNT = 20;
const NAMES = Array.from({ length: COUNT }, (_, i) => `node${i + 1}`);
const TEMPLATE_MACHINE = 'feedfacefeedfacefeedfacefeedface';
const machineOf = (name: string) => name.replace('node', '').padStart(32, '0');
const BROKEN_HOSTS = (name: string) => `127.0.0.1 localhost.localdomain localhost ${name}\n::1 localhost6\n`;
const FIXED_HOSTS = (name: string) => `127.0.0.1 localhost.localdomain localhost\n192.0.2.${name.replace('node', '')} ${name}\n`;

function namespacesUsable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root for UTS and mount namespaces';
  const r = spawnSync('unshare', ['--uts', '--mount', '--propagation', 'private', 'sh', '-c', 'hostname probe && mount --bind /etc/hostname /etc/hostname && hostname'], { encoding: 'utf8' });
  if (r.status !== 0 || r.stdout.trim() !== 'probe') return `unshare is not usable here: ${(r.stderr || r.error?.message || '').trim().replace(/\s+/g, ' ')}`;
  return undefined;
}
const skip = privilegedSkip('seed 001', namespacesUsable());

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('seed 001: twenty minions whose resolver says localhost.localdomain', { skip, timeout: 120_000 }, () => {
  let cluster: Cluster;
  let master: Proc;
  const dirOf = (name: string) => cluster.minionConfigDir(name);
  const cacheOf = (name: string) => path.join(dirOf(name), 'minion_id');
  const nsDir = (name: string) => path.join(cluster.root, 'minions', name, 'ns');

  /** Gives a minion its own host view: hostname, /etc/hosts, /etc/hostname, /etc/machine-id. */
  function hostFiles(name: string, hosts: string): void {
    fs.mkdirSync(nsDir(name), { recursive: true });
    fs.writeFileSync(path.join(nsDir(name), 'hosts'), hosts);
    fs.writeFileSync(path.join(nsDir(name), 'hostname'), `${name}\n`);
    fs.writeFileSync(path.join(nsDir(name), 'machine-id'), `${machineOf(name)}\n`);
  }

  function inNamespace(name: string, brineArgs: string[]): string[] {
    const ns = nsDir(name);
    const script = [
      `hostname ${name}`,
      `mount --bind ${quote(path.join(ns, 'hosts'))} /etc/hosts`,
      `mount --bind ${quote(path.join(ns, 'hostname'))} /etc/hostname`,
      `mount --bind ${quote(path.join(ns, 'machine-id'))} /etc/machine-id`,
      `exec ${[process.execPath, BRINE_BIN, ...brineArgs].map(quote).join(' ')}`,
    ].join(' && ');
    return ['--uts', '--mount', '--propagation', 'private', 'sh', '-c', script];
  }

  function startMinion(name: string): Proc {
    const child = spawn('unshare', inNamespace(name, ['minion', '-c', dirOf(name)]), { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const p = new Proc(`minion ${name}`, child);
    cluster.procs.push(p);
    return p;
  }

  function runInNamespace(name: string, args: string[]): Promise<CliResult> {
    return new Promise((resolve) => {
      const child = spawn('unshare', inNamespace(name, args), { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  /** 20 node processes on two cores: a small stagger keeps start-up from thrashing. */
  async function startAll(names: string[]): Promise<Map<string, Proc>> {
    const out = new Map<string, Proc>();
    for (const name of names) {
      out.set(name, startMinion(name));
      await pace(150);
    }
    return out;
  }

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster();
    // the master's key is configured (master_finger), so its refusals are believed (issue 8 item 6)
    const masterFinger = (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]!;
    for (const name of NAMES) {
      // no id: in the config, as in the seed
      cluster.writeMinionConfig(name, { id: '', master_finger: masterFinger });
      hostFiles(name, BROKEN_HOSTS(name));
    }
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('A: a cached localhost.localdomain is refused by every minion with the cause and the fix; no key reaches the master', async () => {
    for (const name of NAMES) fs.writeFileSync(cacheOf(name), 'localhost.localdomain\n');
    const doctor = await runInNamespace('node1', ['doctor', 'id', '-c', dirOf('node1')]);
    assert.equal(doctor.code, 1, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, /^FAIL id: the ID localhost\.localdomain \(from the cached minion_id file\) cannot be used: .*localhost-like.*Fix: delete \S+minion_id/m);
    assert.match(
      doctor.stdout,
      /^WARN fqdn: the FQDN of node1 came back as localhost\.localdomain because \/etc\/hosts maps 127\.0\.0\.1 to the hostname node1 \(line 1: "127\.0\.0\.1 localhost\.localdomain localhost node1"\)/m,
    );
    assert.match(doctor.stdout, /^WARN cache: the cached ID localhost\.localdomain in \S+ is stale: resolution today gives node1 \(from the platform node name, uname -n\)/m);
    assert.match(doctor.stdout, /^ +fqdn +localhost\.localdomain +skipped: localhost-like$/m);

    const procs = await startAll(NAMES);
    for (const [name, p] of procs) {
      assert.equal(await p.exited, 65, p.output);
      assert.match(p.output, new RegExp(`the FQDN of ${name} came back as localhost\\.localdomain because /etc/hosts maps 127\\.0\\.0\\.1 to the hostname ${name}`));
      assert.match(p.output, /INVALID_ID: the ID localhost\.localdomain \(from the cached minion_id file\) cannot be used/);
      assert.ok(p.output.includes(`Fix: delete ${cacheOf(name)} and restart the minion`), p.output);
      assert.match(p.output, /fix: Set `id:` in the minion config/);
    }
    const keys = await cluster.brine(['key', '-L']);
    assert.equal(keys.stdout, 'Accepted Keys:\nDenied Keys:\nUnaccepted Keys:\nRejected Keys:\n', 'the localhost-like ID never reached the master');
  });

  it('B: a cloned image with a cached web-template: one accepted key, 19 denied with fingerprints and addresses, each refused minion says why and exits 77', async () => {
    for (const name of NAMES) fs.writeFileSync(cacheOf(name), `web-template\nmachine_id: ${TEMPLATE_MACHINE}\n`);
    const first = startMinion('node1');
    await cluster.waitForPending(['web-template']);
    const accept = await cluster.brine(['key', '-a', 'web-template', '-y']);
    assert.equal(accept.code, 0, accept.stderr);
    await first.waitForOutput(/ready to receive requests/);
    assert.match(first.output, /CLONED IMAGE: the cached ID web-template in \S+ was written on machine feedface/);
    const acceptedFp = (await cluster.brine(['key', '-f', 'web-template'])).stdout.match(/Accepted Keys:\nweb-template: {2}(\S+)/)![1]!;

    const clones = await startAll(NAMES.slice(1));
    for (const [name, p] of clones) {
      assert.equal(await p.exited, 77, p.output);
      assert.ok(p.output.includes(`CLONED IMAGE: the cached ID web-template in ${cacheOf(name)} was written on machine ${TEMPLATE_MACHINE}, but this machine is ${machineOf(name)}`), p.output);
      assert.match(p.output, new RegExp(`the cached ID web-template in \\S+ is stale: resolution today gives ${name}`));
      assert.match(p.output, /The master has rejected this minion's public key!\nAUTH_DENIED: The master already has a different key accepted for ID 'web-template'/);
      assert.ok(p.output.includes(`accepted: ${acceptedFp}`), p.output);
      assert.match(p.output, /fix: If this host was re-imaged/);
    }

    // brine key -L lists every denied key with its fingerprint and the address it came from
    const keys = await cluster.brine(['key', '-L']);
    const [acceptedPart, deniedPart] = keys.stdout.split('Denied Keys:\n');
    assert.equal(acceptedPart, 'Accepted Keys:\nweb-template\n');
    assert.ok(deniedPart?.endsWith('Unaccepted Keys:\nRejected Keys:\n'), keys.stdout);
    const deniedLines = deniedPart!.replace('Unaccepted Keys:\nRejected Keys:\n', '').trim().split('\n');
    const presented = new Set<string>();
    for (const line of deniedLines) {
      const m = line.match(/^web-template: {2}(\S+) {2}\(from 127\.0\.0\.1:\d+, last seen \S+\)$/);
      assert.ok(m, `a denied key with its fingerprint and address: ${line}`);
      presented.add(m[1]!);
    }
    assert.equal(deniedLines.length, COUNT - 1, keys.stdout);
    assert.equal(presented.size, COUNT - 1, 'nineteen different machines, nineteen different keys');
    assert.ok(!presented.has(acceptedFp));
    // the master's log names both keys and the claimant's address; refusals from one address
    // beyond the first 20 a minute are logged in summary (issue 8 point 4), so not every one
    const denials = master.output.split('\n').filter((l) => l.includes('Authentication attempt from web-template') && l.includes('public keys did not match'));
    assert.ok(denials.length >= 1 && denials.length <= COUNT - 1, master.output);
    for (const line of denials) {
      assert.ok(line.includes(`accepted key ${acceptedFp}`), line);
      assert.match(line, /at 127\.0\.0\.1:\d+/, 'the address of the claimant');
      assert.ok(presented.has(line.match(/presented key (\S+?)\./)![1]!), line);
    }
    await first.kill();
  });

  it('C: with /etc/hosts corrected and the cache removed they come up as node1..node20 and answer test.ping', async () => {
    for (const name of NAMES) {
      hostFiles(name, FIXED_HOSTS(name));
      fs.rmSync(cacheOf(name));
    }
    const procs = await startAll(NAMES);
    await cluster.waitForPending(NAMES, 60_000);
    const accept = await cluster.brine(['key', '-a', 'node*', '-y']);
    assert.equal(accept.code, 0, accept.stderr);
    for (const [name, p] of procs) {
      await p.waitForOutput(/ready to receive requests/, 30_000);
      assert.match(p.output, new RegExp(`minion ID is ${name} \\(from the FQDN of the hostname, getfqdn\\)`));
      assert.doesNotMatch(p.output, /WARNING/, 'no warning once the host is configured properly');
      assert.equal(fs.readFileSync(cacheOf(name), 'utf8'), `${name}\nmachine_id: ${machineOf(name)}\n`);
    }
    const ping = await waitUntil(
      async () => {
        const r = await cluster.brine(['run', 'node*', 'test.ping', '--out', 'txt']);
        return r.code === 0 ? r : undefined;
      },
      30_000,
      'test.ping from all twenty',
    );
    assert.deepEqual(ping.stdout.trim().split('\n').sort(), NAMES.map((n) => `${n}: True`).sort());

    const show = await runInNamespace('node7', ['minion', '--show-id', '-c', dirOf('node7')]);
    assert.equal(show.code, 0, show.stdout);
    assert.match(show.stdout, /^OK +id: node7 \(from the cached minion_id file\)$/m);
    assert.match(show.stdout, /^OK +cache: \S+ holds node7, the same as resolution gives today$/m);
    assert.match(show.stdout, /^OK +machine_id: machine id 0+7 matches/m);
  });
});
