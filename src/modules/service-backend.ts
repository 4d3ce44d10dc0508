// Which service manager answers `service.*` on this host, decided as Salt's loader decides it:
// systemd_service when the host was booted with systemd, debian_service (init.d scripts run by
// `service`, boot links by `update-rc.d`) on Debian and its derivatives without it. A pure
// decision, so the states and the module functions take the same one.

import type { Grains } from './types.js';

/** The `os` grains whose debian_service.__virtual__ loads (salt/modules/debian_service.py). */
export const DEBIAN_SERVICE_OS: ReadonlySet<string> = new Set(['Debian', 'Raspbian', 'Devuan', 'NILinuxRT']);

export type ServiceBackend = { kind: 'systemd' } | { kind: 'debian' } | { kind: 'unsupported'; os: string };

/** What the decision needs to know about the host; `booted` is sd_booted(): /run/systemd/system exists. */
export interface ServiceHost {
  grains: Grains;
  booted: boolean;
}

export function selectServiceBackend(host: ServiceHost): ServiceBackend {
  if (host.booted) return { kind: 'systemd' };
  const os = typeof host.grains.os === 'string' ? host.grains.os : '';
  if (DEBIAN_SERVICE_OS.has(os)) return { kind: 'debian' };
  return { kind: 'unsupported', os: os || 'unknown' };
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
