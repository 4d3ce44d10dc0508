#!/usr/bin/env node
// Issue 22's oracle: for every saltstack-formulas tree of the corpus, compile each state file with
// real Salt (run from its source tree, `state.show_low_sls` masterless) and with brine (in process,
// as bench/corpus.mjs does) under the SAME grains (Salt's), and report per file: equal, differs
// (first differing chunk and key), Salt fails, brine fails. Grains that differ between Salt's and
// brine's own collection on this machine are listed apart, so they never read as compile diffs.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFlags, REPO_ROOT, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { brineCalls, MINION_ID, quiet } from './corpus/brine-call.mjs';
import { fileRoots, pillarRoots, readRepos, stateFiles, treeDir } from './corpus/layout.mjs';
import { firstDifference, grainDifferences, normalisePaths } from './corpus/lowchunk-diff.mjs';
import { saltLowChunks, writePythonShims } from './corpus/salt-run.mjs';

const USAGE = `usage: npm run bench:salt-lowchunks -- --salt-src DIR [--only SUBSTR] [--sls SUBSTR] [--python BIN] [--owner O] [--corpus DIR] [--repos FILE] [--json FILE] [--verbose] [--build-dir DIR]
  --salt-src DIR  a Salt source checkout (the directory holding salt/); Salt's runtime deps from Debian
  --only SUBSTR   only the repositories whose name contains SUBSTR (several: a,b,c)
  --sls SUBSTR    only the SLS names containing SUBSTR
  --python BIN    the Python that runs Salt (default /usr/bin/python3, Debian's, with python3-yaml etc.)
  --owner O       repositories of this owner (default saltstack-formulas; '' for every tree)
  --corpus DIR    where the trees are laid out (default /work/corpus/trees)
  --repos FILE    the corpus list (default bench/corpus/repos.txt)
  --json FILE     write every file's outcome (with both chunk lists when they differ)
  --verbose       print every differing file, not only the first per tree
  --timeout S     seconds Salt may take for one tree (default 600)
  --build-dir D   compiled tree to run (default dist)`;
const f = parseFlags(
  process.argv.slice(2),
  {
    saltSrc: '',
    only: '',
    sls: '',
    python: '/usr/bin/python3',
    owner: 'saltstack-formulas',
    corpus: '/work/corpus/trees',
    repos: path.join(REPO_ROOT, 'bench/corpus/repos.txt'),
    json: '',
    verbose: false,
    timeout: 600,
    buildDir: 'dist',
  },
  USAGE,
);
if (f.saltSrc === '' || !fs.existsSync(path.join(f.saltSrc, 'salt', 'state.py'))) {
  process.stderr.write(`--salt-src must be a Salt source tree (with salt/state.py)\n${USAGE}\n`);
  process.exit(2);
}

const build = resolveBuild(f.buildDir);
const [{ collectMinionGrains }, { WorkerExecutor }, { renderLocalPillar }, { optionsFor, call }] = await Promise.all([
  import(build.module('minion/minion-grains.js')),
  import(build.module('minion/worker-executor.js')),
  import(build.module('minion/pillar-client.js')),
  brineCalls(build, f.timeout),
]);

// a compile failure's first message (its `return` list), else the coded error
const errorText = (r) =>
  Array.isArray(r.return) && typeof r.return[0] === 'string' ? r.return[0] : r.error ? `${r.error.code}: ${r.error.message}` : typeof r.return === 'string' ? r.return : JSON.stringify(r.return);
const firstLine = (s) =>
  String(s)
    .split('\n')
    .find((l) => l.trim() !== '') ?? '';

