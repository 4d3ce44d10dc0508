#!/usr/bin/env node
// gitfs benchmark (issue 23): the git layer's choice, measured. A 2,000-file repository (100
// directories of 20 files, 0.5-4 KiB each) is published as a bare repository and served over
// smart HTTP (`git http-backend` behind a local node:http server). (1) brine's git layer, the
// real `git` program (GitMirror: bare clone + checkout of the tree): first clone, a fetch with
// nothing new, a fetch after a one-file push, wall time and the git children's peak RSS
// (/usr/bin/time), plus the same over file://. (2) isomorphic-git, when --isogit names a
// node_modules directory holding it: clone with checkout and fetch over the same HTTP server, in
// a child node process whose RSS is measured (it would run inside the master).

import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { tempDir, track } from './lib/cleanup.mjs';
import { printReport, progress, secs } from './lib/report.mjs';

const USAGE = `usage: npm run bench:gitfs -- [--files 2000] [--isogit DIR] [--build-dir DIR]
  --files N      files in the repository (default 2000)
  --isogit DIR   a node_modules directory with isomorphic-git (npm install --prefix /tmp/x isomorphic-git); skipped if empty
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { files: 2000, isogit: '', buildDir: 'dist' }, USAGE);
const build = resolveBuild(f.buildDir);
const { GitMirror } = await import(build.module('fileserver/git/index.js'));

const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
const git = (args, cwd) => execFileSync('git', args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
const auth = { user: '', password: '', privkey: '', pubkey: '', strictHostKeyChecking: 'yes', knownHosts: '' };

function makeRepo(root, files) {
  const work = path.join(root, 'work');
  const bare = path.join(root, 'repo.git');
  git(['init', '-q', '-b', 'master', work]);
  for (let i = 0; i < files; i++) {
    const dir = path.join(work, `d${String(Math.floor(i / 20)).padStart(3, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    const size = 512 + ((i * 7919) % 3584);
    fs.writeFileSync(path.join(dir, `f${i}.sls`), `# file ${i}\n${'x'.repeat(size)}\n`);
  }
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'init'], work);
  git(['clone', '-q', '--bare', work, bare]);
  git(['--git-dir', bare, 'update-server-info']);
  return { work, bare };
}

function push(work, bare, n) {
  fs.writeFileSync(path.join(work, 'd000', 'f0.sls'), `# changed ${n}\n`);
  git(['commit', '-q', '-am', `change ${n}`], work);
  git(['push', '-q', bare, 'master'], work);
}

/** Peak RSS (KiB) of `git <args>` and its children, by /usr/bin/time. */
function gitPeakKiB(args, env = {}) {
  // asynchronous: the HTTP server answering this git runs in this process
  return new Promise((resolve, reject) => {
    const child = track(spawn('/usr/bin/time', ['-f', '%M', 'git', ...args], { env: { ...ENV, ...env }, stdio: ['ignore', 'ignore', 'pipe'] }));
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(Number(err.trim().split('\n').pop())) : reject(new Error(`git ${args.join(' ')} failed: ${err}`))));
  });
}

async function timed(fn) {
  const t = performance.now();
  const r = await fn();
  return { ms: performance.now() - t, r };
}

async function gitProgram(url, root, bare, work) {
  const mirror = new GitMirror(path.join(root, 'mirror'), url, auth, root);
  const rssBefore = process.memoryUsage().rss;
  const clone = await timed(async () => {
    const got = await mirror.fetch();
    return mirror.tree(got.refs.branches.get('master'));
  });
  const noop = await timed(() => mirror.fetch());
  push(work, bare, Date.now());
  const one = await timed(async () => {
    const got = await mirror.fetch();
    return mirror.tree(got.refs.branches.get('master'));
  });
  const files = execFileSync('find', [clone.r, '-type', 'f']).toString().trim().split('\n').length;
  // the same clone and fetch again, under /usr/bin/time, for git's peak RSS
  const peakDir = path.join(root, 'peak.git');
  git(['init', '-q', '--bare', peakDir]);
  const peakFetch = await gitPeakKiB(['--git-dir', peakDir, 'fetch', '-q', url, '+refs/heads/*:refs/remotes/origin/*']);
  const peakCheckout = await gitPeakKiB(['--git-dir', peakDir, `--work-tree=${fs.mkdtempSync(path.join(root, 'co-'))}`, 'checkout', '-q', '-f', 'refs/remotes/origin/master', '--', '.'], {
    GIT_INDEX_FILE: path.join(root, 'peak.index'),
  });
  return {
    cloneMs: clone.ms,
    noopMs: noop.ms,
    oneMs: one.ms,
    files,
    peakFetchKiB: peakFetch,
    peakCheckoutKiB: peakCheckout,
    masterRssDeltaKiB: Math.round((process.memoryUsage().rss - rssBefore) / 1024),
  };
}

