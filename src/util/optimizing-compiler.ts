// V8's optimizing compiler (TurboFan) held back in `brine minion` until its first job. An idle
// minion runs little JavaScript: what TurboFan compiled during a start was Node's own module
// loader (URL and path handling, hot while ~25-135 modules load), and compiling it mapped ~3.3
// MiB more of the node binary's code into the minion for good (bench/README.md, issue 12,
// perf-lean3). The first job worker releases it, so jobs run at full speed.

import { setFlagsFromString } from 'node:v8';

// the interpreter and Sparkplug only (not --max-opt=2: it implies --no-turbofan, and setting
// --max-opt back alone does not undo that)
const HELD = '--no-turbofan';
const RELEASED = '--turbofan';

let held = false;

/** Keeps functions at the baseline tiers (for `brine minion`, before its modules load). */
export function holdOptimizingCompiler(): void {
  setFlagsFromString(HELD);
  held = true;
}

/** Lets V8 optimize again if this process held it back; otherwise leaves the flags alone. */
export function releaseOptimizingCompiler(): void {
  if (!held) return;
  setFlagsFromString(RELEASED);
  held = false;
}