async function measureTree(executor, entry, shims) {
  const root = treeDir(f.corpus, entry.repo);
  if (!fs.existsSync(root)) return { repo: entry.repo, missing: true, files: [] };
  const scratch = tempDir(`brine-saltlow-${entry.repo.replace('/', '+')}-`);
  try {
    const roots = fileRoots(root, entry, scratch);
    const pillar = pillarRoots(root, entry, scratch);
    const files = stateFiles(root, entry).filter((x) => f.sls === '' || x.sls.includes(f.sls));
    let salt;
    try {
      salt = saltLowChunks({
        saltSrc: path.resolve(f.saltSrc),
        python: f.python,
        extraPath: shims,
        dir: path.join(scratch, 'salt'),
        fileRoots: roots,
        pillarRoots: pillar,
        sls: files.map((x) => x.sls),
        timeoutSeconds: f.timeout,
      });
    } catch (err) {
      // one tree Salt cannot finish (php-formula takes over 10 minutes here) is reported, not fatal
      return { repo: entry.repo, commit: entry.commit, saltError: err.message.split('\n')[0], files: [] };
    }
    // brine with Salt's grains, so a difference below is the compiler's, not the grains'
    const grains = salt.grains;
    const opts = optionsFor(path.join(scratch, 'brine'), roots, pillar);
    const o = { opts, minionId: MINION_ID, grains, pillar: await renderLocalPillar(opts, MINION_ID, grains) };
    const paths = [[scratch, '<scratch>']];
    const out = [];
    for (const { sls, file } of files) {
      const s = salt.results[sls] ?? { ok: false, error: 'no answer' };
      // Salt's compile errors come back as a list of messages (JSON text here): the first one
      if (!s.ok && typeof s.error === 'string' && s.error.startsWith('["')) s.error = JSON.parse(s.error)[0];
      const b = await call(executor, 'state.show_low_sls', [sls], {}, o);
      const res = { sls, file };
      if (!s.ok && !b.success) Object.assign(res, { outcome: 'both fail', saltError: firstLine(s.error), brineError: firstLine(errorText(b)) });
      else if (!s.ok) Object.assign(res, { outcome: 'Salt fails', saltError: firstLine(s.error) });
      else if (!b.success) Object.assign(res, { outcome: 'brine fails', brineError: firstLine(errorText(b)) });
      else {
        const sl = normalisePaths(s.low, paths);
        const bl = normalisePaths(b.return, paths);
        const diff = firstDifference(sl, bl);
        res.outcome = diff ? 'differs' : 'equal';
        res.chunks = sl.length;
        if (diff) Object.assign(res, { diff, salt: sl, brine: bl });
      }
      out.push(res);
    }
    return { repo: entry.repo, commit: entry.commit, saltVersion: salt.version, saltGrains: salt.grains, files: out };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

const OUTCOMES = ['equal', 'differs', 'Salt fails', 'brine fails', 'both fail'];

function printTree(tree) {
  const count = (o) => tree.files.filter((x) => x.outcome === o).length;
  const row = `| ${tree.repo.split('/')[1].padEnd(26)} | ${OUTCOMES.map((o) => String(count(o)).padStart(o.length)).join(' | ')} | ${String(tree.files.length).padStart(5)} |`;
  const notes = [];
  let shown = 0;
  for (const x of tree.files) {
    if (x.outcome === 'differs' && (f.verbose || shown++ === 0)) {
      notes.push(`  ${x.sls}: chunk ${x.diff.index} (${x.diff.id}) key ${x.diff.key}: Salt ${x.diff.salt} / brine ${x.diff.brine}`);
    } else if (x.outcome === 'brine fails' || (f.verbose && x.outcome === 'Salt fails')) {
      notes.push(`  ${x.sls}: ${x.outcome}: ${(x.brineError ?? x.saltError).slice(0, 200)}`);
    }
  }
  return { row, notes };
}

function writeJson(trees) {
  const out = trees.map(({ saltGrains, ...t }) => t);
  fs.writeFileSync(f.json, `${JSON.stringify({ saltVersion: trees[0]?.saltVersion, trees: out }, null, 1)}\n`);
}

const shims = writePythonShims(tempDir('brine-saltlow-shims-'));
const entries = readRepos(f.repos).filter((e) => (f.owner === '' || e.repo.startsWith(`${f.owner}/`)) && (f.only === '' || f.only.split(',').some((o) => e.repo.includes(o))));
const executor = new WorkerExecutor(2);
const trees = [];
try {
  for (const entry of entries) {
    const t = Date.now();
    trees.push(await measureTree(executor, entry, shims));
    // written after each tree, so a long run interrupted keeps what it measured
    if (f.json !== '') writeJson(trees);
    process.stderr.write(`${entry.repo}: ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
  }
} finally {
  executor.close();
  fs.rmSync(shims, { recursive: true, force: true });
}

const present = trees.filter((t) => !t.missing && !t.saltError);
for (const t of trees) if (t.saltError) process.stdout.write(`${t.repo}: not measured: ${t.saltError}\n`);
const lines = [`| tree                       | ${OUTCOMES.join(' | ')} | total |`, `|${'-'.repeat(28)}|${OUTCOMES.map((o) => `${'-'.repeat(o.length + 1)}:`).join('|')}|------:|`];
const notes = [];
for (const tree of present) {
  const p = printTree(tree);
  lines.push(p.row);
  if (p.notes.length > 0) notes.push(`${tree.repo}:`, ...p.notes);
}
const all = present.flatMap((t) => t.files);
const totals = Object.fromEntries(OUTCOMES.map((o) => [o, all.filter((x) => x.outcome === o).length]));
lines.push(`| ${'total'.padEnd(26)} | ${OUTCOMES.map((o) => String(totals[o]).padStart(o.length)).join(' | ')} | ${String(all.length).padStart(5)} |`);
const version = present[0]?.saltVersion ?? '?';
process.stdout.write(`Salt ${version} from ${path.resolve(f.saltSrc)} against brine, same grains (Salt's)\n\n${lines.join('\n')}\n\n${notes.join('\n')}\n`);

// The grains this machine gives brine and Salt, compared once (Salt's from the first tree)
if (present.length > 0) {
  const scratch = tempDir('brine-saltlow-grains-');
  try {
    const { grains: own } = await collectMinionGrains({ id: MINION_ID, config: optionsFor(scratch, [scratch], []), logger: quiet });
    const g = grainDifferences(present[0].saltGrains, JSON.parse(JSON.stringify(own)));
    process.stdout.write(`\ngrains Salt has and brine lacks: ${g.missing.join(', ') || '(none)'}\ngrains brine has and Salt lacks: ${g.extra.join(', ') || '(none)'}\ngrains that differ:\n`);
    for (const d of g.differ) process.stdout.write(`  ${d.key}: Salt ${d.salt} / brine ${d.brine}\n`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
process.stdout.write(`${JSON.stringify({ saltVersion: version, totals })}\n`);
