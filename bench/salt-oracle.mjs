#!/usr/bin/env node
// Issue 22's oracle for compile AND run: for every tree of the corpus (laid out as bench:corpus
// lays it), each state file is compiled (`state.show_sls`) and applied (`state.sls test=True`) by
// real Salt 3007 run from its source and by brine in process with Salt's grains. Salt's answers
// are cached (--salt-cache, keyed by tree, commit and SLS) since Salt does not change and is slow;
// the report sets brine against Salt file by file (bench/corpus/oracle-report.mjs).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFlags, REPO_ROOT, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { brineCalls, MINION_ID } from './corpus/brine-call.mjs';
import { fileRoots, pillarRoots, readRepos, renderDirs, stateFiles, treeDir, treeRenderers } from './corpus/layout.mjs';
import { brineFile, printReport } from './corpus/oracle-report.mjs';
import { loadCache, missingSls, saveCache, treeKey, treeRecord, writeSummary } from './corpus/salt-cache.mjs';
import { saltOracleTree, writePythonShims } from './corpus/salt-run.mjs';

const USAGE = `usage: npm run bench:salt-oracle -- [--salt-src DIR] [--salt-only | --no-salt] [--only A,B] [--sls SUBSTR] [--jobs N] [--json FILE]
  --salt-src DIR     a Salt source checkout (default /tmp/saltoracle/salt-src); needed only for trees not in the cache
  --salt-cache FILE  Salt's answers, reused across runs (default /work/corpus/salt-oracle.json)
  --summary FILE     a readable per-file summary of Salt's answers (default /work/corpus/salt-oracle-summary.txt)
  --salt-only        fill the cache and the summary; run no brine
  --no-salt          run no Salt: brine against the trees the cache holds complete
  --only A,B         only the repositories whose name contains one of these
  --sls SUBSTR       only the SLS names containing SUBSTR
  --exclude A,B      repositories left out (default php-formula: Salt compiles it for over 10 minutes)
  --sample N         Salt runs at most N files per tree, spread over its sorted list (breadth first; a later run fills the rest)
  --jobs N           trees Salt runs in parallel (default 2)
  --timeout S        seconds Salt or brine may take for one call on one file (default 300)
  --python BIN       the Python that runs Salt (default /usr/bin/python3)
  --corpus DIR       where the trees are laid out (default /work/corpus/trees)
  --repos FILE       the corpus list (default bench/corpus/repos.txt)
  --json FILE        every file's outcome, both sides (written after each tree)
  --from-json A,B    no Salt, no brine: the report of earlier --json files
  --verbose          list every brine-only failure, not only the causes
  --build-dir D      compiled tree to run (default dist)`;
const f = parseFlags(
  process.argv.slice(2),
  {
    saltSrc: '/tmp/saltoracle/salt-src',
    saltCache: '/work/corpus/salt-oracle.json',
    summary: '/work/corpus/salt-oracle-summary.txt',
    saltOnly: false,
    noSalt: false,
    only: '',
    sls: '',
    exclude: 'php-formula',
    sample: 0,
    jobs: 2,
    timeout: 300,
    python: '/usr/bin/python3',
    corpus: '/work/corpus/trees',
    repos: path.join(REPO_ROOT, 'bench/corpus/repos.txt'),
    json: '',
    fromJson: '',
    verbose: false,
    buildDir: 'dist',
  },
  USAGE,
);

const listed = (csv, repo) => csv !== '' && csv.split(',').some((o) => repo.includes(o));
const all = readRepos(f.repos).filter((e) => f.only === '' || listed(f.only, e.repo));
const excluded = all.filter((e) => listed(f.exclude, e.repo));
const entries = all.filter((e) => !listed(f.exclude, e.repo) && fs.existsSync(treeDir(f.corpus, e.repo)));
const filesOf = (e) => stateFiles(treeDir(f.corpus, e.repo), e).filter((x) => f.sls === '' || x.sls.includes(f.sls));
const cache = loadCache(f.saltCache);

