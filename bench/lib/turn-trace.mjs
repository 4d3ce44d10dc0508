// A preload for a master under bench:states (`--master-args '--import ./bench/lib/turn-trace.mjs'`):
// a 10 ms timer logs every event-loop gap over 60 ms with the setImmediate callbacks (over 2 ms:
// start, ms, the first characters of their source) and the GC pauses (over 5 ms) inside it, as
// JSON lines written at exit to $TURNTRACE (default $TMPDIR/turns-<pid>.jsonl). What a gap holds
// beyond those is the poll phase (socket reads, HTTP) and timers. Wrapping every callback costs
// a little: compare stalls only between runs traced alike.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
const out = process.env.TURNTRACE || path.join(os.tmpdir(), `turns-${process.pid}.jsonl`);
const t0 = performance.now();
let imms = [];
let gcs = [];
const lines = [];
const orig = globalThis.setImmediate;
globalThis.setImmediate = (fn, ...args) =>
  orig(
    function wrapped(...a) {
      const s = performance.now();
      try {
        return fn.apply(this, a);
      } finally {
        const d = performance.now() - s;
        if (d > 2) imms.push([Math.round(s - t0), +d.toFixed(1), String(fn).slice(0, 50).replace(/\s+/g, ' ')]);
      }
    },
    ...args,
  );
new PerformanceObserver((l) => {
  for (const e of l.getEntries()) if (e.duration > 5) gcs.push([Math.round(e.startTime - t0), +e.duration.toFixed(1), e.detail?.kind]);
}).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const gap = now - last;
  if (gap > 60) {
    const from = last - t0;
    lines.push(JSON.stringify({ at: Math.round(now - t0), gap: +gap.toFixed(1), imms: imms.filter((x) => x[0] >= from - 5), gcs: gcs.filter((x) => x[0] >= from - 5) }));
  }
  imms = imms.filter((x) => x[0] > now - t0 - 1000).slice(-200);
  gcs = gcs.slice(-50);
  last = now;
}, 10).unref();
process.on('exit', () => fs.writeFileSync(out, `${lines.join('\n')}\n`));
