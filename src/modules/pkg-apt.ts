// The apt backend of the `pkg` module: dpkg-query for what is installed, apt-get to change it,
// apt-cache policy for candidates. Always non-interactive, always argv arrays.

import { runArgv, runChecked } from './host-tools.js';
import type { InstallOptions, PkgBackend, UpgradeOptions } from './pkg-backend.js';

// Salt's apt environment: no debconf questions, no listchanges/listbugs pagers.
const APT_ENV = { DEBIAN_FRONTEND: 'noninteractive', APT_LISTBUGS_FRONTEND: 'none', APT_LISTCHANGES_FRONTEND: 'none' };
// Keep locally changed config files without asking (Salt's default for install).
const CONF_OPTS = ['-o', 'DPkg::Options::=--force-confold', '-o', 'DPkg::Options::=--force-confdef'];

export function createAptBackend(): PkgBackend {
  let nativeArch: string | undefined;
  const arch = async (label: string, signal: AbortSignal): Promise<string> => {
    nativeArch ??= (await runChecked(label, ['dpkg', '--print-architecture'], { signal })).stdout.trim();
    return nativeArch;
  };
  const query = async (label: string, signal: AbortSignal, keep: (status: string) => boolean): Promise<Map<string, string[]>> => {
    const native = await arch(label, signal);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${field} format
    const r = await runChecked(label, ['dpkg-query', '-W', '--showformat=${Status}\t${Package}\t${Version}\t${Architecture}\n'], { signal });
    const out = new Map<string, string[]>();
    for (const line of r.stdout.split('\n')) {
      const [status, name, version, pkgArch] = line.split('\t');
      if (!status || !name || !version || !keep(status)) continue;
      // A foreign-architecture package is listed as name:arch, as Salt does.
      const key = pkgArch && pkgArch !== 'all' && pkgArch !== native ? `${name}:${pkgArch}` : name;
      out.set(key, [...(out.get(key) ?? []), version]);
    }
    return out;
  };
  return {
    name: 'apt',
    async listPkgs(label, signal) {
      // Only fully installed packages (or held ones), as Salt lists them.
      return query(label, signal, (status) => / installed$/.test(status) && /^(install|hold) /.test(status));
    },
    async listRemoved(label, signal) {
      return query(label, signal, (status) => / config-files$/.test(status));
    },
    async refresh(label, signal) {
      await runChecked(label, ['apt-get', '-q', 'update'], { signal, env: APT_ENV });
    },
    async install(label, targets, opts: InstallOptions, signal) {
      if (opts.refresh) await this.refresh(label, signal);
      const argv = ['apt-get', '-q', '-y', ...CONF_OPTS];
      if (opts.fromrepo) argv.push('-t', opts.fromrepo);
      argv.push('install');
      if (opts.reinstall) argv.push('--reinstall');
      if (opts.installRecommends !== undefined) argv.push(opts.installRecommends ? '--install-recommends' : '--no-install-recommends');
      argv.push('--', ...targets.map((t) => (t.version ? `${t.name}=${t.version}` : t.name)));
      await runChecked(label, argv, { signal, env: APT_ENV });
    },
    async installFiles(label, files, signal) {
      // Salt's aptpkg.install with sources: dpkg -i --force-confold (dependencies are not fetched)
      await runChecked(label, ['dpkg', '-i', '--force-confold', '--', ...files], { signal, env: APT_ENV });
    },
    async remove(label, names, signal) {
      await runChecked(label, ['apt-get', '-q', '-y', 'remove', '--', ...names], { signal, env: APT_ENV });
    },
    async purge(label, names, signal) {
      await runChecked(label, ['apt-get', '-q', '-y', 'purge', '--', ...names], { signal, env: APT_ENV });
    },
    async latestVersion(label, name, signal) {
      const r = await runChecked(label, ['apt-cache', '-q', 'policy', '--', name], { signal, env: APT_ENV });
      const installed = /^\s*Installed:\s*(\S+)/m.exec(r.stdout)?.[1];
      const candidate = /^\s*Candidate:\s*(\S+)/m.exec(r.stdout)?.[1];
      if (!candidate || candidate === '(none)') return '';
      if (!installed || installed === '(none)') return candidate;
      // Only a newer candidate counts; a locally newer or pinned-down version is "up to date".
      const newer = await runArgv(label, ['dpkg', '--compare-versions', installed, 'lt', candidate], { signal });
      return newer.retcode === 0 ? candidate : '';
    },
    async listUpgrades(label, opts: UpgradeOptions, signal) {
      const argv = ['apt-get', '--just-print', opts.dist ? 'dist-upgrade' : 'upgrade'];
      if (opts.fromrepo) argv.push('-o', `APT::Default-Release=${opts.fromrepo}`);
      const r = await runChecked(label, argv, { signal, env: APT_ENV });
      // Salt reads the "Conf name (version ...)" lines of the simulation.
      return new Map([...r.stdout.matchAll(/^Conf (\S+) \((\S+)/gm)].map((m) => [m[1]!, m[2]!]));
    },
    async upgrade(label, opts, signal) {
      const conf = opts.forceConfNew ? ['-o', 'DPkg::Options::=--force-confnew'] : CONF_OPTS;
      const argv = ['apt-get', '-q', '-y', ...conf];
      if (opts.fromrepo) argv.push('-t', opts.fromrepo);
      // Named packages: upgrade those only, never install one that is missing.
      if (opts.names?.length) argv.push('install', '--only-upgrade', '--', ...opts.names);
      else argv.push(opts.dist ? 'dist-upgrade' : 'upgrade');
      await runChecked(label, argv, { signal, env: APT_ENV });
    },
  };
}
