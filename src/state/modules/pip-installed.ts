// pip.installed: Python packages (or a requirements file) installed with pip, in a virtualenv
// (bin_env) or the system Python. The checks, comments and changes follow Salt's
// salt/states/pip_state.py installed().

import type { StateResult } from '../types.js';
import { defineState } from '../types.js';
import { installArgs, PipRunner } from './pip-cli.js';
import { localCopy } from './salt-url.js';
import { errorMessage } from '../../util/errors.js';

type VersionSpec = [string, string][];

/** PEP 503's normalised project name, so Django, django and django_ match as pip does. */
export function canonicalName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * Salt's _check_pkg_version_format: the project name (prefix) and version specifiers of a
 * requirement line. A URL or path has prefix '' (nothing to check before installing).
 */
export function parseRequirement(spec: string): { prefix: string; versionSpec: VersionSpec } | { error: string } {
  const line = spec.split(';')[0]!.trim();
  if (/^[a-z+]+:\/\//i.test(line) || /^(git|hg|svn|bzr)\+/.test(line) || line.startsWith('/') || line.startsWith('.')) return { prefix: '', versionSpec: [] };
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$/.exec(line);
  const specs: VersionSpec = [];
  const rest = m?.[3]?.trim() ?? '';
  let ok = m !== null;
  if (ok && rest !== '') {
    for (const part of rest.split(',')) {
      const s = /^\s*(===|==|!=|<=|>=|~=|<|>)\s*([A-Za-z0-9.*+!_-]+)\s*$/.exec(part);
      if (!s) ok = false;
      else specs.push([s[1]!, s[2]!]);
    }
  }
  if (!ok) {
    if (spec.includes('=') && !spec.includes('==')) return { error: `Invalid version specification in package ${spec}. '=' is not supported, use '==' instead.` };
    return { error: `pip raised an exception while parsing '${spec}': invalid requirement` };
  }
  return { prefix: m![1]!.replace(/[^A-Za-z0-9.]+/g, '-'), versionSpec: specs };
}

/** Compares versions piece by piece (numbers numerically), as Salt's LooseVersion compare. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/);
  const pb = b.split(/[.+-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    const nx = /^\d+$/.test(x) ? Number(x) : Number.NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : Number.NaN;
    const c = !Number.isNaN(nx) && !Number.isNaN(ny) ? nx - ny : x < y ? -1 : x > y ? 1 : 0;
    if (c !== 0) return Math.sign(c);
  }
  return 0;
}

function fulfills(version: string, spec: VersionSpec): boolean {
  return spec.every(([op, want]) => {
    if (want.endsWith('.*')) return op === '!=' ? !version.startsWith(want.slice(0, -1)) : version.startsWith(want.slice(0, -1));
    const c = compareVersions(version, want);
    return op === '==' || op === '===' ? c === 0 : op === '!=' ? c !== 0 : op === '<=' ? c <= 0 : op === '>=' || op === '~=' ? c >= 0 : op === '<' ? c < 0 : c > 0;
  });
}

function findKey(list: ReadonlyMap<string, string>, prefix: string): string | undefined {
  const want = canonicalName(prefix);
  return [...list.keys()].find((k) => canonicalName(k) === want);
}

export const pipInstalled = defineState({
  name: 'pip.installed',
  // Salt's pip.installed takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure Python packages are installed with pip (in a virtualenv with bin_env).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'a requirement (django >= 1.6, <= 1.7); ignored when pkgs or requirements is given' },
    { name: 'pkgs', type: 'list', doc: 'several requirements' },
    { name: 'requirements', type: 'any', doc: 'path of a requirements file (or a list of them)' },
    { name: 'bin_env', type: 'string', doc: 'a virtualenv directory or the path of a pip program' },
    { name: 'pip_bin', type: 'string', doc: 'deprecated alias of bin_env' },
    { name: 'env', type: 'string', doc: 'deprecated alias of bin_env' },
    { name: 'user', type: 'string', doc: 'run pip as this user' },
    { name: 'cwd', type: 'string', doc: 'directory to run pip in' },
    { name: 'env_vars', type: 'map', doc: 'environment variables for pip' },
    { name: 'upgrade', type: 'bool', default: false, doc: 'upgrade to the newest available version' },
    { name: 'force_reinstall', type: 'bool', default: false, doc: 'reinstall even when up-to-date' },
    { name: 'ignore_installed', type: 'bool', default: false, doc: 'ignore installed packages (reinstalling instead)' },
    { name: 'editable', type: 'any', doc: 'install this VCS URL or path in editable mode' },
    { name: 'find_links', type: 'any', doc: 'URL(s) or directories to look for packages in' },
    { name: 'index_url', type: 'string', doc: 'base URL of the package index' },
    { name: 'extra_index_url', type: 'any', doc: 'extra index URL(s)' },
    { name: 'no_index', type: 'bool', default: false, doc: 'ignore the package index (only find_links)' },
    { name: 'no_deps', type: 'bool', default: false, doc: 'do not install dependencies' },
    { name: 'pre_releases', type: 'bool', default: false, doc: 'include pre-releases' },
    { name: 'target', type: 'string', doc: 'install packages into this directory' },
    { name: 'download', type: 'string', doc: 'download packages into this directory' },
    { name: 'source', type: 'string', doc: 'check editable packages out into this directory' },
    { name: 'exists_action', type: 'string', doc: 'action when a path exists: s, i, w or b' },
    { name: 'install_options', type: 'any', doc: 'options for setup.py install' },
    { name: 'global_options', type: 'any', doc: 'global options for setup.py' },
    { name: 'proxy', type: 'string', doc: 'proxy, user:passwd@proxy.server:port' },
    { name: 'timeout', type: 'int', doc: 'socket timeout in seconds' },
    { name: 'log', type: 'string', doc: "pip's log file" },
    { name: 'cert', type: 'string', doc: 'CA bundle path' },
    { name: 'trusted_host', type: 'any', doc: 'host(s) trusted without valid HTTPS' },
    { name: 'no_cache_dir', type: 'bool', default: false, doc: "disable pip's cache" },
    { name: 'cache_dir', type: 'string', doc: "pip's cache directory" },
    { name: 'no_binary', type: 'any', doc: 'packages not to install from wheels' },
    { name: 'extra_args', type: 'list', doc: 'further pip options: strings or one-key maps' },
    { name: 'use_wheel', type: 'bool', default: false, doc: 'accepted (pip uses wheels by default)' },
    { name: 'no_use_wheel', type: 'bool', default: false, doc: 'accepted; use no_binary instead' },
    { name: 'use_vt', type: 'bool', default: false, doc: 'accepted; output is captured' },
    { name: 'reload_modules', type: 'bool', default: false, doc: 'accepted; brine has no Python modules to reload' },
  ],
  example: 'django:\n  pip.installed:\n    - name: django >= 1.6, <= 1.7\n    - bin_env: /srv/venvs/app',
  run: async (ctx, { named: a }): Promise<StateResult> => {
    const pkgs = a.pkgs && a.pkgs.length > 0 ? a.pkgs.map((p) => (typeof p === 'object' && p !== null ? Object.entries(p).map(([k, v]) => `${k} ${String(v)}`)[0]! : String(p))) : [a.name];
    const name = pkgs.join(';');
    const ret = (result: boolean | null, comment: string, changes: Record<string, unknown> = {}): StateResult => ({ name, result, comment, changes });
    const binEnv = a.bin_env ?? a.pip_bin ?? a.env;
    const pip = await PipRunner.open({ fun: 'pip.installed', binEnv, user: a.user, cwd: a.cwd, envVars: a.env_vars, signal: ctx.exec.signal });
    // Salt: "Error installing '<name>': <pip.version's error>"
    if ('error' in pip) return ret(false, `Error installing '${a.name}': ${pip.error}`);
    const byFile = Boolean(a.requirements || a.editable);
    // salt:// requirements files are fetched first (Salt's pip.install caches them).
    let requirements: unknown = a.requirements;
    if (typeof a.requirements === 'string' && a.requirements.startsWith('salt://') && !ctx.test) {
      requirements = await localCopy(ctx, a.requirements);
      if (requirements === undefined) return ret(false, `Unable to process requirements file "${a.requirements}". Error: the file could not be fetched from the file server`);
    }
    const details: { prefix: string; pkg: string; spec: VersionSpec }[] = [];
    if (!byFile) {
      const errors: string[] = [];
      for (const pkg of pkgs) {
        const p = parseRequirement(pkg);
        if ('error' in p) errors.push(p.error);
        else details.push({ prefix: p.prefix, pkg, spec: p.versionSpec });
      }
      if (errors.length > 0) return ret(false, errors.join('\n'));
    }
    const targets: { prefix: string; pkg: string }[] = [];
    const already: string[] = [];
    if (byFile) {
      if (ctx.test) {
        const c: string[] = [];
        if (a.requirements) c.push(`Requirements file '${String(a.requirements)}' will be processed.`);
        if (a.editable) c.push(`Package will be installed in editable mode (i.e. setuptools "develop mode") from ${String(a.editable)}.`);
        return ret(null, c.join(' '));
      }
    } else {
      for (const d of details) {
        let installed = false;
        if (d.prefix) {
          let list: Map<string, string>;
          try {
            list = await pip.list();
          } catch (err) {
            return ret(false, `Error installing '${d.pkg}': ${errorMessage(err)}`);
          }
          const key = findKey(list, d.prefix);
          installed = !a.ignore_installed && key !== undefined && !a.force_reinstall && !a.upgrade && fulfills(list.get(key)!, d.spec);
        }
        if (installed) already.push(`Python package ${d.pkg} was already installed`);
        else {
          targets.push({ prefix: d.prefix, pkg: d.pkg });
          if (ctx.test) return ret(null, `Python package ${d.pkg} is set to be installed`);
        }
      }
      if (targets.length === 0) return ret(true, [...already, 'All specified packages are already installed'].join('\n'));
    }
    const r = await pip.run([...installArgs({ ...a, requirements }), ...targets.map((t) => t.pkg)]);
    const aicomms = already.join('\n');
    if (r.retcode !== 0) {
      const error = `Error: ${r.stdout} ${r.stderr}`;
      if (byFile) {
        const c: string[] = [];
        if (a.requirements) c.push(`Unable to process requirements file "${String(a.requirements)}".`);
        if (a.editable) c.push(`Unable to install from VCS checkout${String(a.editable)}.`);
        return ret(false, [...c, error].join(' '));
      }
      return ret(false, `${aicomms}${aicomms ? '\n' : ''}Failed to install packages: ${targets.map((t) => t.pkg).join(', ')}. ${error}`);
    }
    const changes: Record<string, unknown> = {};
    if (byFile) {
      const c: string[] = [];
      if (a.requirements) {
        // Salt counts any output line but these as a change made by the requirements file.
        const quiet = ['Requirement already satisfied', 'Requirement already up-to-date', 'Requirement not upgraded', 'Collecting', 'Cloning', 'Cleaning up...', 'Looking in indexes'];
        if (r.stdout.split('\n').some((l) => !quiet.some((q) => l.trim().startsWith(q)))) changes.requirements = true;
        c.push(changes.requirements ? `Successfully processed requirements file ${String(a.requirements)}.` : 'Requirements were already installed.');
      }
      if (a.editable) {
        c.push(`Package successfully installed from VCS checkout ${String(a.editable)}.`);
        changes.editable = true;
      }
      return ret(true, c.join(' '), changes);
    }
    const upToDate = new Set(
      r.stdout
        .split('\n')
        .filter((l) => l.startsWith('Requirement already up-to-date: '))
        .map((l) => (l.split(':', 2)[1] ?? '').trim().split(/\s+/)[0]!.toLowerCase()),
    );
    const missing: string[] = [];
    const after = await pip.list();
    for (const t of targets) {
      if (!t.prefix) {
        changes[`${t.pkg}==???`] = 'Installed';
        continue;
      }
      const key = findKey(after, t.prefix);
      if (key === undefined) missing.push(`There was no error installing package '${t.pkg}' although it does not show when calling 'pip.freeze'.`);
      else if (!upToDate.has(key.toLowerCase())) changes[`${key}==${after.get(key)}`] = 'Installed';
    }
    const succ = missing.length === 0 ? 'All packages were successfully installed' : missing.join('\n');
    return ret(true, `${aicomms}${aicomms ? '\n' : ''}${succ}`, changes);
  },
});
