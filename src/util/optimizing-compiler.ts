// V8's optimizing compiler (TurboFan) held back in `brine minion` until its first job. An idle
// minion runs little JavaScript: what TurboFan compiled during a start was Node's own module
// loader (URL and path handling, hot while ~25-135 modules load), and compiling it mapped ~3.3
// MiB more of the node binary's code into the minion for good (bench/README.md, issue 12,
// perf-lean3). The baseline compiler (Sparkplug) is held with it: its machine code for the
// functions a start runs a few times is ~0.7 MiB of an idle minion (issue 27, "minion at 45
// MiB"). The first job worker releases both, so jobs run at full speed.

import { setFlagsFromString } from 'node:v8';

// the interpreter only (not --max-opt=2: it implies --no-turbofan, and setting --max-opt back
// alone does not undo that)
const HELD = ['--no-turbofan', '--no-sparkplug'];
const RELEASED = ['--turbofan', '--sparkplug'];

let held = false;

/** Keeps functions at the baseline tiers (for `brine minion`, before its modules load). */
export function holdOptimizingCompiler(): void {
  for (const flag of HELD) setFlagsFromString(flag);
  held = true;
}

/** Lets V8 optimize again if this process held it back; otherwise leaves the flags alone. */
export function releaseOptimizingCompiler(): void {
  if (!held) return;
  for (const flag of RELEASED) setFlagsFromString(flag);
  held = false;
}
