#!/usr/bin/env node
// Lays the corpus trees out from fetched git snapshots: for every line of bench/corpus/repos.txt,
// the bare repository under --mirror (owner+name/repo or owner+name/repo/.git) is written at the
// listed commit into --corpus/owner+name. Blob by blob, so a snapshot missing its largest files
// (they are not part of the stored copy) still yields every text file. The trees are public
// code and stay outside this repository.
//
// usage: node bench/corpus/extract.mjs [--mirror /work/.mirror] [--corpus /work/corpus/trees] [--repos FILE]

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFlags, REPO_ROOT } from '../lib/args.mjs';
import { readRepos, treeDir } from './layout.mjs';

const USAGE = 'usage: node bench/corpus/extract.mjs [--mirror DIR] [--corpus DIR] [--repos FILE]';
const f = parseFlags(process.argv.slice(2), { mirror: '/work/.mirror', corpus: '/work/corpus/trees', repos: path.join(REPO_ROOT, 'bench/corpus/repos.txt') }, USAGE);

function gitDir(repo) {
  const base = path.join(f.mirror, repo.replace('/', '+'), 'repo');
  return fs.existsSync(path.join(base, '.git')) ? path.join(base, '.git') : base;
}

const git = (dir, args, encoding = 'utf8') => execFileSync('git', [`--git-dir=${dir}`, ...args], { encoding, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });

let missing = 0;
for (const entry of readRepos(f.repos)) {
  const dir = gitDir(entry.repo);
  const out = treeDir(f.corpus, entry.repo);
  if (!fs.existsSync(dir)) {
    process.stderr.write(`${entry.repo}: no snapshot at ${dir} (bring it with the fetch tool: github:${entry.repo})\n`);
    missing++;
    continue;
  }
  fs.rmSync(out, { recursive: true, force: true });
  let files = 0;
  let absent = 0;
  // -z: paths verbatim; each record is "<mode> <type> <sha>\t<path>"
  for (const rec of git(dir, ['ls-tree', '-r', '-z', entry.commit]).split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, sha] = rec.slice(0, tab).split(' ');
    const rel = rec.slice(tab + 1);
    if (type !== 'blob' || mode === '120000') continue;
    const target = path.join(out, rel);
    try {
      const data = git(dir, ['cat-file', 'blob', sha], 'buffer');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, data);
      files++;
    } catch {
      absent++;
    }
  }
  process.stderr.write(`${entry.repo}: ${files} files${absent > 0 ? ` (${absent} not in the snapshot)` : ''}\n`);
}
process.exitCode = missing > 0 ? 1 : 0;
