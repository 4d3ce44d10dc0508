// libc calls that Node has no API for (setsockopt for TCP options, getsockopt for SO_PEERCRED,
// mallopt and malloc_trim), through ffi-rs: the binding net-keepalive already ships with. Opened once.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The few ffi-rs calls brine makes. */
export interface Ffi {
  open(opts: { library: string; path: string }): void;
  load(opts: Record<string, unknown>): { value: number; errnoCode: number };
  createPointer(opts: { paramsType: unknown[]; paramsValue: unknown[] }): unknown[];
  restorePointer(opts: { retType: unknown[]; paramsValue: unknown[] }): unknown[];
  DataType: { I32: unknown; U8Array: unknown; External: unknown };
}

const require = createRequire(import.meta.url);
/** The name brine's calls give the process's own libc in ffi-rs. */
export const LIBC = 'brine_libc';

let ffi: Ffi | undefined;

/** Whether this process runs on glibc: its dynamic loader is ld-linux (musl's is ld-musl). */
export function onGlibc(maps: string = readMaps()): boolean {
  return /\/ld-linux[-\w.]*\.so/.test(maps) && !/\/ld-musl-/.test(maps);
}

function readMaps(): string {
  try {
    return readFileSync('/proc/self/maps', 'utf8');
  } catch {
    return '';
  }
}

/**
 * ffi-rs's index.js picks its glibc or musl binding by `process.report.getReport()`, a whole
 * diagnostic report (every handle, library and variable, as JSON) made once: +1.6 MiB of RSS that
 * an idle minion kept (issue 27, thinmin, bench/README.md). When /proc/self/maps already shows
 * glibc's loader, it is given that answer instead, with process.report put back at once; anywhere
 * else it asks as before.
 */
function requireFfi(): Ffi {
  const desc = Object.getOwnPropertyDescriptor(process, 'report');
  if (process.platform !== 'linux' || desc?.configurable !== true || !onGlibc()) return require('ffi-rs') as Ffi;
  const answer = { getReport: () => ({ header: { glibcVersionRuntime: 'glibc (ld-linux in /proc/self/maps)' } }) };
  Object.defineProperty(process, 'report', { configurable: true, enumerable: desc.enumerable, value: answer });
  try {
    return require('ffi-rs') as Ffi;
  } finally {
    Object.defineProperty(process, 'report', desc);
  }
}

export function libc(): Ffi {
  if (ffi === undefined) {
    const loaded = requireFfi();
    // an empty path opens the process itself, where libc's setsockopt and getsockopt already live
    loaded.open({ library: LIBC, path: '' });
    ffi = loaded;
  }
  return ffi;
}

/** libc's `int funcName(int, ...)` called with `args` (mallopt, malloc_trim): what it returned. */
export function callIntFunction(funcName: string, ...args: number[]): number {
  const f = libc();
  const { value } = f.load({ library: LIBC, funcName, retType: f.DataType.I32, paramsType: args.map(() => f.DataType.I32), paramsValue: args, errno: true });
  return value;
}
