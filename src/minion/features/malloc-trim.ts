// glibc's free heap pages given back to the kernel once the minion goes idle (issue 27,
// thinmin2): malloc_trim(0) 2 s after a sign-in and after the last job's return. Start-up (key
// files, the config, grains' programs, the TLS handshake) and a job leave freed chunks in the
// malloc arenas that glibc keeps resident; an idle minion measured 0.4-0.5 MiB less RSS after one
// trim (bench/README.md, "Issue 27: thinmin2"). Through ffi-rs, which the minion's dialer
// already loads (transport/libc.ts); elsewhere than on glibc nothing is done.

import { callIntFunction, onGlibc } from '../../transport/libc.js';
import type { MinionFeature } from './feature.js';

/** How long after the last sign-in or return the trim runs. */
export const TRIM_DELAY_MS = 2000;

/** malloc_trim(0); false where there is no glibc or the call failed (then never tried again). */
export function trimMalloc(): boolean {
  if (available === undefined) available = process.platform === 'linux' && onGlibc();
  if (!available) return false;
  try {
    callIntFunction('malloc_trim', 0);
    return true;
  } catch {
    available = false;
    return false;
  }
}
let available: boolean | undefined;

export class MallocTrim implements MinionFeature {
  readonly name = 'malloc-trim';
  private timer: NodeJS.Timeout | undefined;
  /** How many trims ran (tests). */
  trims = 0;

  constructor(private readonly delayMs = TRIM_DELAY_MS) {}

  onReady(): void {
    this.soon();
  }

  /** Trims once nothing else has asked for TRIM_DELAY_MS (a job's return, a sign-in). */
  soon(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (trimMalloc()) this.trims++;
    }, this.delayMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