/** isomorphic-git in its own node process (as it would run inside the master): times and RSS. */
function isomorphic(url, root, bare, work) {
  const script = path.join(root, 'iso.mjs');
  fs.writeFileSync(
    script,
    `import git from ${JSON.stringify(path.join(f.isogit, 'isomorphic-git', 'index.js'))};
import http from ${JSON.stringify(path.join(f.isogit, 'isomorphic-git', 'http', 'node', 'index.js'))};
import fs from 'node:fs';
const dir = process.argv[2];
const t0 = performance.now();
await git.clone({ fs, http, dir, url: process.argv[3], singleBranch: false, depth: undefined });
const clone = performance.now() - t0;
const rssClone = process.memoryUsage().rss;
const t1 = performance.now();
await git.fetch({ fs, http, dir, url: process.argv[3] });
const noop = performance.now() - t1;
process.stdout.write(JSON.stringify({ clone, noop, rssClone, heap: process.memoryUsage().heapUsed }) + '\\n');
process.stdin.once('data', async () => {
  const t2 = performance.now();
  await git.fetch({ fs, http, dir, url: process.argv[3] });
  await git.checkout({ fs, dir, ref: 'master', remote: 'origin', force: true });
  process.stdout.write(JSON.stringify({ one: performance.now() - t2, rssMax: process.resourceUsage().maxRSS }) + '\\n');
  process.exit(0);
});`,
  );
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, [script, path.join(root, 'iso'), url], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const lines = [];
    child.stdout.on('data', (d) => {
      for (const l of d.toString().split('\n').filter(Boolean)) {
        lines.push(JSON.parse(l));
        if (lines.length === 1) {
          push(work, bare, Date.now());
          child.stdin.write('go\n');
        } else resolve({ cloneMs: lines[0].clone, noopMs: lines[0].noop, oneMs: lines[1].one, rssAfterCloneKiB: Math.round(lines[0].rssClone / 1024), maxRssKiB: lines[1].rssMax });
      }
    });
    child.on('exit', (code) => code !== 0 && reject(new Error(`isomorphic-git run exited ${code}`)));
  });
}

const root = tempDir('brine-bench-gitfs-');
progress(`making a ${f.files}-file repository`);
const { work, bare } = makeRepo(root, f.files);
const { GitHttpServer } = await import(path.join(build.root, 'test', 'helpers', 'git-http.js'));
const srv = await GitHttpServer.start({ projectRoot: root });
const httpUrl = srv.url('repo.git');
const nodeBaseKiB = Math.round(process.memoryUsage().rss / 1024);
progress('git program over smart HTTP');
const viaHttp = await gitProgram(httpUrl, fs.mkdtempSync(path.join(root, 'h-')), bare, work);
progress('git program over file://');
const viaFile = await gitProgram(`file://${bare}`, fs.mkdtempSync(path.join(root, 'f-')), bare, work);
let iso;
if (f.isogit !== '') {
  progress('isomorphic-git over smart HTTP');
  iso = await isomorphic(httpUrl, fs.mkdtempSync(path.join(root, 'i-')), bare, work);
}
await srv.close();

const line = (name, r) => `${name}: first clone + checkout ${secs(r.cloneMs)}, fetch with nothing new ${secs(r.noopMs)}, fetch + checkout after a one-file push ${secs(r.oneMs)}`;
const sections = [
  [
    `git program (brine's GitMirror), ${f.files} files`,
    [
      line('smart HTTP', viaHttp),
      line('file://', viaFile),
      `files checked out: ${viaHttp.files}; git's peak RSS: fetch ${viaHttp.peakFetchKiB} KiB, checkout ${viaHttp.peakCheckoutKiB} KiB (child processes, gone after each run)`,
      `the calling node process (the master) grew by ${viaHttp.masterRssDeltaKiB} KiB RSS (from ${nodeBaseKiB} KiB)`,
    ],
  ],
];
if (iso) {
  sections.push([
    'isomorphic-git (in-process), same repository and server',
    [
      `first clone with checkout ${secs(iso.cloneMs)}, fetch with nothing new ${secs(iso.noopMs)}, fetch + checkout after a one-file push ${secs(iso.oneMs)}`,
      `RSS after the clone ${iso.rssAfterCloneKiB} KiB, peak ${iso.maxRssKiB} KiB (it would be in the master process); no SSH transport at all`,
    ],
  ]);
}
printReport('gitfs: git program vs isomorphic-git', sections, { files: f.files, gitHttp: viaHttp, gitFile: viaFile, isomorphicGit: iso ?? null });
