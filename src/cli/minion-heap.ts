// V8 settings for `brine minion`, a long-lived daemon that idles most of its life. Imported
// first by program.ts, so it runs before the other modules and the young generation has grown.
// Measured in bench/README.md (issue 12, "V8 heap flags" and perf-lean3):
// the young generation stays at its initial 1 MiB semi-spaces instead of doubling to 8 MiB each
// during start-up (the growth factor is read each time a scavenge resizes it, so it can be set
// here; --max-semi-space-size is read only when the heap is created, so it could not). Job worker
// threads share the flag. Idle CPU and test.ping times were unchanged (README).
// --optimize-for-size (issue 27, "minion at 45 MiB"): V8's heap trades GC work for memory (lower
// growing factors, the memory reducer sooner): an idle minion -2.6 MiB; state.apply times in the
// README. TurboFan and Sparkplug are held back until the first job (util/optimizing-compiler.ts).
// Other commands keep V8's defaults: they are short-lived and their start-up time matters more.

import { setFlagsFromString } from 'node:v8';
import { holdOptimizingCompiler } from '../util/optimizing-compiler.js';

export const MINION_V8_FLAGS = ['--semi-space-growth-factor=1', '--optimize-for-size'] as const;

if (process.argv[2] === 'minion') {
  for (const flag of MINION_V8_FLAGS) setFlagsFromString(flag);
  holdOptimizingCompiler();
}
