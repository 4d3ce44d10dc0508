// virtualenv.managed: a Python virtual environment exists at `name` (created with virtualenv, or
// python3 -m venv when virtualenv is not installed), optionally cleared, and populated from
// requirements / pip_pkgs. Comments and changes follow Salt's salt/states/virtualenv_mod.py.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolveRunas } from '../../modules/cmd-module.js';
import { which } from '../../modules/host-tools.js';
import { runProcess } from '../../modules/process-runner.js';
import type { StateResult } from '../types.js';
import { defineState } from '../types.js';
import { installArgs, PipRunner } from './pip-cli.js';
import { localCopy } from './salt-url.js';
import { errorMessage } from '../../util/errors.js';

/** The argv that creates the environment, as Salt's virtualenv.create builds it. */
export function createArgv(
  venvBin: string | undefined,
  name: string,
  o: { python?: string | undefined; system_site_packages: boolean; clear: boolean; prompt?: string | undefined; extra_search_dir?: unknown; never_download?: boolean | undefined },
): string[] | { error: string } {
  const bin = venvBin ?? (which('virtualenv') ? 'virtualenv' : undefined);
  if (bin === undefined || bin === 'venv' || bin.endsWith('pyvenv')) {
    // The standard library's venv: no --python (the interpreter is the one that runs it).
    const py = o.python ?? which('python3');
    if (!py) return { error: 'Virtualenv was not detected on this system; install virtualenv or python3-venv (pkg.installed: python3-venv)' };
    return [py, '-m', 'venv', ...(o.system_site_packages ? ['--system-site-packages'] : []), ...(o.clear ? ['--clear'] : []), ...(o.prompt ? [`--prompt=${o.prompt}`] : []), name];
  }
  const argv = [bin];
  if (o.python) argv.push(`--python=${o.python}`);
  if (o.system_site_packages) argv.push('--system-site-packages');
  if (o.clear) argv.push('--clear');
  if (o.prompt) argv.push(`--prompt=${o.prompt}`);
  for (const d of Array.isArray(o.extra_search_dir) ? o.extra_search_dir : o.extra_search_dir ? [o.extra_search_dir] : []) argv.push(`--extra-search-dir=${String(d)}`);
  if (o.never_download) argv.push('--never-download');
  argv.push(name);
  return argv;
}

