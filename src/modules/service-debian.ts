// Salt's debian_service: services of a Debian host not booted with systemd are the scripts in
// /etc/init.d, run with `service <name> <verb>`; "enabled" means an S link in /etc/rc<level>.d
// (or rcS.d), which `update-rc.d` writes. Each function answers as Salt's does: true/false from
// the command's exit code, never an error for a script that fails.

import path from 'node:path';
import { runArgv, which } from './host-tools.js';
import { currentRunlevel, type InitService, type InitVerb, listDir, scriptName, scriptStatus } from './service-init.js';

export interface DebianServiceOptions {
  /** The root whose etc/init.d and etc/rc?.d are read ('/' by default; a temp dir in tests). */
  root?: string;
}

export class DebianService implements InitService {
  readonly provider = 'debian_service';
  private readonly root: string;

  constructor(opts: DebianServiceOptions = {}) {
    this.root = opts.root ?? '/';
  }

  /** service.get_enabled: the names of the S links in rcS.d and rc<runlevel>.d, sorted. */
  async getEnabled(fun: string): Promise<string[]> {
    const level = await currentRunlevel(fun, '2');
    const names = new Set<string>();
    for (const dir of ['S', level]) {
      for (const link of listDir(path.join(this.root, 'etc', `rc${dir}.d`))) {
        // S<two digits><script>; Salt 3007 splits on every digit run, which drops a trailing
        // one (apache2 -> ''): brine strips the prefix only (docs/states.md, differences)
        const m = /^S\d+(.+)$/.exec(link);
        if (m?.[1]) names.add(m[1]);
      }
    }
    return [...names].sort();
  }

  /** service.get_all: every script in /etc/init.d but README, and every enabled name. */
  async getAll(fun: string): Promise<string[]> {
    const all = new Set(listDir(path.join(this.root, 'etc', 'init.d')).filter((f) => f !== 'README'));
    for (const name of await this.getEnabled(fun)) all.add(name);
    return [...all].sort();
  }

  async getDisabled(fun: string): Promise<string[]> {
    const enabled = new Set(await this.getEnabled(fun));
    return (await this.getAll(fun)).filter((n) => !enabled.has(n));
  }

  async available(fun: string, name: string): Promise<boolean> {
    return (await this.getAll(fun)).includes(scriptName(fun, name));
  }

  async enabled(fun: string, name: string): Promise<boolean> {
    return (await this.getEnabled(fun)).includes(scriptName(fun, name));
  }

  async disabled(fun: string, name: string): Promise<boolean> {
    return (await this.getDisabled(fun)).includes(scriptName(fun, name));
  }

  /** start, stop, restart, reload, force-reload: `service <name> <verb>`, true when it exits 0. */
  async run(fun: string, name: string, verb: InitVerb): Promise<boolean> {
    return (await runArgv(fun, ['service', scriptName(fun, name), verb])).retcode === 0;
  }

  /** service.status: the script's status verb; a glob maps every matching service; `sig` looks in ps instead. */
  status(fun: string, name: string, sig?: string): Promise<boolean | Record<string, boolean>> {
    return scriptStatus(this, fun, name, sig);
  }

  /**
   * service.enable. Salt runs `insserv <name> && update-rc.d <name> enable`; Debian 12 no longer
   * installs insserv, and update-rc.d's `defaults` writes the same links without it, so brine
   * uses insserv where it is installed and `update-rc.d <name> defaults` where it is not.
   */
  async enable(fun: string, name: string): Promise<boolean> {
    const script = scriptName(fun, name);
    const links = which('insserv') ? ['insserv', script] : ['update-rc.d', script, 'defaults'];
    if ((await runArgv(fun, links)).retcode !== 0) return false;
    return (await runArgv(fun, ['update-rc.d', script, 'enable'])).retcode === 0;
  }

  async disable(fun: string, name: string): Promise<boolean> {
    return (await runArgv(fun, ['update-rc.d', scriptName(fun, name), 'disable'])).retcode === 0;
  }
}
