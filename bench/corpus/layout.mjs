// How a corpus tree is laid out as Salt would serve it: its file_roots, its pillar and the state
// files to measure. Kept apart from the runner so the choices (what counts as a state file) are
// in one place and documented in bench/README.md.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** Parses bench/corpus/repos.txt: `owner/name commit kind file_roots pillar` per line. */
export function readRepos(file) {
  const out = [];
  for (const [i, raw] of fs.readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [repo, commit, kind, roots, pillar] = line.split(/\s+/);
    if (!repo || !/^[0-9a-f]{40}$/.test(commit ?? '') || (kind !== 'formula' && kind !== 'tree') || !roots || !pillar) {
      throw new Error(`${file}:${i + 1}: expected 'owner/name commit formula|tree file_roots pillar', got '${line}'`);
    }
    out.push({ repo, commit, kind, roots: roots.split(','), pillar: pillar === '-' ? undefined : pillar });
  }
  return out;
}

/** Where extract.mjs puts a repository: <corpus>/owner+name. */
export function treeDir(corpus, repo) {
  return path.join(corpus, repo.replace('/', '+'));
}

// Directories that never hold state files a highstate or state.sls would apply: tests and their
// pillars, documentation, pillar trees kept next to the states, orchestration and reactor SLS
// (run by the master's runners, not by a minion), and `_modules`-style extension directories.
const SKIP_DIRS = new Set(['test', 'tests', 't', 'docs', 'doc', 'pillar', 'pillars', 'orch', 'orchestrate', 'orchestration', 'reactor', 'reactors', 'bin', 'node_modules']);

function walk(dir, rel, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const r = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name.startsWith('_') || SKIP_DIRS.has(e.name)) continue;
      walk(path.join(dir, e.name), r, out);
    } else if (e.isFile() && e.name.endsWith('.sls')) {
      out.push(r);
    }
  }
}

/** The SLS name Salt gives a file path (`a/b.sls` -> a.b, `a/init.sls` -> a), or undefined when no name reaches it. */
export function slsName(rel) {
  const parts = rel.slice(0, -'.sls'.length).split('/');
  // a dot inside a component makes the file unreachable by name (`a.b` means a/b)
  if (parts.some((p) => p.includes('.') || p === '')) return undefined;
  if (parts.at(-1) === 'init') parts.pop();
  return parts.length === 0 ? undefined : parts.join('.');
}

/**
 * The state files of a tree, as SLS names (first file_roots entry wins, `a/b.sls` before
 * `a/b/init.sls`, as Salt looks them up). top.sls at a root is the top file, not a state file.
 * A formula's state files are those under its own top-level directories.
 */
export function stateFiles(root, entry) {
  const seen = new Map();
  for (const spec of entry.roots) {
    const { dir: r, prefix } = rootSpec(spec);
    const files = [];
    walk(path.join(root, r), '', files);
    files.sort((a, b) => (a.endsWith('/init.sls') ? 1 : 0) - (b.endsWith('/init.sls') ? 1 : 0) || a.localeCompare(b));
    for (const rel of files) {
      if (rel === 'top.sls') continue;
      if (entry.kind === 'formula' && !rel.includes('/')) continue;
      const name = slsName(rel);
      const sls = name === undefined ? undefined : prefix === '' ? name : `${prefix.replace(/\//g, '.')}.${name}`;
      if (sls !== undefined && !seen.has(sls)) seen.set(sls, path.join(r, rel));
    }
  }
  return [...seen].map(([sls, file]) => ({ sls, file })).sort((a, b) => a.sls.localeCompare(b.sls));
}

/** A file_roots entry of repos.txt: `dir`, or `dir=prefix` when the tree expects to sit at salt://prefix/ (it imports 'prefix/x/map.jinja'). */
export function rootSpec(spec) {
  const eq = spec.indexOf('=');
  return eq < 0 ? { dir: spec, prefix: '' } : { dir: spec.slice(0, eq), prefix: spec.slice(eq + 1) };
}

/**
 * The file_roots directories for a tree; a prefixed entry is a copy at <scratch>/mount-N/<prefix>
 * (a copy, not a symlink: brine refuses symlinks that lead out of their file root).
 */
export function fileRoots(root, entry, scratch) {
  return entry.roots.map((spec, i) => {
    const { dir, prefix } = rootSpec(spec);
    if (prefix === '') return path.join(root, dir);
    const mount = path.join(scratch, `mount-${i}`);
    fs.cpSync(path.join(root, dir), path.join(mount, prefix), { recursive: true, filter: (src) => !path.basename(src).startsWith('.git') });
    return mount;
  });
}

/**
 * The pillar_roots for a tree: its pillar directory, or (a formula's pillar.example) a directory
 * written under `scratch` with a top file giving that one file to every minion.
 */
export function pillarRoots(root, entry, scratch) {
  if (!entry.pillar) return [];
  const p = path.join(root, entry.pillar);
  if (!fs.existsSync(p)) return [];
  if (fs.statSync(p).isDirectory()) return [p];
  const dir = path.join(scratch, 'pillar');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(p, path.join(dir, 'example.sls'));
  fs.writeFileSync(path.join(dir, 'top.sls'), "base:\n  '*':\n    - example\n");
  return [dir];
}

/**
 * Renderers the tree ships as its own Python (Salt loads `_renderers/*.py` from file_roots, and
 * `renderers/*.py` of an extension_modules directory such as `extmods/`): their names, which a
 * shebang such as `#!objects` then uses. brine runs no Salt extension Python, so a file using
 * one is the tree's own code, not a brine gap.
 */
export function treeRenderers(root) {
  const names = new Set();
  const visit = (dir, depth) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const sub = path.join(dir, e.name);
      if (e.name === '_renderers' || e.name === 'renderers') {
        for (const f of fs.readdirSync(sub)) if (f.endsWith('.py') && f !== '__init__.py') names.add(f.slice(0, -3));
      } else if (depth < 4) visit(sub, depth + 1);
    }
  };
  visit(root, 0);
  return names;
}

/**
 * The directories of the tree's own Python renderers, as brine's render_dirs: an `extmods/renderers`
 * (extension_modules) directory at the tree's root, then each file root's `_renderers/` (what
 * saltutil.sync_renderers would copy to the minion).
 */
export function renderDirs(root, entry) {
  const dirs = [path.join(root, 'extmods', 'renderers')];
  for (const spec of entry.roots) dirs.push(path.join(root, rootSpec(spec).dir, '_renderers'));
  return dirs.filter((d) => fs.existsSync(d));
}
