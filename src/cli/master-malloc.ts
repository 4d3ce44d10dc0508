// The master's glibc malloc setting (issue 27, enrolmem): every allocation of 32 KiB or more gets
// its own mmap instead of a place in the main heap, set once at `brine master` start through
// mallopt(M_MMAP_THRESHOLD) (ffi-rs, the binding socket-options already loads).
//
// Why: each TLS connection keeps Node's read ring (32 KiB buffers) and write-ring buffers
// (16 KiB) for life, mostly untouched. In the heap they are allocated during a first enrolment
// between the many short-lived allocations of full handshakes, signatures, key files and
// presence writes; once those are freed, the heap's pages stay resident with a few live chunks
// each (fragmentation: 4-27 KiB of [heap] a minion more than after a restart, bench/README.md
// "natmem").
// Mmapped, a buffer's untouched pages are never resident and a freed one goes back to the kernel
// at once. Same effect as GLIBC_TUNABLES=glibc.malloc.mmap_threshold=32768, without an
// environment that every child (jobs, runners) would inherit. An operator's own
// glibc.malloc.mmap_threshold in GLIBC_TUNABLES wins: then nothing is set here.
//
// Mappings: adjacent ones merge (at most 939 /proc/PID/maps lines with 5,000 minions, 601
// without; vm.max_map_count is 65530 by default); when mmap fails glibc falls back to the heap.

import { LIBC, libc } from '../transport/libc.js';

/** glibc <malloc.h>. */
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
/**
 * Free memory at the heap's top kept before glibc gives it back. Setting M_MMAP_THRESHOLD also
 * stops glibc raising the trim threshold as it would on its own, which left it at 128 KiB: a
 * 10,000-minion restart then shrank and regrew the heap over and over (restart CPU 40-43 s
 * against 18.5 s; bench/README.md, "Issue 27: every target on the final tree").
 */
export const MASTER_TRIM_THRESHOLD = 8 * 1024 * 1024;
/**
 * Node's TLS read-ring buffer size (32 KiB, two per connection, mostly never written): it and up
 * are mmapped. 16 KiB (the write ring's buffers too) kept the same memory after a first enrolment
 * but doubled the mmap/munmap calls of every TLS set-up, and a master restart with 10,000
 * minions burnt more CPU (bench/README.md, "Issue 27: every target on the final tree").
 */
export const MASTER_MMAP_THRESHOLD = 32 * 1024;

export type MallocTuning = { applied: true; mmapThreshold: number; trimThreshold: number } | { applied: false; reason: 'not glibc' | 'GLIBC_TUNABLES' | 'mallopt failed' };

/** True when the operator already chose the threshold through GLIBC_TUNABLES. */
export function tunablesSetThreshold(env: NodeJS.ProcessEnv): boolean {
  return /(^|[:])glibc\.malloc\.mmap_threshold=/.test(env.GLIBC_TUNABLES ?? '');
}

/** Sets the master's mmap threshold; never throws (a master without it still runs). */
export function tuneMasterMalloc(env: NodeJS.ProcessEnv = process.env): MallocTuning {
  if (process.platform !== 'linux') return { applied: false, reason: 'not glibc' };
  if (tunablesSetThreshold(env)) return { applied: false, reason: 'GLIBC_TUNABLES' };
  try {
    // the trim threshold after the mmap threshold, which would otherwise pin it at glibc's 128 KiB
    const ok = mallopt(M_MMAP_THRESHOLD, MASTER_MMAP_THRESHOLD) && mallopt(M_TRIM_THRESHOLD, MASTER_TRIM_THRESHOLD);
    return ok ? { applied: true, mmapThreshold: MASTER_MMAP_THRESHOLD, trimThreshold: MASTER_TRIM_THRESHOLD } : { applied: false, reason: 'mallopt failed' };
  } catch {
    return { applied: false, reason: 'mallopt failed' };
  }
}

/** glibc's mallopt(param, value); true when it took (it returns 1; musl's stub returns 0). */
function mallopt(param: number, value: number): boolean {
  const f = libc();
  const { value: ret } = f.load({
    library: LIBC,
    funcName: 'mallopt',
    retType: f.DataType.I32,
    paramsType: [f.DataType.I32, f.DataType.I32],
    paramsValue: [param, value],
    errno: true,
  });
  return ret === 1;
}
