// npm.installed / npm.removed: node packages installed globally or into a directory, through the npm CLI as
// Salt's salt/modules/npm.py drives it (`npm list --json --depth=0`, `npm install --json`), with
// Salt 3007's comments and changes (salt/states/npm.py installed, removed). npm missing fails the state
// naming the Debian package.

import { which } from '../../modules/host-tools.js';
import { runProcess } from '../../modules/process-runner.js';
import { findUser, readPasswd } from '../../modules/user-db.js';
import { defineState, type StateFunction, type StateResult } from '../types.js';
import { envMapping } from './cmd-states.js';
import { failingSoftly, stateResult } from './state-result.js';
import { errorMessage } from '../../util/errors.js';

interface NpmRun {
  dir?: string;
  user?: string;
  env?: Record<string, string>;
}

async function npm(args: string[], o: NpmRun): Promise<{ retcode: number; stdout: string; stderr: string }> {
  if (!which('npm')) throw new Error('npm is not installed on this minion; install it first (pkg.installed: npm)');
  let ids: { uid?: number; gid?: number } = {};
  if (o.user) {
    const u = findUser(await readPasswd('npm'), o.user);
    if (!u) throw new Error(`User ${o.user} does not exist`);
    ids = { uid: u.uid, gid: u.gid };
  }
  return runProcess({ argv: ['npm', ...args], label: 'npm', cwd: o.dir, env: o.env, rstrip: true, ...ids });
}

/** Salt's npm.list with depth 0: name -> {version, from, ...}. */
async function listInstalled(o: NpmRun): Promise<Record<string, { version?: string; from?: string }>> {
  const r = await npm(['list', '--json', '--silent', ...(o.dir ? [] : ['--global']), '--depth=0'], o);
  // npm exits 1 both for "nothing found" and for errors; Salt raises only when stderr says something
  if (r.retcode !== 0 && r.stderr.trim() !== '') throw new Error(r.stderr.trim());
  const parsed = JSON.parse(r.stdout || '{}') as { dependencies?: Record<string, { version?: string; from?: string }> };
  return parsed.dependencies ?? {};
}

/** Salt's _pkg_is_installed: by name with a version, or by the URL it came from. */
function isInstalled(name: string, installed: Record<string, { version?: string; from?: string }>): boolean {
  if (installed[name]?.version !== undefined) return true;
  if (!name.includes('://')) return false;
  return Object.values(installed).some((d) => {
    let from = (d.from ?? '').split('://')[1];
    if (from === undefined) return false;
    if (!from.endsWith('.git') && name.startsWith('git://')) from += '.git';
    return name.split('://')[1] === from;
  });
}

async function installed(name: string, a: { pkgs?: unknown[]; dir?: string; user?: string; force_reinstall: boolean; registry?: string; env?: unknown }, test: boolean): Promise<StateResult> {
  const pkgList = a.pkgs && a.pkgs.length > 0 ? a.pkgs.map(String) : [name];
  const env = envMapping(a.env);
  const o: NpmRun = { dir: a.dir, user: a.user, env: env ? Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) : undefined };
  let have: Record<string, { version?: string; from?: string }>;
  try {
    have = await listInstalled(o);
  } catch (err) {
    return stateResult(name, false, `Error looking up '${name}': ${errorMessage(err)}`);
  }
  const satisfied: string[] = [];
  const toInstall: string[] = [];
  for (const pkg of pkgList) {
    // Salt's pattern: @scope/name@range, name@1.0.1, name
    const m = /^(@?[^@\s]+)(?:@(\S+))?/.exec(pkg);
    const pkgName = m?.[1] ?? pkg;
    const pkgVer = m?.[2];
    if (a.force_reinstall || !isInstalled(pkgName, have)) {
      toInstall.push(pkg);
      continue;
    }
    const version = have[pkgName]?.version;
    if (pkgVer !== undefined && version !== pkgVer) toInstall.push(pkg);
    else satisfied.push(`${pkgName}@${version}`);
  }
  const satisfiedText = `Package(s) '${pkgList.join(', ')}' satisfied by ${satisfied.join(', ')}`;
  if (test) {
    const comments: string[] = [];
    let ret = stateResult(name, null, '');
    if (toInstall.length > 0) {
      comments.push(`NPM package(s) '${toInstall.join(', ')}' are set to be installed`);
      ret = { ...ret, changes: { old: [], new: toInstall } };
    }
    if (satisfied.length > 0) {
      comments.push(satisfiedText);
      ret.result = true;
    }
    return { ...ret, comment: comments.join('. ') };
  }
  if (toInstall.length === 0) return stateResult(name, true, satisfiedText);
  // Salt installs the whole list again, not only the missing ones
  const args = ['install', '--json', '--silent', ...(a.dir ? [] : ['--global']), ...(a.registry ? [`--registry=${a.registry}`] : []), ...pkgList];
  const r = await npm(args, o);
  if (r.retcode !== 0) return stateResult(name, false, `Error installing '${pkgList.join(', ')}': ${r.stderr.trim() || r.stdout.trim()}`);
  return stateResult(name, true, `Package(s) '${toInstall.join(', ')}' successfully installed`, { old: [], new: toInstall });
}

export const npmInstalled: StateFunction = failingSoftly(
  defineState({
    name: 'npm.installed',
    doc: 'Make sure node packages are installed with npm, globally or into a directory.',
    params: [
      { name: 'name', type: 'string', required: true, doc: "a package, 'name@version' or '@scope/name', or a URL" },
      { name: 'pkgs', type: 'list', doc: 'several packages (name is then only the state ID)' },
      { name: 'dir', type: 'string', doc: 'install into this directory (its node_modules) instead of globally' },
      { name: 'user', type: 'string', doc: 'run npm as this user' },
      { name: 'force_reinstall', type: 'bool', default: false, doc: 'install even when already installed' },
      { name: 'registry', type: 'string', doc: 'the npm registry URL to install from' },
      { name: 'env', type: 'any', doc: 'environment variables for npm: a mapping or a list of one-key mappings' },
    ],
    example: 'coffee-script:\n  npm.installed:\n    - dir: /srv/app',
    run: (ctx, a) => installed(a.named.name, a.named, ctx.test),
  }),
);

/** Salt's npm.removed: lists without user or env (as Salt does), uninstalls as the user. */
async function removed(name: string, a: { dir?: string; user?: string }, test: boolean): Promise<StateResult> {
  let have: Record<string, unknown>;
  try {
    have = await listInstalled({ dir: a.dir });
  } catch (err) {
    return stateResult(name, false, `Error uninstalling '${name}': ${errorMessage(err)}`);
  }
  if (!(name in have)) return stateResult(name, true, `Package '${name}' is not installed`);
  if (test) return stateResult(name, null, `Package '${name}' is set to be removed`);
  const r = await npm(['uninstall', '--silent', ...(a.dir ? [] : ['--global']), name], { dir: a.dir, user: a.user });
  if (r.retcode !== 0) return stateResult(name, false, `Error removing package '${name}'`);
  return stateResult(name, true, `Package '${name}' was successfully removed`, { [name]: 'Removed' });
}

export const npmRemoved: StateFunction = failingSoftly(
  defineState({
    name: 'npm.removed',
    doc: 'Make sure a node package is not installed (globally or in a directory).',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the package' },
      { name: 'dir', type: 'string', doc: 'the directory it was installed into (default: global)' },
      { name: 'user', type: 'string', doc: 'run npm as this user' },
    ],
    example: 'coffee-script:\n  npm.removed:\n    - dir: /srv/app',
    run: (ctx, a) => removed(a.named.name, a.named, ctx.test),
  }),
);
