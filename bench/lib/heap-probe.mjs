// A preload for `brine master` and the raw floor's server (issue 27, sessmem), through
// NODE_OPTIONS="--import ./bench/lib/heap-probe.mjs" (every process started then loads it; it
// acts only in a master or in raw-tls-server.mjs):
//   HEAPSTAT=FILE   a JSON line every 2 s to FILE.<pid>: RSS, V8 heap totals, and per heap space
//                   [space_size, space_used_size, physical_space_size] in KiB
//   HEAPSNAP=DIR    heap snapshots into DIR: alone-<pid> 2.5 s after start (a master; 1 s for the
//                   raw server) and full-<pid> on SIGUSR2 (a master) or at 25 s (the raw server)
// Compare two snapshots with bench/heap-diff.mjs.
import fs from 'node:fs';
import v8 from 'node:v8';

const master = process.argv.includes('master');
const raw = process.argv[1]?.endsWith('raw-tls-server.mjs') ?? false;

if ((master || raw) && process.env.HEAPSNAP) {
  const dir = process.env.HEAPSNAP;
  setTimeout(() => v8.writeHeapSnapshot(`${dir}/alone-${process.pid}.heapsnapshot`), raw ? 1000 : 2500).unref();
  if (raw) setTimeout(() => v8.writeHeapSnapshot(`${dir}/full-${process.pid}.heapsnapshot`), 25_000).unref();
  else process.on('SIGUSR2', () => v8.writeHeapSnapshot(`${dir}/full-${process.pid}.heapsnapshot`));
}

if (master && process.env.HEAPSTAT) {
  const out = `${process.env.HEAPSTAT}.${process.pid}`;
  const t0 = Date.now();
  const kib = (n) => Math.round(n / 1024);
  setInterval(() => {
    const spaces = {};
    for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name.replace('_space', '')] = [kib(s.space_size), kib(s.space_used_size), kib(s.physical_space_size)];
    const m = process.memoryUsage();
    fs.appendFileSync(out, `${JSON.stringify({ t: Math.round((Date.now() - t0) / 1000), rss: kib(m.rss), heapTotal: kib(m.heapTotal), heapUsed: kib(m.heapUsed), spaces })}\n`);
  }, 2000).unref();
}
