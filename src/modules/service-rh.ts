// Salt's rh_service for the Red Hat family releases that predate systemd (RHEL/CentOS 6, Amazon
// Linux 1, ...): scripts in /etc/init.d run with `service <name> <verb>`, the boot setting read
// and changed with `chkconfig` (`--list`, `--add`, `on`, `off`), and an S link in
// /etc/rc.d/rc<runlevel>.d counting as enabled where chkconfig does not know the script.
// Upstart jobs (RHEL 6's /etc/init/*.conf) are not driven (docs/states.md, differences).

import { statSync } from 'node:fs';
import path from 'node:path';
import { runArgv } from './host-tools.js';
import { currentRunlevel, type InitService, type InitVerb, listDir, scriptName, scriptStatus } from './service-init.js';

/** Red Hat's default runlevel, which Salt assumes where `runlevel` says unknown (a kickstart, a container). */
const RH_DEFAULT_RUNLEVEL = '3';

export class RhService implements InitService {
  readonly provider = 'rh_service';
  private readonly root: string;

  /** `root`: the tree whose etc/init.d and etc/rc.d are read ('/' by default; a temp dir in tests). */
  constructor(opts: { root?: string } = {}) {
    this.root = opts.root ?? '/';
  }

  /** _service_is_sysv: an executable (by its owner) script in /etc/init.d. */
  private isSysv(name: string): boolean {
    try {
      return (statSync(path.join(this.root, 'etc', 'init.d', name)).mode & 0o100) !== 0;
    } catch {
      return false;
    }
  }

  private async chkconfig(fun: string, args: string[]): Promise<{ retcode: number; stdout: string }> {
    // a host without chkconfig answers as Salt's failed /sbin/chkconfig call does: not zero
    const r = await runArgv(fun, ['chkconfig', ...args]).catch(() => ({ retcode: 127, stdout: '' }));
    return { retcode: r.retcode, stdout: r.stdout };
  }

  private async isChkconfig(fun: string, name: string): Promise<boolean> {
    return (await this.chkconfig(fun, ['--list', name])).retcode === 0;
  }

  /** _sysv_is_enabled: chkconfig's `<level>:on` (or an xinetd service's `on`), else an S link in rc<level>.d. */
  private async isEnabled(fun: string, name: string, level?: string): Promise<boolean> {
    const lvl = level ?? (await currentRunlevel(fun, RH_DEFAULT_RUNLEVEL));
    const r = await this.chkconfig(fun, ['--list', name]);
    if (r.retcode === 0) {
      for (const row of r.stdout.split('\n')) {
        const cols = row.trim().split(/\s+/);
        if (row.includes(`${lvl}:on`) ? cols[0] === name : cols.length === 2 && cols[0] === name && cols[1] === 'on') return true;
      }
    }
    return listDir(path.join(this.root, 'etc', 'rc.d', `rc${lvl}.d`)).some((l) => /^S..(.+)$/.exec(l)?.[1] === name);
  }

  async run(fun: string, name: string, verb: InitVerb): Promise<boolean> {
    return (await runArgv(fun, ['service', scriptName(fun, name), verb])).retcode === 0;
  }

  status(fun: string, name: string, sig?: string): Promise<boolean | Record<string, boolean>> {
    return scriptStatus(this, fun, name, sig);
  }

  /** _sysv_services: what `chkconfig --list` lists with run levels, that has a script. */
  async getAll(fun: string): Promise<string[]> {
    const r = await this.chkconfig(fun, ['--list']);
    const names = r.stdout.split('\n').flatMap((l) => {
      const [name, first] = l.trim().split(/\s+/);
      return name && first?.startsWith('0:') ? [name] : [];
    });
    return [...new Set(names.filter((n) => this.isSysv(n)))].sort();
  }

  async getEnabled(fun: string): Promise<string[]> {
    const level = await currentRunlevel(fun, RH_DEFAULT_RUNLEVEL);
    const out: string[] = [];
    for (const n of await this.getAll(fun)) if (await this.isEnabled(fun, n, level)) out.push(n);
    return out;
  }

  async getDisabled(fun: string): Promise<string[]> {
    const enabled = new Set(await this.getEnabled(fun));
    return (await this.getAll(fun)).filter((n) => !enabled.has(n));
  }

  async available(fun: string, name: string): Promise<boolean> {
    const s = scriptName(fun, name);
    return this.isSysv(s) || (await this.isChkconfig(fun, s));
  }

  async enabled(fun: string, name: string): Promise<boolean> {
    return this.isEnabled(fun, scriptName(fun, name));
  }

  async disabled(fun: string, name: string): Promise<boolean> {
    return !(await this.isEnabled(fun, scriptName(fun, name)));
  }

  /** _sysv_enable / _sysv_disable: `chkconfig --add` first for a script chkconfig does not know yet. */
  private async toggle(fun: string, name: string, on: boolean): Promise<boolean> {
    const s = scriptName(fun, name);
    if (!(await this.isChkconfig(fun, s)) && (await this.chkconfig(fun, ['--add', s])).retcode !== 0) return false;
    return (await this.chkconfig(fun, [s, on ? 'on' : 'off'])).retcode === 0;
  }

  enable(fun: string, name: string): Promise<boolean> {
    return this.toggle(fun, name, true);
  }

  disable(fun: string, name: string): Promise<boolean> {
    return this.toggle(fun, name, false);
  }
}
