// libc's socket calls that Node has no API for (setsockopt for TCP options, getsockopt for
// SO_PEERCRED), through ffi-rs: the binding net-keepalive already ships with. Opened once.

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

export function libc(): Ffi {
  if (ffi === undefined) {
    const loaded = require('ffi-rs') as Ffi;
    // an empty path opens the process itself, where libc's setsockopt and getsockopt already live
    loaded.open({ library: LIBC, path: '' });
    ffi = loaded;
  }
  return ffi;
}
