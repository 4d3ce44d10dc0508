#!/usr/bin/env node
// Which modules cost a minion what (issue 12): a fresh Node process imports the modules a
// `brine minion` loads, one group at a time in the order it loads them, and reports its RSS after
// each (two forced GCs and a pause first), and the anonymous part of it (node's own code pages
// are touched as a process runs longer, whatever it loads: only the anonymous part is the
// modules' own); then, each in a process of its own on top of the same
// minion set, the packages a minion no longer loads. Median of --rounds processes per figure.

import { execFileSync } from 'node:child_process';
import { parseFlags, REPO_ROOT, resolveBuild } from './lib/args.mjs';
import { printReport, progress } from './lib/report.mjs';

const USAGE = `usage: npm run bench:module-rss -- [--rounds N] [--build-dir DIR]
  --rounds N     processes per figure, median reported (default 3)
  --build-dir D  compiled tree to import (default dist)`;
const f = parseFlags(process.argv.slice(2), { rounds: 3, buildDir: 'dist' }, USAGE);

/** [label, specifiers]: `@/x.js` is dist/src/x.js. In the order `brine minion` loads them. */
const MINION_STEPS = [
  ['node:tls, node:crypto, node:worker_threads (built-ins)', ['node:tls', 'node:crypto', 'node:worker_threads']],
  ['commander (the CLI parser)', ['commander']],
  ['config loader and schema (cli/common)', ['@/cli/common.js']],
  ['pino (util/logger, daemon-start)', ['@/cli/daemon-start.js']],
  ['protocol, session, transport', ['@/protocol/index.js', '@/session/index.js', '@/transport/index.js']],
  ['pki (keys, DER certificates)', ['@/pki/index.js']],
  ['render + nunjucks (Jinja, YAML fast path)', ['@/render/index.js']],
  ['modules registry (execution modules)', ['@/modules/index.js']],
  ['state compiler and state modules', ['@/state/index.js']],
  ['fileserver, pillar, schedule, targeting', ['@/fileserver/index.js', '@/pillar/index.js', '@/schedule/index.js', '@/targeting/index.js']],
  ['minion (the rest of src/minion)', ['@/minion/index.js']],
];

/** Not loaded by a minion any more; each measured on top of everything above. */
const EXTRAS = [
  ['yaml (the package)', ['yaml']],
  ['reflect-metadata + @peculiar/x509', ['reflect-metadata', '@peculiar/x509']],
  ['better-sqlite3 (one :memory: database opened)', ['better-sqlite3']],
  ['master (src/master: job cache, API, fastify)', ['@/master/index.js']],
];

function childScript(groups, build) {
  const resolve = (s) => (s.startsWith('@/') ? build.module(s.slice(2)) : s);
  return `
const fs = require('node:fs');
const rss = () => { const st = fs.readFileSync('/proc/self/status', 'utf8').split(String.fromCharCode(10)); const kb = (k) => Number(st.find((l) => l.startsWith(k + ':')).replace(/[^0-9]/g, '')); return [kb('VmRSS'), kb('RssAnon')]; };
const settle = async () => { for (let i = 0; i < 3; i++) { await new Promise((r) => setTimeout(r, 150)); globalThis.gc(); } };
(async () => {
  await import('node:path'); // the ES module loader itself, so the first group does not pay for it
  await settle();
  const out = [rss()];
  for (const specs of ${JSON.stringify(groups.map((g) => g.map(resolve)))}) {
    for (const s of specs) {
      const m = await import(s);
      if (s === 'better-sqlite3') new m.default(':memory:').close();
    }
    await settle();
    out.push(rss());
  }
  process.stdout.write(JSON.stringify(out));
})();`;
}

function measure(groups, build) {
  const runs = [];
  for (let i = 0; i < f.rounds; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', '-e', childScript(groups, build)], { cwd: REPO_ROOT, encoding: 'utf8' });
    runs.push(JSON.parse(out));
  }
  // the median per position, of RSS and of its anonymous part
  const med = (k, j) => runs.map((r) => r[k][j]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  return runs[0].map((_, k) => ({ rss: med(k, 0), anon: med(k, 1) }));
}

const mib = (kb) => (kb / 1024).toFixed(1);

function main() {
  const build = resolveBuild(f.buildDir);
  progress(`minion modules, cumulative (${f.rounds} processes)`);
  const cumulative = measure(
    MINION_STEPS.map(([, s]) => s),
    build,
  );
  const steps = MINION_STEPS.map(([label], i) => ({
    label,
    rssKb: cumulative[i + 1].rss,
    deltaKb: cumulative[i + 1].rss - cumulative[i].rss,
    anonDeltaKb: cumulative[i + 1].anon - cumulative[i].anon,
  }));
  const extras = [];
  for (const [label, specs] of EXTRAS) {
    progress(`+ ${label}`);
    const r = measure([...MINION_STEPS.map(([, s]) => s), specs], build);
    extras.push({ label, deltaKb: r.at(-1).rss - r.at(-2).rss, anonDeltaKb: r.at(-1).anon - r.at(-2).anon });
  }
  const w = Math.max(...[...steps, ...extras].map((s) => s.label.length));
  printReport(
    'bench:module-rss (RSS after importing, two GCs each; median of fresh processes)',
    [
      [
        `node with its ES module loader: ${mib(cumulative[0].rss)} MiB; then, in a minion's order (RSS, of which anonymous: the heap; the rest is node's own code pages touched)`,
        steps.map((s) => `${s.label.padEnd(w)}  +${mib(s.deltaKb).padStart(4)} MiB (anon +${mib(s.anonDeltaKb).padStart(4)})  = ${mib(s.rssKb)}`),
      ],
      ['not loaded by a minion any more (each on top of all the above)', extras.map((s) => `${s.label.padEnd(w)}  +${mib(s.deltaKb).padStart(4)} MiB (anon +${mib(s.anonDeltaKb).padStart(4)})`)],
    ],
    { bench: 'module-rss', flags: f, baseKb: cumulative[0].rss, steps, extras },
  );
}

main();
