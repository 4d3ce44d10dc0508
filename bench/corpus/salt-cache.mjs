// The Salt oracle's cache (bench/salt-oracle.mjs): what real Salt 3007 made of every state file,
// keyed by tree + commit + SLS name. Salt does not change between runs while brine changes every
// hour, so Salt's side is computed once and reused. Written atomically after every file; a
// readable summary of it goes to a text file other engineers read ("does Salt fail too?").

import * as fs from 'node:fs';

export const treeKey = (entry) => `${entry.repo}@${entry.commit}`;

/** Loads the cache (an empty one when the file does not exist). */
export function loadCache(file) {
  if (!fs.existsSync(file)) return { saltVersion: undefined, grains: undefined, trees: {} };
  const c = JSON.parse(fs.readFileSync(file, 'utf8'));
  return { saltVersion: c.saltVersion, grains: c.grains, trees: c.trees ?? {} };
}

/** The cached tree record for `entry`, created empty when absent. */
export function treeRecord(cache, entry) {
  const key = treeKey(entry);
  cache.trees[key] ??= { repo: entry.repo, commit: entry.commit, files: {} };
  return cache.trees[key];
}

/** The SLS names of `files` Salt has no answer for yet. */
export function missingSls(cache, entry, files) {
  const t = cache.trees[treeKey(entry)];
  return files.map((x) => x.sls).filter((sls) => !t?.files[sls]);
}

export function saveCache(file, cache) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(cache)}\n`);
  fs.renameSync(tmp, file);
}

const oneLine = (s) =>
  String(s ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

/** Salt's first error for a file: the compile error, the run's error, or the first failed state. */
export function saltFirstError(r) {
  if (!r.compile.ok) return `compile: ${oneLine(r.compile.error)}`;
  if (!r.apply || r.apply.ok) return '';
  if (r.apply.error) return `apply: ${oneLine(r.apply.error)}`;
  const s = r.apply.failed[0];
  return `apply: ${r.apply.failed.length} failed; first ${s.function} ${s.id}: ${oneLine(s.comment)}`;
}

/** Writes the readable per-file summary: tree, sls, compile ok?, apply ok?, first error. */
export function writeSummary(file, cache) {
  const lines = [
    `# Real Salt ${cache.saltVersion ?? '?'} on this machine, per state file of the corpus (bench/salt-oracle.mjs; cache ${new Date().toISOString()})`,
    '# compile = state.show_sls <sls>; apply = state.sls <sls> test=True (ok: no state with result False; "-": not run, compile failed)',
    '# tree\tsls\tcompile\tapply\tfirst Salt error',
  ];
  let files = 0;
  let compiled = 0;
  let applied = 0;
  for (const t of Object.values(cache.trees).sort((a, b) => a.repo.localeCompare(b.repo))) {
    if (t.error) lines.push(`${t.repo}\t*\t-\t-\tnot measured: ${oneLine(t.error)}`);
    for (const [sls, r] of Object.entries(t.files).sort(([a], [b]) => a.localeCompare(b))) {
      files++;
      if (r.compile.ok) compiled++;
      if (r.apply?.ok) applied++;
      lines.push(`${t.repo}\t${sls}\t${r.compile.ok ? 'ok' : 'FAIL'}\t${r.apply ? (r.apply.ok ? 'ok' : 'FAIL') : '-'}\t${saltFirstError(r)}`);
    }
  }
  lines.splice(3, 0, `# ${files} files so far: Salt compiles ${compiled}, compiles and applies ${applied}${Object.values(cache.trees).some((t) => !t.complete) ? ' (some trees still running)' : ''}`);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${lines.join('\n')}\n`);
  fs.renameSync(tmp, file);
}
