// The master's glibc malloc setting (issue 27, enrolmem): every allocation of 64 KiB or more gets
// its own mmap instead of a place in the main heap, set once at `brine master` start through
// mallopt(M_MMAP_THRESHOLD) (ffi-rs, the binding socket-options already loads).
//
// Why: each TLS connection keeps Node's read buffer (64 KiB: NodeBIO sized by libuv's suggested
// read size) for life, mostly untouched. In the heap they are allocated during a first enrolment
// between the many short-lived allocations of full handshakes, signatures, key files and
// presence writes; once those are freed, the heap's pages stay resident with a few live chunks
// each (fragmentation: 4-27 KiB of [heap] a minion more than after a restart, bench/README.md
// "natmem").
// Mmapped, a buffer's untouched pages are never resident and a freed one goes back to the kernel
// at once. Same effect as GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536, without an
// environment that every child (jobs, runners) would inherit. An operator's own
// glibc.malloc.mmap_threshold in GLIBC_TUNABLES wins: then nothing is set here.
//
// Mappings: adjacent ones merge (at most 939 /proc/PID/maps lines with 5,000 minions, 601
// without; vm.max_map_count is 65530 by default); when mmap fails glibc falls back to the heap.

import { callIntFunction } from '../transport/libc.js';

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
 * Node's TLS read-buffer size (64 KiB, one per connection, mostly never written): it and up are
 * mmapped. Lower is worse: at 32 KiB every V8 zone segment (32 KiB: TurboFan's compile jobs,
 * the parser, regexps) was an mmap and a munmap too, and each munmap of this multi-threaded
 * process flushes the other CPU's TLB (an IPI); a 10,000-minion restart spent 13-16% of the
 * master's CPU in munmap (restart 44-52 s, master CPU 34-43 s; at 64 KiB 35-40 s, 30-31 s;
 * bench/README.md, "Issue 27: the restart regression"). 16 KiB doubled the calls of every TLS
 * set-up on top of that.
 */
export const MASTER_MMAP_THRESHOLD = 64 * 1024;

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
  return callIntFunction('mallopt', param, value) === 1;
}
