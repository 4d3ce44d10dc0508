// Collects the minion's core grains (id, host, OS, kernel, addresses, machine id here; versions,
// interfaces, gateways, dns, virtual, systemd, hardware ... in grains/extra-core-grains.ts) with
// Salt's names and units; `grains:` from the minion config is laid over the top. docs/grains.md.

import { lookup, lookupService } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { osDetailGrains } from './os-detail-grains.js';
import { hostInitProbe, initGrain, type InitProbe } from './grains/init-grain.js';
import { osGrainsFrom, parseOsRelease } from './os-release.js';
import { type CoreGrainOptions, extraCoreGrains } from './grains/extra-core-grains.js';
import { within } from './grains/fqdn-grains.js';
import type { Grains } from './types.js';
import { BRINE_VERSION } from './version.js';

export interface CollectGrainsOptions {
  id: string;
  /** `grains:` from the minion config; wins over core grains. */
  configGrains?: Record<string, unknown>;
  /** For tests; default /etc/os-release then /usr/lib/os-release. */
  osReleasePaths?: readonly string[];
  /** For tests; default /etc/lsb-release. */
  lsbReleasePaths?: readonly string[];
  /** For tests: what the init grain reads of the host (default: this host's). */
  initProbe?: InitProbe;
  /** For tests; default /etc/machine-id then /var/lib/dbus/machine-id. */
  machineIdPaths?: readonly string[];
  /** Bound on the name lookup for `fqdn`; a slow resolver must not delay start-up. */
  fqdnTimeoutMs?: number;
  /** The minion options some grains read (master, cachedir for the probe cache, server_id_use_crc ...). */
  config?: CoreGrainOptions;
}

// Node's process.arch → `uname -m`, for runtimes without os.machine().
const UNAME_ARCH = new Map([
  ['x64', 'x86_64'],
  ['arm64', 'aarch64'],
  ['ia32', 'i686'],
  ['arm', 'armv7l'],
  ['ppc64', 'ppc64le'],
  ['s390x', 's390x'],
]);

async function firstReadable(paths: readonly string[]): Promise<string | undefined> {
  for (const p of paths) {
    const text = await readFile(p, 'utf8').catch(() => undefined);
    if (text !== undefined && text.trim() !== '') return text;
  }
  return undefined;
}

function cpuarch(): string {
  const machine = typeof os.machine === 'function' ? os.machine() : '';
  return machine !== '' ? machine : (UNAME_ARCH.get(process.arch) ?? process.arch);
}

/** Like Python's socket.getfqdn: the resolver's name for this host if it is dotted. */
async function resolveFqdn(hostname: string, timeoutMs: number): Promise<string> {
  if (hostname.includes('.')) return hostname;
  const attempt = (async () => {
    const { address } = await lookup(hostname);
    const { hostname: name } = await lookupService(address, 0);
    return name;
  })();
  const name = await within(timeoutMs, attempt, undefined);
  return name?.includes('.') && name.split('.')[0] === hostname ? name : hostname;
}

/** All addresses of one family, loopback included, de-duplicated and sorted like Salt's. */
function addresses(family: 4 | 6): string[] {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      // String(): some Node 18 releases reported the family as a number.
      const f = String(a.family) === 'IPv4' || String(a.family) === '4' ? 4 : 6;
      if (f === family) out.add(a.address);
    }
  }
  return [...out].sort();
}

export async function collectGrains(opts: CollectGrainsOptions): Promise<Grains> {
  const nodename = os.hostname();
  const [osRelease, lsbRelease, machineId, fqdn, init] = await Promise.all([
    firstReadable(opts.osReleasePaths ?? ['/etc/os-release', '/usr/lib/os-release']),
    firstReadable(opts.lsbReleasePaths ?? ['/etc/lsb-release']),
    firstReadable(opts.machineIdPaths ?? ['/etc/machine-id', '/var/lib/dbus/machine-id']),
    resolveFqdn(nodename, opts.fqdnTimeoutMs ?? 2000),
    opts.initProbe ?? hostInitProbe(typeof opts.config?.file_buffer_size === 'number' ? opts.config.file_buffer_size : undefined),
  ]);
  const dot = fqdn.indexOf('.');
  const osFields = osRelease === undefined ? undefined : parseOsRelease(osRelease);
  const base = osGrainsFrom(osFields, os.type());
  const arch = cpuarch();
  const core: Record<string, unknown> = {
    id: opts.id,
    // As in Salt, host and domain are the two halves of fqdn.
    host: dot > 0 ? fqdn.slice(0, dot) : fqdn,
    nodename,
    localhost: nodename,
    fqdn,
    domain: dot > 0 ? fqdn.slice(dot + 1) : '',
    ...base,
    ...osDetailGrains({ base, osRelease: osFields, lsbRelease: lsbRelease === undefined ? undefined : parseOsRelease(lsbRelease), cpuarch: arch }),
    kernel: os.type(),
    kernelrelease: os.release(),
    cpuarch: arch,
    init: initGrain(init),
    // Salt's path and shell grains: the minion's environment
    path: process.env.PATH ?? '',
    shell: process.env.SHELL ?? '/bin/sh',
    num_cpus: os.cpus().length || os.availableParallelism(),
    ipv4: addresses(4),
    ipv6: addresses(6),
    brine_version: BRINE_VERSION,
  };
  Object.assign(core, await extraCoreGrains({ id: opts.id, fqdn, ipv4: core.ipv4 as string[], ipv6: core.ipv6 as string[], config: opts.config ?? {}, lookupTimeoutMs: opts.fqdnTimeoutMs ?? 2000 }));
  // Salt leaves the grain out when the host has no machine id.
  if (machineId !== undefined) core.machine_id = machineId.trim();
  return { ...core, ...(opts.configGrains ?? {}) };
}
