// Salt's systemd grain ({version, features} from `systemctl --version`, through the probe cache)
// and selinux grain ({enabled, enforced}, which Salt gets from selinuxenabled/getenforce and
// brine reads from selinuxfs, where those two programs read it).

import { readHostFile } from './read-host-file.js';
import type { ProbeOutput } from './program-probe.js';

/** Pure: Salt's _systemd over `systemctl --version`'s output ('UNDEFINED'/'' when it says something else). */
export function systemdGrain(probe: ProbeOutput | undefined): { version: string; features: string } {
  const lines = probe?.retcode === 0 ? probe.stdout.split('\n') : [];
  if (lines[0]?.startsWith('systemd ') && lines.length > 1) return { version: lines[0].split(/\s+/)[1] ?? 'UNDEFINED', features: lines[1] ?? '' };
  return { version: 'UNDEFINED', features: '' };
}

/**
 * Pure: Salt's _selinux. enabled is selinuxenabled's answer (selinuxfs mounted with a policy:
 * its `enforce` file exists); enforced is getenforce's word, present when getenforce is installed.
 */
export function selinuxGrain(enforceFile: string | undefined, hasGetenforce: boolean): { enabled: boolean; enforced?: string } {
  const enabled = enforceFile !== undefined;
  if (!hasGetenforce) return { enabled };
  const enforced = !enabled ? 'Disabled' : enforceFile.trim() === '1' ? 'Enforcing' : 'Permissive';
  return { enabled, enforced };
}

/** The selinux grain of this host; Salt reports it only when selinuxenabled is installed. */
export function readSelinuxGrain(hasSelinuxenabled: boolean, hasGetenforce: boolean, mount = '/sys/fs/selinux'): Record<string, unknown> {
  if (!hasSelinuxenabled) return {};
  return { selinux: selinuxGrain(readHostFile(`${mount}/enforce`), hasGetenforce) };
}
