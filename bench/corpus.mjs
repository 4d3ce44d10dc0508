#!/usr/bin/env node
// Real-tree corpus measurement (issue 22): for every state file of every public Salt tree listed
// in bench/corpus/repos.txt, compile it as a run would (`state.show_sls <sls>`: Jinja with its
// imports, YAML, includes, extend, requisites, low chunks, argument checks; show_low_sls skips
// extend and requisite_in as Salt's does) and apply it with
// test=True; then classify every failure by cause and print the largest blockers.
// brine runs in process, each call in a worker thread exactly as `brine call --local` runs it.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseFlags, REPO_ROOT, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { classify } from './corpus/classify.mjs';
import { fileRoots, pillarRoots, readRepos, renderDirs, stateFiles, treeDir, treeRenderers } from './corpus/layout.mjs';
import { printTables } from './corpus/report.mjs';
import { brineCalls, MINION_ID, quiet } from './corpus/brine-call.mjs';

const USAGE = `usage: npm run bench:corpus -- [--corpus DIR] [--repos FILE] [--only SUBSTR] [--sls SUBSTR] [--no-apply] [--os-family F] [--jobs N] [--timeout S] [--json FILE] [--baseline FILE] [--build-dir DIR]
  --corpus DIR    where the trees are laid out (default /work/corpus/trees; bench/corpus/extract.mjs fills it)
  --repos FILE    the corpus list (default bench/corpus/repos.txt)
  --only SUBSTR   only the repositories whose name contains SUBSTR
  --sls SUBSTR    only the state files whose SLS name contains SUBSTR (to time or profile a few); =NAME: that SLS only
  --no-apply      compile only; skip the test=True apply
  --os-family F   grains os_family/os of another family (e.g. RedHat) over this machine's grains
  --jobs N        calls in flight (default 2)
  --timeout S     seconds a call may take (default 120)
  --json FILE     write every file's outcome there
  --baseline FILE an earlier run's --json: print before -> after per tree and in total
  --build-dir D   compiled tree to run (default dist)`;
const f = parseFlags(
  process.argv.slice(2),
  {
    corpus: '/work/corpus/trees',
    repos: path.join(REPO_ROOT, 'bench/corpus/repos.txt'),
    only: '',
    sls: '',
    noApply: false,
    osFamily: '',
    jobs: 2,
    timeout: 120,
    json: '',
    baseline: '',
    buildDir: 'dist',
  },
  USAGE,
);

const build = resolveBuild(f.buildDir);
const [{ collectMinionGrains }, { WorkerExecutor }, { renderLocalPillar }, { optionsFor, call }] = await Promise.all([
  import(build.module('minion/minion-grains.js')),
  import(build.module('minion/worker-executor.js')),
  import(build.module('minion/pillar-client.js')),
  brineCalls(build, f.timeout),
]);

// --os-family: another family's OS grains laid over this machine's (a rough second measure; the
// package and service functions still act on this machine)
const OS_FAMILIES = {
  RedHat: {
    os: 'CentOS',
    os_family: 'RedHat',
    osrelease: '9',
    osrelease_info: [9],
    osmajorrelease: 9,
    osfullname: 'CentOS Stream',
    oscodename: 'CentOS Stream 9',
    osfinger: 'CentOS Stream-9',
    lsb_distrib_id: 'CentOS Stream',
    lsb_distrib_codename: 'CentOS Stream 9',
    lsb_distrib_release: '9',
  },
  Suse: {
    os: 'SUSE',
    os_family: 'Suse',
    osrelease: '15.5',
    osrelease_info: [15, 5],
    osmajorrelease: 15,
    osfullname: 'SLES',
    oscodename: 'SUSE Linux Enterprise Server 15 SP5',
    osfinger: 'SLES-15',
    lsb_distrib_id: 'SLES',
    lsb_distrib_codename: 'SUSE Linux Enterprise Server 15 SP5',
    lsb_distrib_release: '15.5',
  },
};

/** The failed states of a test=True run, as {id, comment}. */
function failedStates(ret) {
  if (!ret || typeof ret !== 'object' || Array.isArray(ret)) return [];
  return Object.entries(ret)
    .filter(([, r]) => r && typeof r === 'object' && r.result === false)
    .map(([tag, r]) => ({ tag, comment: typeof r.comment === 'string' ? r.comment : JSON.stringify(r.comment) }));
}

/** Seconds each state function took in a run (Salt's per-state `duration`, ms), summed by function. */
function stateTimes(ret) {
  const by = {};
  if (!ret || typeof ret !== 'object' || Array.isArray(ret)) return by;
  for (const [tag, r] of Object.entries(ret)) {
    const parts = tag.split('_|-');
    if (parts.length !== 4 || !r || typeof r.duration !== 'number') continue;
    const fun = `${parts[0]}.${parts[3]}`;
    by[fun] = Math.round((by[fun] ?? 0) + r.duration);
  }
  return by;
}

function errorText(r) {
  if (r.error) return `${r.error.code}: ${r.error.message}`;
  return typeof r.return === 'string' ? r.return : JSON.stringify(r.return);
}

