#!/usr/bin/env node
// Where the master's native memory per minion goes (issue 27): a real master (optionally under
// heaptrack) with N emulated minions, first enrolment (full TLS handshakes, keys written) and
// then a SIGKILL restart (resumed sessions). Prints RSS and the glibc main heap ([heap] in
// /proc/PID/smaps) per phase as one JSON line; with --heaptrack, leaves heaptrack-enrol.zst and
// heaptrack-resume.zst in --out (read them with `heaptrack_print -f FILE --print-leaks 1`: the
// allocations still live when the master was killed, by call stack).
//
// With --trim, each phase then calls malloc_trim(0) in the master through gdb and measures again
// (result.PHASE.trimmed): what glibc gives back of the free heap pages.
//
//   node bench/native-heap.mjs --count 1500 --out /tmp/natheap [--heaptrack] [--trim] [--build-dir DIR]

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { BenchMaster, freePort, startEmulator, waitFor } from './lib/brine-procs.mjs';
import { ensureFdLimit } from './lib/fd-limit.mjs';
import { stopChild, track } from './lib/cleanup.mjs';
import { childPids, idleWindow, sleep } from './lib/procfs.mjs';

const f = parseFlags(
  process.argv.slice(2),
  { count: 1500, out: '', heaptrack: false, trim: false, buildDir: 'dist', settleSeconds: 10 },
  'usage: node bench/native-heap.mjs --count N --out DIR [--heaptrack] [--trim] [--build-dir DIR] [--settle-seconds S]',
);
if (!f.out) throw new Error('--out DIR is required (heaptrack files and the work dir go there)');
ensureFdLimit(f.count + 1024);
const build = resolveBuild(f.buildDir);
const out = path.resolve(f.out);
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

/** The node process itself (under heaptrack it is a grandchild of the spawned script). */
function nodePid(pid) {
  if (!f.heaptrack) return pid;
  for (const c of childPids(pid)) {
    const comm = fs.readFileSync(`/proc/${c}/comm`, 'utf8').trim();
    if (comm.startsWith('node') || comm.startsWith('brine')) return c;
    const deeper = nodePid(c);
    if (deeper) return deeper;
  }
  return undefined;
}

class Master extends BenchMaster {
  async start(timeoutMs = 120_000) {
    fs.rmSync(this.sockPath, { force: true });
    const log = fs.openSync(this.logFile, 'a');
    const args = [build.cli, 'master', '-c', this.configDir];
    const cmd = f.heaptrack ? ['heaptrack', ['-o', path.join(out, `heaptrack-${this.phase}`), process.execPath, ...args]] : [process.execPath, args];
    this.child = track(spawn(cmd[0], cmd[1], { stdio: ['ignore', log, log] }));
    fs.closeSync(log);
    await waitFor(async () => fs.existsSync(this.sockPath), timeoutMs, 'the master to listen');
    this.nodePid = nodePid(this.child.pid);
  }
  async killNode() {
    process.kill(this.nodePid, 'SIGKILL');
    await new Promise((r) => (this.child.exitCode !== null ? r() : this.child.once('exit', r)));
  }
}

function heapKb(pid) {
  const smaps = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const at = smaps.indexOf('[heap]');
  return at < 0 ? 0 : Number(/Rss:\s+(\d+)/.exec(smaps.slice(at))[1]);
}

/** Lines of /proc/PID/maps: mappings held (vm.max_map_count caps them, 65530 by default). */
function mapCount(pid) {
  return fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').length - 1;
}

async function phase(master) {
  await sleep(f.settleSeconds * 1000);
  const [w] = await idleWindow([master.nodePid], 5000);
  const m = { rssKb: w.rssKb, heapKb: heapKb(master.nodePid), maps: mapCount(master.nodePid) };
  if (f.trim) {
    const g = spawnSync('gdb', ['-p', String(master.nodePid), '-batch', '-ex', 'call (int)malloc_trim(0)'], { encoding: 'utf8' });
    const [w2] = await idleWindow([master.nodePid], 3000);
    m.trimmed = { returned: /\$1 = (\d+)/.exec(g.stdout)?.[1] ?? g.stderr.slice(-200), rssKb: w2.rssKb, heapKb: heapKb(master.nodePid) };
  }
  return m;
}

const n = f.count;
const work = path.join(out, 'work');
const port = await freePort();
const master = new Master(build, path.join(work, 'master'), port, { auth_rate: 1000, auth_rate_per_source: 1000, preauth_max_connections_per_source: 0, preauth_max_connections: 0 });
master.phase = 'enrol';
await master.start();
await sleep(3000);
const alone = { rssKb: (await idleWindow([master.nodePid], 2000))[0].rssKb, heapKb: heapKb(master.nodePid), maps: mapCount(master.nodePid) };
const emu = startEmulator(build, {
  port,
  count: n,
  prefix: 'emu-',
  pkiDir: path.join(work, 'emu-pki'),
  ramp: 500,
  heartbeatInterval: 10,
  heartbeatTimeout: 30,
  reconDefault: 1000,
  reconMax: 10000,
  authTimeout: 5,
  logFile: path.join(out, 'emulator.log'),
});
const result = { bench: 'native-heap', count: n, heaptrack: f.heaptrack, build: build.root, alone };
try {
  await emu.waitUntil((s) => s.ready === n, 600_000, `${n} minions to enrol`);
  result.enrol = await phase(master);
  const base = emu.stats.connects;
  await master.killNode();
  master.phase = 'resume';
  const killAt = Date.now();
  await master.start();
  await emu.waitUntil((s) => s.at > killAt && s.ready === n && s.connects >= base + n, 600_000, `${n} minions to come back`);
  result.resume = await phase(master);
  await master.killNode();
} finally {
  await stopChild(emu.child, 'SIGTERM', 5000);
  if (master.child?.exitCode === null) master.child.kill('SIGKILL');
}
for (const p of ['enrol', 'resume']) {
  result[p].rssPerMinionKiB = (result[p].rssKb - alone.rssKb) / n;
  result[p].heapPerMinionKiB = (result[p].heapKb - alone.heapKb) / n;
  const t = result[p].trimmed;
  if (t) Object.assign(t, { rssPerMinionKiB: (t.rssKb - alone.rssKb) / n, heapPerMinionKiB: (t.heapKb - alone.heapKb) / n });
}
process.stdout.write(`${JSON.stringify(result)}\n`);
