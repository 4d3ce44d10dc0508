// The `status` module: uptime, loadavg, meminfo, diskusage and cpuinfo, read from /proc and
// statfs in the shapes Salt's status module returns on Linux.

import { readFile, statfs } from 'node:fs/promises';
import os from 'node:os';
import { BrineError, errorMessage } from '../util/errors.js';
import { globToRegExp } from './glob.js';
import { runArgv, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

async function readProc(fun: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new BrineError('EXEC_FAILED', `${fun}: cannot read ${file}; ${fun} needs a Linux /proc (mount proc inside the container)`, { cause: err });
  }
}

async function uptime(): Promise<Record<string, unknown>> {
  const fun = 'status.uptime';
  const now = Date.now() / 1000;
  const seconds = Math.floor(Number((await readProc(fun, '/proc/uptime')).split(/\s+/)[0]));
  if (!Number.isFinite(seconds)) throw new BrineError('EXEC_FAILED', `${fun}: /proc/uptime does not start with a number`);
  const boot = new Date((now - seconds) * 1000);
  const rest = seconds % 86400;
  const ret: Record<string, unknown> = {
    seconds,
    // Salt prints a naive UTC timestamp (no zone suffix).
    since_iso: boot.toISOString().replace(/Z$/, ''),
    since_t: Math.floor(now - seconds),
    days: Math.floor(seconds / 86400),
    time: `${Math.floor(rest / 3600)}:${Math.floor((rest % 3600) / 60)}`,
  };
  if (which('who')) {
    const r = await runArgv(fun, ['who', '-s']);
    if (r.retcode === 0) ret.users = r.stdout.split('\n').filter((l) => l.trim() !== '').length;
  }
  return ret;
}

/** {key: {value, unit}} per /proc/meminfo line, values as text as Salt returns them. */
export function parseMeminfo(text: string): Record<string, { value: string; unit?: string }> {
  const out = new Map<string, { value: string; unit?: string }>();
  for (const line of text.split('\n')) {
    const comps = line.trim().split(/\s+/);
    if (comps.length < 2 || comps[0] === '') continue;
    const entry: { value: string; unit?: string } = { value: comps[1]! };
    if (comps[2] !== undefined) entry.unit = comps[2];
    out.set(comps[0]!.replace(':', ''), entry);
  }
  return Object.fromEntries(out);
}

/** Salt's linux cpuinfo: `key: value` per line, flags split into a list; later CPUs overwrite earlier ones. */
export function parseCpuinfo(text: string): Record<string, unknown> {
  const out = new Map<string, unknown>();
  for (const line of text.split('\n')) {
    const idx = line.indexOf(':');
    if (line.trim() === '' || idx < 0) continue;
    const key = line.slice(0, idx).trim();
    const value = line.slice(idx + 1);
    out.set(
      key,
      key === 'flags'
        ? value
            .trim()
            .split(/\s+/)
            .filter((f) => f !== '')
        : value.trim(),
    );
  }
  return Object.fromEntries(out);
}

interface Mount {
  device: string;
  mountpoint: string;
  fstype: string;
}

/** /proc/mounts with the kernel's octal escapes (\040 for a space) decoded. */
function parseMounts(text: string): Mount[] {
  const unescapeOctal = (s: string): string => s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
  return text
    .split('\n')
    .map((l) => l.split(' '))
    .filter((c) => c.length >= 3)
    .map((c) => ({ device: unescapeOctal(c[0]!), mountpoint: unescapeOctal(c[1]!), fstype: c[2]! }));
}

async function diskusage(args: readonly unknown[]): Promise<Record<string, unknown>> {
  const fun = 'status.diskusage';
  const mounts = parseMounts(await readProc(fun, '/proc/mounts'));
  const selected = new Set<string>();
  const fstypes: RegExp[] = [];
  if (args.length === 0) fstypes.push(/^/);
  for (const raw of args) {
    const a = String(raw);
    if (a.startsWith('/')) selected.add(a);
    else fstypes.push(globToRegExp(a));
  }
  for (const m of mounts) if (fstypes.some((re) => re.test(m.fstype))) selected.add(m.mountpoint);

  const out = new Map<string, Record<string, unknown>>();
  for (const p of [...selected].sort()) {
    let s: Awaited<ReturnType<typeof statfs>>;
    try {
      s = await statfs(p);
    } catch (err) {
      // A mount that vanished or is not readable (fuse of another user) is skipped when picked
      // by type; a path the caller named must be reported.
      if (args.includes(p)) throw new BrineError('EXEC_FAILED', `${fun}: cannot stat filesystem at ${p}: ${errorMessage(err)}`, { cause: err });
      continue;
    }
    const total = s.blocks * s.bsize;
    const available = s.bavail * s.bsize;
    const used = (s.blocks - s.bfree) * s.bsize;
    // The mount holding p: the longest mount point that is a prefix of it.
    const mount = mounts.filter((m) => p === m.mountpoint || p.startsWith(m.mountpoint.endsWith('/') ? m.mountpoint : `${m.mountpoint}/`)).sort((x, y) => y.mountpoint.length - x.mountpoint.length)[0];
    // df's capacity: used / (used + available), rounded up.
    const capacity = used + available === 0 ? 0 : Math.ceil((used * 100) / (used + available));
    out.set(p, { available, total, used, capacity: `${capacity}%`, filesystem: mount?.device ?? '', fstype: mount?.fstype ?? '' });
  }
  return Object.fromEntries(out);
}

export const statusFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'status.uptime',
    doc: 'Return {seconds, since_iso, since_t, days, time, users}: how long the host has been up and who is logged in.',
    params: [],
    run: () => uptime(),
  }),
  defineFunction({
    name: 'status.loadavg',
    doc: "Return the load averages as {'1-min', '5-min', '15-min'}.",
    params: [],
    run: () => {
      const [one, five, fifteen] = os.loadavg();
      return { '1-min': one, '5-min': five, '15-min': fifteen };
    },
  }),
  defineFunction({
    name: 'status.meminfo',
    doc: 'Return /proc/meminfo as {key: {value, unit}}.',
    params: [],
    run: async () => parseMeminfo(await readProc('status.meminfo', '/proc/meminfo')),
  }),
  defineFunction({
    name: 'status.diskusage',
    doc: "Return {mount: {available, total, used, capacity, filesystem, fstype}} in bytes, for all mounts or the given paths and fstype globs ('/', 'ext?').",
    params: [],
    varargs: true,
    run: (_ctx, a) => diskusage(a.rest),
  }),
  defineFunction({
    name: 'status.cpuinfo',
    doc: "Return /proc/cpuinfo as {key: value}, with 'flags' as a list.",
    params: [],
    run: async () => parseCpuinfo(await readProc('status.cpuinfo', '/proc/cpuinfo')),
  }),
];
