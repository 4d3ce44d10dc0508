// Summarises a V8 .cpuprofile (from `bench:states --profile DIR`) by event-loop iteration: the
// samples are split at (idle) samples and wherever the check phase (processImmediate) gives way to
// anything else, so an iteration here is an upper bound (two iterations with no sample between
// merge). Each long iteration is listed with what its samples were doing: the return flush, socket
// reads, file answers, the /metrics render, writes, GC, other.
//   node bench/lib/cpuprofile-turns.mjs FILE.cpuprofile [skip-first-seconds=3] [top=20]

import { readFileSync } from 'node:fs';

const [file, skipArg = '3', topArg = '20'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/lib/cpuprofile-turns.mjs FILE.cpuprofile [skip-first-seconds] [top]\n');
  process.exit(2);
}
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const memo = new Map();
const has = (names, ...fs) => fs.some((f) => names.has(f));
/** [phase, kind] of a sample's stack. */
function classify(id) {
  const known = memo.get(id);
  if (known) return known;
  const chain = [];
  for (let x = id; x !== undefined; x = parent.get(x)) chain.push(byId.get(x).callFrame.functionName);
  const names = new Set(chain);
  const top = chain[0];
  const phase = top === '(idle)' ? 'idle' : top === '(garbage collector)' ? 'gc' : names.has('processImmediate') ? 'check' : 'other';
  const kind = has(names, 'renderMetrics', 'getMetricsAsString')
    ? 'metrics'
    : names.has('flushSome')
      ? 'flush'
      : names.has('publish')
        ? 'publish'
        : has(names, 'handleHeld', 'timedRead')
          ? 'read'
          : has(names, 'answer', 'drain')
            ? 'files'
            : has(names, 'writeBuffer', 'writev')
              ? 'write'
              : top === '(garbage collector)'
                ? 'gc'
                : top === '(program)'
                  ? 'program'
                  : 'other';
  const r = [phase, kind];
  memo.set(id, r);
  return r;
}
const iterations = [];
let cur;
let prev = 'idle';
let t = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i];
  const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
  const [phase, kind] = classify(p.samples[i]);
  if (phase === 'idle') {
    if (cur) iterations.push(cur);
    cur = undefined;
    prev = phase;
    continue;
  }
  if (cur && prev === 'check' && phase !== 'check' && phase !== 'gc') {
    iterations.push(cur);
    cur = undefined;
  }
  cur ??= { at: (t - p.startTime) / 1e6, ms: 0, mix: {} };
  cur.ms += dt;
  cur.mix[kind] = (cur.mix[kind] ?? 0) + dt;
  if (phase !== 'gc') prev = phase;
}
if (cur) iterations.push(cur);
const late = iterations.filter((x) => x.at > Number(skipArg)).sort((a, b) => b.ms - a.ms);
const mix = (m) =>
  Object.entries(m)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ');
console.log(`iterations ${iterations.length}; after ${skipArg} s: over 50 ms ${late.filter((x) => x.ms > 50).length}, over 100 ms ${late.filter((x) => x.ms > 100).length}`);
for (const x of late.slice(0, Number(topArg))) console.log(`at ${x.at.toFixed(2)} s: ${x.ms.toFixed(0)} ms (${mix(x.mix)})`);
const total = {};
for (const x of late.filter((y) => y.ms > 50)) for (const [k, v] of Object.entries(x.mix)) total[k] = (total[k] ?? 0) + v;
console.log(`in the iterations over 50 ms, ms: ${mix(total)}`);
