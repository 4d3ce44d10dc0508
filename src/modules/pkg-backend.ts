// What the `pkg` module needs from a package manager, and the detection of the one this host
// has (apt with dpkg, or dnf with rpm), decided by which programs exist.

import { BrineError } from '../util/errors.js';
import { which } from './host-tools.js';

export interface InstallOptions {
  refresh: boolean;
  fromrepo?: string;
  reinstall: boolean;
  /** false: leave out recommended (apt) / weak (dnf) dependencies; undefined: the host's default. */
  installRecommends?: boolean;
  /** dnf only (apt has no per-call repository switches, and Salt's aptpkg ignores these too). */
  enablerepo?: string;
  disablerepo?: string;
}

export interface PkgBackend {
  readonly name: 'apt' | 'dnf';
  /** Installed packages: name → version (several versions joined by ',', as Salt does). */
  listPkgs(label: string, signal: AbortSignal): Promise<Map<string, string[]>>;
  refresh(label: string, signal: AbortSignal): Promise<void>;
  /** targets are `name` or `name=version` (apt) / `name-version` (dnf), already validated. */
  install(label: string, targets: readonly { name: string; version?: string }[], opts: InstallOptions, signal: AbortSignal): Promise<void>;
  /** Installs package files (.deb with dpkg -i, .rpm with dnf), already local and validated. */
  installFiles?(label: string, files: readonly string[], signal: AbortSignal): Promise<void>;
  remove(label: string, names: readonly string[], signal: AbortSignal): Promise<void>;
  /** Packages removed but not purged (apt's config-files state): name → version. dnf has none. */
  listRemoved(label: string, signal: AbortSignal): Promise<Map<string, string[]>>;
  /** Remove with configuration files (apt purge; dnf has no separate purge and removes). */
  purge(label: string, names: readonly string[], signal: AbortSignal): Promise<void>;
  /** The newest available version if it is newer than the installed one, else ''. */
  latestVersion(label: string, name: string, signal: AbortSignal): Promise<string>;
  /** Packages an upgrade would change: name → the version it would bring (Salt's list_upgrades). */
  listUpgrades(label: string, opts: UpgradeOptions, signal: AbortSignal): Promise<Map<string, string>>;
  /** Upgrades everything (or only `names`, already installed and validated). */
  upgrade(label: string, opts: UpgradeOptions & { names?: readonly string[]; forceConfNew?: boolean }, signal: AbortSignal): Promise<void>;
}

export interface UpgradeOptions {
  /** apt: dist-upgrade (may add and remove packages) instead of upgrade; dnf ignores it. */
  dist: boolean;
  fromrepo?: string;
}

export interface BackendFactories {
  apt: () => PkgBackend;
  dnf: () => PkgBackend;
}

export function detectBackend(label: string, factories: BackendFactories): PkgBackend {
  if (which('apt-get') && which('dpkg-query')) return factories.apt();
  if (which('dnf') && which('rpm')) return factories.dnf();
  throw new BrineError(
    'EXEC_FAILED',
    `${label}: no supported package manager on this host (neither apt-get with dpkg-query nor dnf with rpm is on PATH); brine's pkg module supports Debian/Ubuntu (apt) and Fedora/RHEL (dnf) — use cmd.run with this host's package tool`,
  );
}

// Debian and RPM package names, plus the characters of versions; never a leading '-'.
export const PKG_NAME = /^[A-Za-z0-9][A-Za-z0-9+._:@~-]*$/;
export const PKG_VERSION = /^[A-Za-z0-9][A-Za-z0-9+._:~-]*$/;
