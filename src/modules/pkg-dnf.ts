// The dnf backend of the `pkg` module: rpm for what is installed, dnf to change it and to find
// the newest available version. Argv arrays only.

import { runArgv, runChecked } from './host-tools.js';
import type { InstallOptions, PkgBackend } from './pkg-backend.js';

/** epoch:version-release, the epoch left out when it is 0, as Salt's yumpkg prints versions. */
function evr(epoch: string, version: string, release: string): string {
  const e = epoch === '' || epoch === '0' || epoch === '(none)' ? '' : `${epoch}:`;
  return `${e}${version}-${release}`;
}

export function createDnfBackend(): PkgBackend {
  return {
    name: 'dnf',
    async listPkgs(label, signal) {
      const r = await runChecked(label, ['rpm', '-qa', '--queryformat', '%{NAME}\t%{EPOCHNUM}\t%{VERSION}\t%{RELEASE}\n'], { signal });
      const out = new Map<string, string[]>();
      for (const line of r.stdout.split('\n')) {
        const [name, epoch, version, release] = line.split('\t');
        if (!name || !version || release === undefined) continue;
        out.set(name, [...(out.get(name) ?? []), evr(epoch ?? '', version, release)]);
      }
      return out;
    },
    async listRemoved() {
      return new Map<string, string[]>();
    },
    async refresh(label, signal) {
      await runChecked(label, ['dnf', '-q', '-y', 'makecache', '--refresh'], { signal });
    },
    async install(label, targets, opts: InstallOptions, signal) {
      const argv = ['dnf', '-y'];
      if (opts.refresh) argv.push('--refresh');
      if (opts.fromrepo) argv.push('--disablerepo=*', `--enablerepo=${opts.fromrepo}`);
      if (opts.disablerepo) argv.push(`--disablerepo=${opts.disablerepo}`);
      if (opts.enablerepo) argv.push(`--enablerepo=${opts.enablerepo}`);
      if (opts.installRecommends !== undefined) argv.push(`--setopt=install_weak_deps=${opts.installRecommends ? 'True' : 'False'}`);
      argv.push(opts.reinstall ? 'reinstall' : 'install', '--', ...targets.map((t) => (t.version ? `${t.name}-${t.version}` : t.name)));
      await runChecked(label, argv, { signal });
    },
    async installFiles(label, files, signal) {
      await runChecked(label, ['dnf', '-y', 'install', '--', ...files], { signal });
    },
    async remove(label, names, signal) {
      await runChecked(label, ['dnf', '-y', 'remove', '--', ...names], { signal });
    },
    async purge(label, names, signal) {
      await this.remove(label, names, signal);
    },
    async latestVersion(label, name, signal) {
      const r = await runArgv(label, ['dnf', '-q', 'repoquery', '--latest-limit=1', '--queryformat', '%{epoch}\t%{version}\t%{release}\n', '--', name], { signal });
      const [epoch, version, release] = (r.stdout.trim().split('\n').pop() ?? '').split('\t');
      if (r.retcode !== 0 || !version || release === undefined) return '';
      const candidate = evr(epoch ?? '', version, release);
      const installed = (await this.listPkgs(label, signal)).get(name) ?? [];
      return installed.includes(candidate) ? '' : candidate;
    },
    async listUpgrades(label, opts, signal) {
      const argv = ['dnf', '-q', 'check-update'];
      if (opts.fromrepo) argv.push('--disablerepo=*', `--enablerepo=${opts.fromrepo}`);
      // check-update exits 100 when there are updates, 0 when there are none.
      const r = await runArgv(label, argv, { signal });
      if (r.retcode !== 0 && r.retcode !== 100) await runChecked(label, argv, { signal });
      const out = new Map<string, string>();
      for (const line of r.stdout.split('\n')) {
        const m = /^(\S+)\.[^.\s]+\s+(\S+)\s+\S+$/.exec(line.trim());
        if (m) out.set(m[1]!, m[2]!);
      }
      return out;
    },
    async upgrade(label, opts, signal) {
      const argv = ['dnf', '-y'];
      if (opts.fromrepo) argv.push('--disablerepo=*', `--enablerepo=${opts.fromrepo}`);
      argv.push('upgrade', ...(opts.names?.length ? ['--', ...opts.names] : []));
      await runChecked(label, argv, { signal });
    },
  };
}
