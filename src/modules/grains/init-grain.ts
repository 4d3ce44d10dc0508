// Salt's init grain (salt/grains/core.py, os_data): `systemd` when /run/systemd/system exists;
// else PID 1's command line decides. A PID 1 that is `.../bin/init` is named by what its bytes
// mention (upstart, sysvinit or systemd, first found, read in file_buffer_size chunks: a
// /sbin/init that links to systemd says systemd); otherwise supervisord, dumb-init or tini when
// the command line holds that program's path as `which` finds it, runit for `runit` alone or
// Phusion's /sbin/my_init; anything else is `unknown`. Salt names no other init system here
// (OpenRC's PID 1 is sysvinit's /sbin/init).

import { access, readFile } from 'node:fs/promises';
import { closeSync, openSync, readSync } from 'node:fs';
import { whichExecutable } from '../salt-which.js';

/** What the rules read of the host. */
export interface InitProbe {
  /** /run/systemd/system exists. */
  systemdDir: boolean;
  /** /proc/1/cmdline as read (NUL-separated words); undefined when it cannot be read. */
  pid1Cmdline: string | undefined;
  /** salt.utils.path.which: the path of an executable, or null. */
  which(name: string): string | null;
  /** The init system a `bin/init` program's bytes name (initNamedIn), or undefined. */
  named(file: string): string | undefined;
}

/** Searched for in a `bin/init` program, in this order within each chunk. */
const NAMED_INITS = ['upstart', 'sysvinit', 'systemd'] as const;

/** The init grain by Salt's rules. */
export function initGrain(p: InitProbe): string {
  if (p.systemdDir) return 'systemd';
  if (p.pid1Cmdline === undefined) return 'unknown';
  // Python's str.split(): runs of whitespace, none at the ends
  const cmdline = p.pid1Cmdline
    .replaceAll('\0', ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
  const bin = cmdline[0] === undefined ? null : p.which(cmdline[0]);
  if (bin?.endsWith('bin/init')) return p.named(bin) ?? 'unknown';
  for (const name of ['supervisord', 'dumb-init', 'tini']) {
    const found = p.which(name);
    if (found !== null && cmdline.includes(found)) return name;
  }
  if (cmdline.length === 1 && cmdline[0] === 'runit') return 'runit';
  if (cmdline.includes('/sbin/my_init')) return 'runit';
  return 'unknown';
}

/**
 * The first of upstart, sysvinit, systemd in a file's lowercased bytes, read `chunkSize` at a
 * time with the last 7 bytes of each chunk kept before the next (a name across the boundary is
 * found); undefined when none is, or the file cannot be read.
 */
export function initNamedIn(file: string, chunkSize = 262144): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  const edgeLength = Math.max(...NAMED_INITS.map((n) => n.length)) - 1;
  try {
    const chunk = Buffer.alloc(Math.max(chunkSize, 1));
    let edge = '';
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return undefined;
      // latin1: one character per byte, so the ASCII names match wherever they are
      const text = edge + chunk.toString('latin1', 0, n).toLowerCase();
      for (const name of NAMED_INITS) if (text.includes(name)) return name;
      edge = text.slice(-edgeLength);
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** This host's probe: /run/systemd/system, /proc/1/cmdline, PATH and the program's bytes. */
export async function hostInitProbe(chunkSize?: number): Promise<InitProbe> {
  const [pid1Cmdline, systemdDir] = await Promise.all([
    readFile('/proc/1/cmdline', 'utf8').catch(() => undefined),
    access('/run/systemd/system').then(
      () => true,
      () => false,
    ),
  ]);
  return { systemdDir, pid1Cmdline, which: whichExecutable, named: (file) => initNamedIn(file, chunkSize) };
}