/** --sample N: N files spread evenly over the sorted list (the same ones every run), else all. */
function sampled(files) {
  if (f.sample <= 0 || files.length <= f.sample) return files;
  return Array.from({ length: f.sample }, (_, i) => files[Math.floor((i * files.length) / f.sample)]);
}

/**
 * The tree's own Python as Salt would load it: its renderers (`render_dirs`, as brine is given
 * them) and an `extmods/` directory as `extension_modules` (modules, states, grains, renderers;
 * a copy, so Salt's bytecode stays out of the corpus).
 */
function saltExtras(root, entry, scratch) {
  const extra = {};
  const dirs = renderDirs(root, entry);
  if (dirs.length > 0) extra.render_dirs = dirs;
  const extmods = path.join(root, 'extmods');
  if (fs.existsSync(extmods)) {
    const copy = path.join(scratch, 'extmods');
    fs.cpSync(extmods, copy, { recursive: true });
    extra.extension_modules = copy;
  }
  return extra;
}

/** Salt over the files of `entry` (or its --sample) it has no cached answer for. */
async function saltTree(entry, shims) {
  const sls = missingSls(cache, entry, sampled(filesOf(entry)));
  const rec = treeRecord(cache, entry);
  if (sls.length === 0) return;
  const root = treeDir(f.corpus, entry.repo);
  const scratch = tempDir(`brine-oracle-${entry.repo.replace('/', '+')}-`);
  const t = Date.now();
  rec.complete = false;
  try {
    const head = await saltOracleTree({
      saltSrc: path.resolve(f.saltSrc),
      python: f.python,
      extraPath: shims,
      dir: path.join(scratch, 'salt'),
      fileRoots: fileRoots(root, entry, scratch),
      pillarRoots: pillarRoots(root, entry, scratch),
      extra: saltExtras(root, entry, scratch),
      sls,
      timeoutSeconds: f.timeout,
      onFile: ({ sls: name, ...r }) => {
        rec.files[name] = r;
        saveCache(f.saltCache, cache);
        writeSummary(f.summary, cache);
      },
    });
    Object.assign(cache, { saltVersion: head.version, grains: head.grains });
    rec.complete = missingSls(cache, entry, filesOf(entry)).length === 0;
    delete rec.error;
  } catch (err) {
    rec.error = err.message;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  saveCache(f.saltCache, cache);
  writeSummary(f.summary, cache);
  process.stderr.write(`Salt ${entry.repo}: ${sls.length} files in ${((Date.now() - t) / 1000).toFixed(0)} s${rec.error ? ` (${rec.error.slice(0, 200)})` : ''}\n`);
}

if (!f.noSalt && f.fromJson === '') {
  if (!fs.existsSync(path.join(f.saltSrc, 'salt', 'state.py'))) {
    process.stderr.write(`--salt-src must be a Salt source tree (with salt/state.py)\n${USAGE}\n`);
    process.exit(2);
  }
  const shims = writePythonShims(tempDir('brine-oracle-shims-'));
  // the smallest trees first: an interrupted run has measured as many trees completely as it could
  // (REMnux and sift-saltstack take minutes per file: each runs hundreds of pkg states)
  const missing = (e) => missingSls(cache, e, sampled(filesOf(e))).length;
  const queue = entries.filter((e) => missing(e) > 0).sort((a, b) => missing(a) - missing(b));
  const worker = async () => {
    for (let e = queue.shift(); e !== undefined; e = queue.shift()) await saltTree(e, shims);
  };
  await Promise.all(Array.from({ length: Math.max(1, f.jobs) }, worker));
}
if (f.saltOnly) process.exit(0);

// --from-json: the report of earlier runs' --json files (e.g. two runs over halves of the corpus)
if (f.fromJson !== '') {
  const runs = f.fromJson.split(',').map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
  const trees = runs.flatMap((r) => r.trees).filter((t) => entries.some((e) => e.repo === t.repo));
  const done = new Set(trees.map((t) => t.repo));
  const timedOut = runs.flatMap((r) => r.timedOut ?? []);
  const notMeasured = [
    ...excluded.map((e) => ({ repo: e.repo, why: 'excluded (--exclude)' })),
    ...entries.filter((e) => !done.has(e.repo)).map((e) => ({ repo: e.repo, why: 'not in the --json files' })),
  ];
  if (timedOut.length > 0) notMeasured.push({ repo: `${timedOut.length} files Salt did not finish within its time limit`, why: timedOut.join(' ') });
  printReport({ saltVersion: runs[0]?.saltVersion, trees, notMeasured, verbose: f.verbose });
  process.exit(0);
}

const build = resolveBuild(f.buildDir);
const [{ WorkerExecutor }, { renderLocalPillar }, calls] = await Promise.all([
  import(build.module('minion/worker-executor.js')),
  import(build.module('minion/pillar-client.js')),
  brineCalls(build, f.timeout),
]);
const executor = new WorkerExecutor(2);
const trees = [];
const timedOut = [];
const saltTimedOut = (r) => [r.compile.error, r.apply?.error].some((e) => typeof e === 'string' && e.startsWith('timeout:'));
try {
  for (const entry of entries) {
    // a tree Salt has not finished is compared on the files it has answered (the report says so)
    const rec = cache.trees[treeKey(entry)];
    if (!rec || Object.keys(rec.files).length === 0) continue;
    const root = treeDir(f.corpus, entry.repo);
    const scratch = tempDir(`brine-oracle-b-${entry.repo.replace('/', '+')}-`);
    try {
      const opts = calls.optionsFor(scratch, fileRoots(root, entry, scratch), pillarRoots(root, entry, scratch), { render_dirs: renderDirs(root, entry) });
      const pillar = await renderLocalPillar(opts, MINION_ID, cache.grains);
      const ctx = {
        executor,
        call: calls.call,
        o: { opts, minionId: MINION_ID, grains: cache.grains, pillar },
        renderers: treeRenderers(root),
        pillarFailed: Array.isArray(pillar._errors) && pillar._errors.length > 0,
      };
      const files = [];
      for (const { sls, file } of filesOf(entry)) {
        const salt = rec.files[sls];
        // a file Salt did not finish within --timeout says nothing about Salt: left out, counted
        if (salt && saltTimedOut(salt)) timedOut.push(`${entry.repo}:${sls}`);
        else if (salt) files.push({ sls, file, salt, brine: await brineFile(ctx, sls) });
      }
      trees.push({ repo: entry.repo, commit: entry.commit, kind: entry.kind, files, of: filesOf(entry).length });
      // written after each tree, so a long run interrupted keeps what it measured
      if (f.json !== '') fs.writeFileSync(f.json, `${JSON.stringify({ saltVersion: cache.saltVersion, trees, timedOut }, null, 1)}\n`);
      process.stderr.write(`brine ${entry.repo}: ${files.length} files\n`);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  }
} finally {
  executor.close();
}
const notMeasured = [
  ...excluded.map((e) => ({ repo: e.repo, why: `excluded (--exclude)` })),
  ...entries
    .filter((e) => !cache.trees[treeKey(e)]?.complete)
    .map((e) => ({ repo: e.repo, why: cache.trees[treeKey(e)]?.error ?? `Salt has answered ${Object.keys(cache.trees[treeKey(e)]?.files ?? {}).length} of its ${filesOf(e).length} files so far` })),
];
if (timedOut.length > 0) notMeasured.push({ repo: `${timedOut.length} files Salt did not finish within its time limit`, why: timedOut.join(' ') });
printReport({ saltVersion: cache.saltVersion, trees, notMeasured, verbose: f.verbose });
