// Which service manager answers `service.*` on this host, decided as Salt's loader decides among
// the modules whose virtual name is `service`: systemd_service when the host was booted with
// systemd; without it debian_service on Debian and its derivatives, rh_service on the Red Hat
// family releases that predate systemd, and linux_service (the plain /etc/init.d scripts) on any
// other Linux whose init is sysvinit or unknown. A pure decision, so the states and the module
// functions take the same one.

import type { Grains } from './types.js';

/** The `os` grains whose debian_service.__virtual__ loads (salt/modules/debian_service.py). */
export const DEBIAN_SERVICE_OS: ReadonlySet<string> = new Set(['Debian', 'Raspbian', 'Devuan', 'NILinuxRT']);

/** The `os` grains rh_service.__virtual__ accepts (salt/modules/rh_service.py), before its release checks. */
const RH_SERVICE_OS: ReadonlySet<string> = new Set([
  'XenServer',
  'XCP-ng',
  'RedHat',
  'CentOS',
  'ScientificLinux',
  'CloudLinux',
  'Amazon',
  'Fedora',
  'ALT',
  'OEL',
  'SUSE  Enterprise Server',
  'SUSE',
  'McAfee  OS Server',
  'VirtuozzoLinux',
]);
/** Red Hat's family members that moved to systemd at release 7 (rh_service refuses them from there). */
const RH_SYSTEMD_AT_7: ReadonlySet<string> = new Set(['RedHat', 'CentOS', 'ScientificLinux', 'OEL', 'CloudLinux']);

/** The `os` grains linux_service.__virtual__ leaves to their own service module (salt/modules/linux_service.py). */
const LINUX_SERVICE_DISABLED: ReadonlySet<string> = new Set([
  'RedHat',
  'CentOS',
  'Amazon',
  'ScientificLinux',
  'CloudLinux',
  'Fedora',
  'Gentoo',
  'Ubuntu',
  'Debian',
  'Devuan',
  'ALT',
  'OEL',
  'Linaro',
  'elementary OS',
  'McAfee  OS Server',
  'Raspbian',
  'SUSE',
  'Slackware',
]);

export type ServiceBackend = { kind: 'systemd' } | { kind: 'debian' } | { kind: 'rh' } | { kind: 'sysv' } | { kind: 'unsupported'; os: string; reason: string };

/** What the decision needs to know about the host; `booted` is sd_booted(): /run/systemd/system exists. */
export interface ServiceHost {
  grains: Grains;
  booted: boolean;
}

const grain = (g: Grains, key: string): string => (typeof g[key] === 'string' ? (g[key] as string) : '');

function releaseMajor(g: Grains): number {
  const info = g.osrelease_info;
  if (Array.isArray(info) && typeof info[0] === 'number') return info[0];
  const major = Number.parseInt(String(g.osrelease ?? ''), 10);
  return Number.isNaN(major) ? 0 : major;
}

/** rh_service.__virtual__ once systemd is ruled out: undefined when it loads, else Salt's reason. */
function rhRefusal(g: Grains): string | undefined {
  const os = grain(g, 'os');
  if (os === 'SUSE') return String(g.osrelease ?? '').startsWith('11') ? undefined : 'Cannot load rh_service module on SUSE > 11';
  const major = releaseMajor(g);
  if ((os === 'XenServer' || os === 'XCP-ng') && major >= 7) return 'XenServer and XCP-ng >= 7 use systemd';
  if (os === 'Fedora' && major >= 15) return 'Fedora >= 15 uses systemd';
  if (RH_SYSTEMD_AT_7.has(os) && major >= 7) return 'RedHat-based distros >= version 7 use systemd';
  return undefined;
}

export function selectServiceBackend(host: ServiceHost): ServiceBackend {
  if (host.booted) return { kind: 'systemd' };
  const g = host.grains;
  const os = grain(g, 'os');
  if (DEBIAN_SERVICE_OS.has(os)) return { kind: 'debian' };
  if (RH_SERVICE_OS.has(os)) {
    const refusal = rhRefusal(g);
    if (refusal === undefined) return { kind: 'rh' };
    return { kind: 'unsupported', os, reason: `${refusal}, and systemd is not running` };
  }
  if (LINUX_SERVICE_DISABLED.has(os)) return { kind: 'unsupported', os, reason: `Salt's service module for ${os} (upstart, OpenRC, ...) is not implemented in brine` };
  // kernel and init are grains the caller may not have: a missing one does not refuse, as in Salt
  const kernel = grain(g, 'kernel') || 'Linux';
  if (kernel !== 'Linux') return { kind: 'unsupported', os: os || 'unknown', reason: `the kernel is ${kernel}, not Linux` };
  const init = grain(g, 'init');
  if (init !== '' && init !== 'sysvinit' && init !== 'unknown') return { kind: 'unsupported', os: os || 'unknown', reason: `the minion is running ${init}` };
  return { kind: 'sysv' };
}

/**
 * Salt's salt.utils.systemd.offline (3004+): not booted with systemd, but systemctl is installed
 * (a chroot, an image build, a container whose systemd package came in as a dependency). Salt
 * then loads systemd_service as well, and its service states do nothing: "Running in OFFLINE mode".
 */
export function systemdOffline(host: { grains: Grains; booted: boolean; systemctlInstalled: boolean }): boolean {
  // systemd_service.__virtual__ also wants kernel Linux (a grain the caller may not have: assume it)
  const linux = (host.grains.kernel ?? 'Linux') === 'Linux';
  return linux && !host.booted && host.systemctlInstalled;
}
