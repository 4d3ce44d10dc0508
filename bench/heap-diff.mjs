// Per-connection V8 heap by node type and constructor (issue 27, sessmem): the self sizes in a
// heap snapshot with N connections minus one of the same process alone, divided by N.
//   node bench/heap-diff.mjs alone.heapsnapshot full.heapsnapshot N [rows]
// Snapshots from bench/lib/heap-probe.mjs (a master under bench:fleet, or the raw floor's server).
// "native:" rows are Node's C++ objects as the snapshot sees them, not V8 heap.
import fs from 'node:fs';

function bySite(file) {
  const s = JSON.parse(fs.readFileSync(file, 'utf8'));
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [it, iname, isz] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const sites = new Map();
  let total = 0;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + it]];
    let name = s.strings[s.nodes[i + iname]];
    if (type.endsWith('string')) name = '(string)';
    else if (type === 'code') name = '(code)';
    else if (name.length > 40) name = name.slice(0, 40);
    const key = `${type}:${name}`;
    const e = sites.get(key) ?? [0, 0];
    e[0]++;
    e[1] += s.nodes[i + isz];
    sites.set(key, e);
    total += s.nodes[i + isz];
  }
  return { sites, total };
}

const [aloneFile, fullFile, nArg, rowsArg] = process.argv.slice(2);
if (!aloneFile || !fullFile || !nArg) {
  console.error('usage: node bench/heap-diff.mjs alone.heapsnapshot full.heapsnapshot N [rows]');
  process.exit(2);
}
const n = Number(nArg);
const alone = bySite(aloneFile);
const full = bySite(fullFile);
console.log(`self sizes: alone ${(alone.total / 1048576).toFixed(1)} MiB, with ${n} ${(full.total / 1048576).toFixed(1)} MiB = ${((full.total - alone.total) / n).toFixed(0)} B per connection`);
const rows = [];
for (const [k, [c, sz]] of full.sites) {
  const [c0, s0] = alone.sites.get(k) ?? [0, 0];
  rows.push([k, (c - c0) / n, (sz - s0) / n]);
}
rows.sort((x, y) => y[2] - x[2]);
for (const [k, c, sz] of rows.slice(0, Number(rowsArg ?? 40))) console.log(`${sz.toFixed(0).padStart(6)} B ${c.toFixed(2).padStart(6)} per connection  ${k}`);