async function measureTree(executor, entry, grains) {
  const root = treeDir(f.corpus, entry.repo);
  if (!fs.existsSync(root)) return { repo: entry.repo, missing: true, files: [] };
  const scratch = tempDir(`brine-corpus-${entry.repo.replace('/', '+')}-`);
  const opts = optionsFor(scratch, fileRoots(root, entry, scratch), pillarRoots(root, entry, scratch), { render_dirs: renderDirs(root, entry) });
  const pillar = await renderLocalPillar(opts, MINION_ID, grains);
  const pillarErrors = Array.isArray(pillar._errors) ? pillar._errors.map(String) : [];
  const o = { opts, minionId: MINION_ID, grains, pillar };
  const files = stateFiles(root, entry).filter((x) => f.sls === '' || (f.sls.startsWith('=') ? x.sls === f.sls.slice(1) : x.sls.includes(f.sls)));
  const renderers = treeRenderers(root);
  const out = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      const { sls, file } = files[i];
      const res = { sls, file, compiled: false };
      let t = performance.now();
      const low = await call(executor, 'state.show_sls', [sls], { force: true }, o);
      // per-file wall times (ms) so a slow file can be found in the --json output
      res.compileMs = Math.round(performance.now() - t);
      if (low.success) {
        res.compiled = true;
        res.ids = low.return !== null && typeof low.return === 'object' ? Object.keys(low.return).length : 0;
        if (!f.noApply) {
          t = performance.now();
          const run = await call(executor, 'state.sls', [sls], { test: true, force: true }, o);
          res.applyMs = Math.round(performance.now() - t);
          res.stateMs = stateTimes(run.return);
          const failed = run.success || run.retcode === 2 ? failedStates(run.return) : [];
          res.applied = (run.success || run.retcode === 2) && failed.length === 0;
          if (!res.applied) {
            res.applyError = failed.length > 0 ? failed[0].comment : errorText(run);
            res.applyFailedStates = failed.length;
            res.applyCause = classify(res.applyError, failed.length > 0 ? 'state' : 'run', { pillarFailed: pillarErrors.length > 0, renderers });
          }
        }
      } else {
        res.error = errorText(low);
        res.cause = classify(res.error, 'compile', { renderers });
      }
      out[i] = res;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, f.jobs) }, worker));
  fs.rmSync(scratch, { recursive: true, force: true });
  return { repo: entry.repo, commit: entry.commit, kind: entry.kind, pillarErrors, files: out };
}

const entries = readRepos(f.repos).filter((e) => f.only === '' || e.repo.includes(f.only));
const grainsScratch = tempDir('brine-corpus-grains-');
const { grains: ownGrains } = await collectMinionGrains({ id: MINION_ID, config: optionsFor(grainsScratch, [grainsScratch], []), logger: quiet });
const family = f.osFamily === '' ? {} : OS_FAMILIES[f.osFamily];
if (!family) {
  process.stderr.write(`--os-family: one of ${Object.keys(OS_FAMILIES).join(', ')}\n`);
  process.exit(2);
}
const grains = { ...ownGrains, ...family, ...(family.os_family && family.os_family !== 'Debian' ? { osarch: ownGrains.cpuarch } : {}) };

// The raw floor of a test=True run on this machine, timed here in the same run: what one state
// run that looks at packages cannot avoid (one `apt-get update`, as Salt's pkg.latest_version
// does, and one dpkg-query listing); the apply time per file is reported against it.
function rawFloor() {
  const time = (argv) => {
    const t = performance.now();
    const r = spawnSync(argv[0], argv.slice(1), { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    return r.error ? undefined : (performance.now() - t) / 1000;
  };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${field} format
  const listing = time(['dpkg-query', '-W', '--showformat=${Status}\t${Package}\n']);
  const update = time(['apt-get', '-q', 'update']);
  return listing === undefined || update === undefined ? undefined : { update, listing };
}
const floor = f.noApply ? undefined : rawFloor();

const executor = new WorkerExecutor(Math.max(2, f.jobs * 2));
const t0 = Date.now();
const trees = [];
try {
  for (const entry of entries) {
    const t = Date.now();
    const tree = await measureTree(executor, entry, grains);
    trees.push(tree);
    const ok = tree.files.filter((x) => x.compiled).length;
    process.stderr.write(`${entry.repo}: ${ok}/${tree.files.length} compile${tree.missing ? ' (not laid out: run bench/corpus/extract.mjs)' : ''} (${((Date.now() - t) / 1000).toFixed(1)} s)\n`);
  }
} finally {
  executor.close();
}
const seconds = (Date.now() - t0) / 1000;
if (f.json !== '') fs.writeFileSync(f.json, `${JSON.stringify({ grains: { os: grains.os, os_family: grains.os_family, osfinger: grains.osfinger }, trees }, null, 1)}\n`);
const baseline = f.baseline === '' ? undefined : JSON.parse(fs.readFileSync(f.baseline, 'utf8'));
const summary = printTables(trees, { baseline, apply: !f.noApply, floor, jobs: f.jobs, seconds, os: `${grains.os} ${grains.osrelease ?? ''} (${grains.os_family})`, host: os.hostname() });
process.stdout.write(`${JSON.stringify(summary)}\n`);
