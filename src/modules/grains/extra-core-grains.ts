// The rest of Salt's core grains on Linux (issue 22: trees branch on them), gathered in one
// pass: files under /proc and /sys, two cached program probes (python3, systemctl) and bounded
// name lookups, all in parallel. Each grain's source and shape is listed in docs/grains.md.

import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { which } from '../host-tools.js';
import { interfaces } from '../network-interfaces.js';
import { fqdnGrains } from './fqdn-grains.js';
import { gpuGrains, pciDevices } from './gpu-grains.js';
import { cpuGrains, diskGrains, dmiGrains, efiGrains, memGrains, zfsSupport } from './hardware-grains.js';
import { localeInfoGrain } from './locale-grain.js';
import { kernelGrains } from './kernel-grains.js';
import { gatewayGrains, interfaceGrains } from './network-grains.js';
import { masterGrain, processGrains, serverId } from './process-grains.js';
import { ProgramProbes, probeCacheFile } from './program-probe.js';
import { dnsGrain } from './resolv-grain.js';
import { readSelinuxGrain, systemdGrain } from './system-grains.js';
import { pythonFacts, pythonProbe, saltVersionGrains } from './version-grains.js';
import { readVirtualFacts, virtualGrains } from './virtual-grain.js';

/** The minion options these grains read (Salt's names). */
export interface CoreGrainOptions {
  master?: unknown;
  cachedir?: unknown;
  server_id_use_crc?: unknown;
  enable_fqdns_grains?: unknown;
  enable_gpu_grains?: unknown;
  /** The chunk the init grain reads a `bin/init` program in (Salt's file_buffer_size). */
  file_buffer_size?: unknown;
}

export interface ExtraGrainsInput {
  id: string;
  fqdn: string;
  ipv4: readonly string[];
  ipv6: readonly string[];
  config: CoreGrainOptions;
  /** Bound on each name lookup. */
  lookupTimeoutMs: number;
}

async function readText(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}

export async function extraCoreGrains(i: ExtraGrainsInput): Promise<Record<string, unknown>> {
  const cachedir = typeof i.config.cachedir === 'string' && i.config.cachedir !== '' ? i.config.cachedir : undefined;
  const probes = new ProgramProbes(cachedir === undefined ? undefined : probeCacheFile(cachedir));
  const hasSystemd = which('systemctl') !== undefined && which('localectl') !== undefined;
  const [pythonOut, systemd, fqdn, cpuinfo, meminfo, cmdline] = await Promise.all([
    probes.run(pythonProbe()),
    hasSystemd ? probes.run({ program: 'systemctl', args: ['--version'] }) : Promise.resolve(undefined),
    fqdnGrains({ fqdn: i.fqdn, ipv4: i.ipv4, ipv6: i.ipv6, enableFqdns: i.config.enable_fqdns_grains !== false, timeoutMs: i.lookupTimeoutMs }),
    readText('/proc/cpuinfo'),
    readText('/proc/meminfo'),
    readText('/proc/cmdline'),
  ]);
  probes.save();
  const python = pythonFacts(pythonOut);
  const mem = memGrains(meminfo);
  const cpu = cpuGrains(cpuinfo);
  return {
    ...saltVersionGrains(),
    ...python.grains,
    ...fqdn,
    ...interfaceGrains(interfaces()),
    ...gatewayGrains(which('ip') !== undefined),
    ...dnsGrain(),
    ...virtualGrains(readVirtualFacts()),
    ...(hasSystemd ? { systemd: systemdGrain(systemd) } : {}),
    ...readSelinuxGrain(which('selinuxenabled') !== undefined, which('getenforce') !== undefined),
    ...processGrains(),
    ...localeInfoGrain(),
    ...kernelGrains(cmdline, which('transactional-update') !== undefined),
    cpu_model: cpu.cpu_model,
    cpu_flags: cpu.cpu_flags,
    // MemTotal is what os.totalmem() reads too; it is the fallback where /proc is not mounted
    mem_total: mem.mem_total || Math.floor(os.totalmem() / (1024 * 1024)),
    swap_total: mem.swap_total,
    server_id: serverId(i.id, i.config.server_id_use_crc),
    kernelversion: os.version(),
    // salt/grains/core.py path() and cwd(), and _ps's command for Linux
    systempath: (process.env.PATH ?? '').trim().split(':'),
    cwd: process.cwd(),
    ps: 'ps -efHww',
    ...dmiGrains(),
    ...diskGrains(),
    ...(i.config.enable_gpu_grains === false ? { num_gpus: 0, gpus: [] } : gpuGrains(pciDevices())),
    ...efiGrains(),
    zfs_support: zfsSupport(which('zpool') !== undefined, which('zfs-fuse') !== undefined),
    ...masterGrain(i.config.master),
  };
}
