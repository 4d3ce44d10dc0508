// Runs pip for the pip and virtualenv states as Salt's salt/modules/pip.py does: which pip
// (`bin_env` a virtualenv directory or a pip program; otherwise python3 -m pip), the install
// command line built from the state's arguments, and `pip list` / `pip freeze` read back.

import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolveRunas } from '../../modules/cmd-module.js';
import { which } from '../../modules/host-tools.js';
import { type ProcessResult, runProcess } from '../../modules/process-runner.js';

export interface PipOptions {
  fun: string;
  binEnv?: string | undefined;
  user?: string | undefined;
  cwd?: string | undefined;
  envVars?: Record<string, unknown> | undefined;
  signal?: AbortSignal | undefined;
}

const executable = (p: string): boolean => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The argv prefix that runs pip, or Salt's error (salt/modules/pip.py _get_pip_bin): a virtualenv
 * directory runs its python (`python`, `bin/python` or `Scripts/python`) with -m pip; an
 * executable file runs as -m pip when its name holds "python", else as pip itself.
 */
export function pipCommand(binEnv: string | undefined): string[] | { error: string } {
  if (binEnv) {
    if (statSync(binEnv, { throwIfNoEntry: false })?.isDirectory()) {
      for (const py of ['python', 'bin/python', 'Scripts/python'].map((rel) => path.join(binEnv, rel))) {
        if (statSync(py, { throwIfNoEntry: false })?.isFile() && executable(py)) return [path.normalize(py), '-m', 'pip'];
      }
      // a directory holding only a pip program (no python) still works in brine
      const pip = path.join(binEnv, 'bin', 'pip');
      if (existsSync(pip)) return [pip];
      return { error: `Could not find a pip binary in virtualenv ${binEnv}` };
    }
    if (!executable(binEnv)) return { error: `Access denied to ${binEnv}, could not find a pip binary` };
    if (!statSync(binEnv).isFile()) return { error: `Could not find a pip binary within ${binEnv}` };
    return path.basename(binEnv).includes('python') ? [path.normalize(binEnv), '-m', 'pip'] : [path.normalize(binEnv)];
  }
  const python = which('python3') ?? which('python');
  if (!python) return { error: 'Neither python3 nor pip is installed on this minion; install python3-pip first (pkg.installed: python3-pip)' };
  return [python, '-m', 'pip'];
}

export class PipRunner {
  private constructor(
    private readonly argv0: string[],
    private readonly opts: PipOptions,
    private readonly ids: { uid: number; gid: number; home: string } | undefined,
  ) {}

  static async open(opts: PipOptions): Promise<PipRunner | { error: string }> {
    const cmd = pipCommand(opts.binEnv);
    if ('error' in cmd) return cmd;
    const runas = opts.user ? await resolveRunas(opts.fun, opts.user) : undefined;
    return new PipRunner(cmd, opts, runas);
  }

  run(args: readonly string[]): Promise<ProcessResult> {
    const env: Record<string, string> = { PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1' };
    for (const [k, v] of Object.entries(this.opts.envVars ?? {})) env[k] = typeof v === 'string' ? v : String(v);
    if (this.ids) env.HOME = this.ids.home;
    return runProcess({
      argv: [...this.argv0, ...args],
      label: this.opts.fun,
      rstrip: true,
      env,
      ...(this.opts.cwd ? { cwd: this.opts.cwd } : {}),
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
      ...(this.ids ? { uid: this.ids.uid, gid: this.ids.gid } : {}),
    });
  }

  /** Salt's pip.list: installed project name → version. Throws with pip's message when pip fails. */
  async list(): Promise<Map<string, string>> {
    const r = await this.run(['list', '--format=json']);
    if (r.retcode !== 0) throw new Error((r.stderr || r.stdout).trim() || `pip list exited with ${r.retcode}`);
    const out = new Map<string, string>();
    for (const p of JSON.parse(r.stdout || '[]') as { name: string; version: string }[]) out.set(p.name, p.version);
    return out;
  }

  /** Salt's pip.freeze (with --all, as Salt passes for pip >= 8.0.3): `name==version` lines. */
  async freeze(): Promise<string[]> {
    const r = await this.run(['freeze', '--all']);
    if (r.retcode !== 0) throw new Error((r.stderr || r.stdout).trim() || `pip freeze exited with ${r.retcode}`);
    return r.stdout.split('\n').filter((l) => l.trim() !== '');
  }
}

const asList = (v: unknown): string[] => (v === undefined || v === null || v === false ? [] : Array.isArray(v) ? v.map(String) : String(v).split(','));

/** The `pip install` options Salt's pip.install builds from the state's arguments. */
export function installArgs(a: Record<string, unknown>): string[] {
  const args: string[] = ['install'];
  for (const r of asList(a.requirements)) args.push('--requirement', r);
  for (const l of asList(a.find_links)) args.push('--find-links', l);
  if (a.index_url) args.push('--index-url', String(a.index_url));
  for (const u of asList(a.extra_index_url)) args.push('--extra-index-url', u);
  if (a.no_index) args.push('--no-index');
  if (a.log) args.push('--log', String(a.log));
  if (a.proxy) args.push('--proxy', String(a.proxy));
  if (a.timeout !== undefined && a.timeout !== null) args.push('--timeout', String(a.timeout));
  if (a.target) args.push('--target', String(a.target));
  if (a.download) args.push('--download', String(a.download));
  if (a.source) args.push('--src', String(a.source));
  if (a.upgrade) args.push('--upgrade');
  if (a.force_reinstall) args.push('--force-reinstall');
  if (a.ignore_installed) args.push('--ignore-installed');
  if (a.exists_action) args.push('--exists-action', String(a.exists_action));
  if (a.no_deps) args.push('--no-deps');
  for (const o of asList(a.install_options)) args.push('--install-option', o);
  for (const o of asList(a.global_options)) args.push('--global-option', o);
  if (a.pre_releases) args.push('--pre');
  if (a.cert) args.push('--cert', String(a.cert));
  for (const h of asList(a.trusted_host)) args.push('--trusted-host', h);
  if (a.no_cache_dir) args.push('--no-cache-dir');
  if (a.cache_dir) args.push('--cache-dir', String(a.cache_dir));
  if (a.no_binary) args.push('--no-binary', asList(a.no_binary).join(','));
  for (const e of asList(a.editable)) args.push('--editable', e);
  // extra_args: a list of strings or one-key maps ({--opt: value}), as Salt accepts.
  for (const item of Array.isArray(a.extra_args) ? a.extra_args : []) {
    if (typeof item === 'object' && item !== null) {
      for (const [k, v] of Object.entries(item)) args.push(k, ...(v === null || v === undefined ? [] : [String(v)]));
    } else args.push(String(item));
  }
  return args;
}
