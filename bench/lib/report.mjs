// Output shared by the benchmarks: a short human report on stdout, progress on stderr, the
// anchors judged PASS/MISS, and one final JSON line for machines.

export const progress = (line) => process.stderr.write(`  · ${line}\n`);

export const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
export const mb = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
export const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
export const pct = (p) => `${p.toFixed(2)}%`;

/** brine/raw, or null when the raw figure is too small to divide by meaningfully. */
export function ratio(brine, raw, floor = 1e-9) {
  return raw > floor ? brine / raw : null;
}

export const showRatio = (r) => (r === null ? 'n/a' : `${r.toFixed(2)}x`);

/** { name, target, value (string), pass (bool), note? } -> one aligned line per anchor. */
export function anchorLines(anchors) {
  const w = Math.max(...anchors.map((a) => a.name.length));
  return anchors.map((a) => `  ${a.pass ? 'PASS' : 'MISS'}  ${a.name.padEnd(w)}  ${a.value} (target ${a.target})${a.note ? `  [${a.note}]` : ''}`);
}

export function printReport(title, sections, json) {
  const out = [`\n${title}`];
  for (const [heading, lines] of sections) {
    out.push(`${heading}:`);
    for (const l of lines) out.push(l.startsWith('  ') ? l : `  ${l}`);
  }
  process.stdout.write(`${out.join('\n')}\n${JSON.stringify(json)}\n`);
}