export const virtualenvManaged = defineState({
  name: 'virtualenv.managed',
  // Salt's virtualenv.managed takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a Python virtualenv exists, optionally with packages from requirements or pip_pkgs.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'path of the virtualenv' },
    { name: 'venv_bin', type: 'string', doc: "the program creating it (default virtualenv; 'venv' for python3 -m venv)" },
    { name: 'requirements', type: 'any', doc: 'requirements file(s) installed into it' },
    { name: 'pip_pkgs', type: 'any', doc: 'packages installed into it' },
    { name: 'system_site_packages', type: 'bool', default: false, doc: "give it access to the system's site-packages" },
    { name: 'clear', type: 'bool', default: false, doc: 'clear an existing environment' },
    { name: 'python', type: 'string', doc: 'the interpreter to use' },
    { name: 'extra_search_dir', type: 'any', doc: 'directories virtualenv looks for seed packages in' },
    { name: 'never_download', type: 'bool', doc: 'never download seed packages' },
    { name: 'prompt', type: 'string', doc: "the environment's prompt prefix" },
    { name: 'user', type: 'string', doc: 'create it and run pip as this user' },
    { name: 'cwd', type: 'string', doc: 'directory to run pip in' },
    { name: 'index_url', type: 'string', doc: 'base URL of the package index' },
    { name: 'extra_index_url', type: 'any', doc: 'extra index URL(s)' },
    { name: 'pre_releases', type: 'bool', default: false, doc: 'include pre-releases' },
    { name: 'no_deps', type: 'bool', default: false, doc: 'do not install dependencies' },
    { name: 'pip_download', type: 'string', doc: 'download packages into this directory' },
    { name: 'pip_exists_action', type: 'string', doc: 'pip --exists-action' },
    { name: 'pip_ignore_installed', type: 'bool', default: false, doc: 'pip --ignore-installed' },
    { name: 'pip_upgrade', type: 'bool', default: false, doc: 'pip --upgrade' },
    { name: 'pip_no_cache_dir', type: 'bool', default: false, doc: 'pip --no-cache-dir' },
    { name: 'pip_cache_dir', type: 'string', doc: 'pip --cache-dir' },
    { name: 'proxy', type: 'string', doc: 'proxy for pip' },
    { name: 'env_vars', type: 'map', doc: 'environment variables for pip' },
    { name: 'no_binary', type: 'any', doc: 'packages not to install from wheels' },
    { name: 'use_wheel', type: 'bool', default: false, doc: 'accepted (pip uses wheels by default)' },
    { name: 'no_use_wheel', type: 'bool', default: false, doc: 'accepted; use no_binary instead' },
    { name: 'use_vt', type: 'bool', default: false, doc: 'accepted; output is captured' },
    { name: 'distribute', type: 'bool', default: false, doc: 'accepted; obsolete in virtualenv' },
  ],
  example: '/srv/venvs/app:\n  virtualenv.managed:\n    - requirements: /srv/app/requirements.txt\n    - system_site_packages: False',
  run: async (ctx, { named: a }): Promise<StateResult> => {
    const name = a.name;
    const ret: StateResult = { name, result: true, comment: '', changes: {} };
    let requirements: unknown = a.requirements;
    if (typeof a.requirements === 'string' && a.requirements.startsWith('salt://')) {
      requirements = await localCopy(ctx, a.requirements);
      if (requirements === undefined) return { ...ret, result: false, comment: `pip requirements file '${a.requirements}' not found` };
    }
    const venvPy = path.join(name, 'bin', 'python');
    const exists = existsSync(venvPy);
    const runas = a.user ? await resolveRunas('virtualenv.managed', a.user) : undefined;
    const pyStderr = async (): Promise<string> => (await runProcess({ argv: [venvPy, '-V'], label: 'virtualenv.managed', rstrip: true })).stderr.replace(/\n+$/, '');
    const pip = await PipRunner.open({ fun: 'virtualenv.managed', binEnv: name, user: a.user, cwd: a.cwd, envVars: a.env_vars, signal: ctx.exec.signal });
    if (exists && a.clear) {
      ret.changes.cleared_packages = 'error' in pip ? [] : await pip.freeze().catch(() => []);
      ret.changes.old = await pyStderr();
    }
    if (ctx.test) {
      if (exists && a.clear) return { ...ret, result: null, comment: `Virtualenv ${name} is set to be cleared` };
      if (exists) return { ...ret, comment: `Virtualenv ${name} is already created` };
      return { ...ret, result: null, comment: `Virtualenv ${name} is set to be created` };
    }
    if (!exists || a.clear) {
      const argv = createArgv(a.venv_bin, name, a);
      if ('error' in argv) return { ...ret, result: false, comment: `Failed to create virtualenv: ${argv.error}` };
      const r = await runProcess({
        argv,
        label: 'virtualenv.managed',
        signal: ctx.exec.signal,
        ...(runas ? { uid: runas.uid, gid: runas.gid, env: { HOME: runas.home } } : {}),
      });
      if (r.retcode !== 0) return { ...ret, result: false, comment: r.stdout + r.stderr };
      ret.changes.new = await pyStderr();
      ret.comment = a.clear ? 'Cleared existing virtualenv' : 'Created new virtualenv';
    } else ret.comment = 'virtualenv exists';
    if (!requirements && !a.pip_pkgs) return ret;
    const runner = await PipRunner.open({ fun: 'virtualenv.managed', binEnv: name, user: a.user, cwd: a.cwd, envVars: a.env_vars, signal: ctx.exec.signal });
    if ('error' in runner) return { ...ret, result: false, comment: runner.error };
    let before: Set<string>;
    try {
      before = new Set(await runner.freeze());
    } catch (err) {
      return { ...ret, result: false, comment: errorMessage(err) };
    }
    const pkgs = a.pip_pkgs === undefined || a.pip_pkgs === null ? [] : Array.isArray(a.pip_pkgs) ? a.pip_pkgs.map(String) : String(a.pip_pkgs).split(',');
    const args = installArgs({
      requirements,
      index_url: a.index_url,
      extra_index_url: a.extra_index_url,
      download: a.pip_download,
      pre_releases: a.pre_releases,
      exists_action: a.pip_exists_action,
      ignore_installed: a.pip_ignore_installed,
      upgrade: a.pip_upgrade,
      no_deps: a.no_deps,
      proxy: a.proxy,
      no_cache_dir: a.pip_no_cache_dir,
      cache_dir: a.pip_cache_dir,
      no_binary: a.no_binary,
    });
    const r = await runner.run([...args, ...pkgs]);
    if (r.retcode !== 0) {
      ret.result = false;
      ret.comment = `${ret.comment}\n${r.stdout}\n${r.stderr}`;
    }
    const after = new Set(await runner.freeze());
    const added = [...after].filter((x) => !before.has(x));
    const removed = [...before].filter((x) => !after.has(x));
    if (added.length > 0 || removed.length > 0) ret.changes.packages = { new: added.length > 0 ? added : '', old: removed.length > 0 ? removed : '' };
    return ret;
  },
});
