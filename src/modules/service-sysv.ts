// Salt's linux_service, the fallback `service` module of a Linux host that is neither booted with
// systemd nor of a family with its own module: the scripts in /etc/init.d (/etc/rc.d on Arch)
// run directly, a service is "running" when a process matching its name (or `sig`) is in ps, and
// nothing says what starts at boot (Salt's module has no enable, disable, enabled or disabled).

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { globToRegExp, hasGlob } from './glob.js';
import { runArgv } from './host-tools.js';
import { type InitService, type InitVerb, notProvided, pidsMatching, scriptName } from './service-init.js';

/** linux_service's _GRAINMAP: where the scripts are when it is not /etc/init.d. */
const SCRIPT_DIRS: Readonly<Record<string, string>> = { Arch: 'etc/rc.d', 'Arch ARM': 'etc/rc.d' };

export class SysvService implements InitService {
  readonly provider = 'linux_service';
  private readonly root: string;
  private readonly os: () => string;

  /** `root`: the tree whose etc/init.d is read and run ('/' by default; a temp dir in tests). */
  constructor(opts: { root?: string; os: () => string }) {
    this.root = opts.root ?? '/';
    this.os = opts.os;
  }

  private dir(): string {
    return path.join(this.root, SCRIPT_DIRS[this.os()] ?? 'etc/init.d');
  }

  private script(fun: string, name: string): string {
    const s = scriptName(fun, name);
    // the name becomes a path: '.' and '..' would name a directory, never a script
    if (s === '.' || s === '..') throw new BrineError('BAD_ARGUMENTS', `${fun}: '${name}' is not a service name; give the name of a script in ${this.dir()}`);
    return path.join(this.dir(), s);
  }

  /** `<dir>/<name> <verb>`, true when it exits 0 (Salt's service.run). */
  async run(fun: string, name: string, verb: InitVerb): Promise<boolean> {
    const script = this.script(fun, name);
    // a script that is missing or not executable is false, as Salt's cmd.retcode makes it
    return runArgv(fun, [script, verb]).then(
      (r) => r.retcode === 0,
      () => false,
    );
  }

  /** Salt's linux_service.status: status.pid of the name (or sig), the pids one per line, '' when none. */
  async status(fun: string, name: string, sig?: string): Promise<string | Record<string, string>> {
    const pids = async (pattern: string): Promise<string> => (await pidsMatching(fun, pattern)).join('\n');
    if (sig) return pids(sig);
    scriptName(fun, name, hasGlob(name));
    if (!hasGlob(name)) return pids(name);
    const re = globToRegExp(name);
    const out: Record<string, string> = {};
    for (const s of (await this.getAll()).filter((n) => re.test(n))) out[s] = await pids(s);
    return out;
  }

  /** Every entry of the script directory, sorted (Salt's os.listdir: README and dot files too). */
  async getAll(): Promise<string[]> {
    try {
      return readdirSync(this.dir()).sort();
    } catch {
      return [];
    }
  }

  async available(fun: string, name: string): Promise<boolean> {
    return (await this.getAll()).includes(scriptName(fun, name));
  }

  enabled(fun: string): Promise<boolean> {
    return Promise.reject(notProvided(fun, this.provider));
  }
  disabled(fun: string): Promise<boolean> {
    return Promise.reject(notProvided(fun, this.provider));
  }
  enable(fun: string): Promise<boolean> {
    return Promise.reject(notProvided(fun, this.provider));
  }
  disable(fun: string): Promise<boolean> {
    return Promise.reject(notProvided(fun, this.provider));
  }
  getEnabled(fun: string): Promise<string[]> {
    return Promise.reject(notProvided(fun, this.provider));
  }
  getDisabled(fun: string): Promise<string[]> {
    return Promise.reject(notProvided(fun, this.provider));
  }
}
