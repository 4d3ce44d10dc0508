// Real Salt as a measuring instrument (bench/salt-lowchunks.mjs): runs salt-lowchunks.py with
// Salt's source on PYTHONPATH against a minion config written for one laid-out tree. Nothing of
// Salt's code is in this repository; --salt-src points at a checkout outside it.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { track } from '../lib/cleanup.mjs';
import { MINION_ID } from './brine-call.mjs';

const DRIVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'salt-lowchunks.py');
const ORACLE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'salt-oracle.py');

/**
 * Salt's minion config for a tree, masterless, everything it writes kept under `dir`; `extra`
 * adds options (the tree's own Python: `render_dirs`, `extension_modules`).
 */
function writeMinionConfig(dir, fileRoots, pillarRoots, extra = {}) {
  const conf = path.join(dir, 'conf');
  fs.mkdirSync(conf, { recursive: true });
  const root = path.join(dir, 'root');
  const cfg = {
    id: MINION_ID,
    file_client: 'local',
    root_dir: root,
    file_roots: { base: fileRoots },
    pillar_roots: { base: pillarRoots.length > 0 ? pillarRoots : [path.join(dir, 'no-pillar')] },
    cachedir: path.join(root, 'cache'),
    pki_dir: path.join(root, 'pki'),
    sock_dir: path.join(root, 'sock'),
    log_file: path.join(root, 'log'),
    log_level_logfile: 'warning',
    ...extra,
  };
  // JSON is YAML: Salt reads this file with its YAML loader
  fs.writeFileSync(path.join(conf, 'minion'), `${JSON.stringify(cfg, null, 1)}\n`);
  return conf;
}

/**
 * Compiles `sls` names with Salt from `saltSrc`: { version, grains, results: {sls: {ok, low|error}} }.
 * `extraPath` holds shims for Python packages Debian lacks (looseversion).
 */
export function saltLowChunks({ saltSrc, python, extraPath, dir, fileRoots, pillarRoots, sls, timeoutSeconds }) {
  const configDir = writeMinionConfig(dir, fileRoots, pillarRoots);
  const r = spawnSync(python, [DRIVER], {
    cwd: dir,
    input: JSON.stringify({ config_dir: configDir, sls }),
    env: { ...process.env, PYTHONPATH: [saltSrc, extraPath].join(path.delimiter) },
    maxBuffer: 512 * 1024 * 1024,
    timeout: timeoutSeconds * 1000,
    encoding: 'utf8',
  });
  if (r.error || r.status !== 0) {
    throw new Error(`Salt (${python} ${DRIVER}) failed: ${r.error?.message ?? `exit ${r.status}`}\n${(r.stderr ?? '').split('\n').slice(-15).join('\n')}`);
  }
  return JSON.parse(r.stdout);
}

/** A directory with the shim modules Salt imports and Debian 12 does not package. */
export function writePythonShims(dir) {
  fs.mkdirSync(dir, { recursive: true });
  // looseversion is distutils' LooseVersion packaged apart; Python 3.11 still ships distutils
  fs.writeFileSync(path.join(dir, 'looseversion.py'), 'from distutils.version import LooseVersion  # noqa: F401\n');
  return dir;
}

/**
 * Compiles (`state.show_sls`) and applies (`state.sls test=True`) `sls` names with Salt in one
 * long-lived process (bench/salt-oracle.mjs). `onFile({sls, compile, apply})` is called as each
 * file finishes, so an interrupted run keeps what it measured. Resolves to { version, grains }.
 * The process runs in its own process group: a state's command Salt started is killed with it.
 */
export function saltOracleTree({ saltSrc, python, extraPath, dir, fileRoots, pillarRoots, extra, sls, timeoutSeconds, onFile }) {
  const configDir = writeMinionConfig(dir, fileRoots, pillarRoots, extra);
  // Salt's loader imports hundreds of modules per state run (pkg's mod_init looks a name up in
  // all of them): without their bytecode cached, half of a run is Python compiling Salt's source
  const { PYTHONDONTWRITEBYTECODE: _, ...env } = process.env;
  const child = track(spawn(python, [ORACLE], { cwd: dir, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...env, PYTHONPATH: [saltSrc, extraPath].join(path.delimiter) } }));
  child.stdin.end(JSON.stringify({ config_dir: configDir, sls, timeout: timeoutSeconds }));
  let head;
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line);
    if (head === undefined) head = msg;
    else onFile(msg);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      if (code === 0 && head) resolve(head);
      else reject(new Error(`Salt (${python} ${ORACLE}) ended with ${signal ?? `exit ${code}`}: ${stderr.split('\n').slice(-6).join(' | ')}`));
    });
  });
}
