// The `brine` command's entry point: runs the CLI (program.js) from the bundle `npm run build`
// makes of it (scripts/bundle-cli.mjs: a few files instead of every module; bench/README.md,
// issue 12, perf-lean3), or from the compiled modules when the bundle is older than the last
// compile (a `tsc` without the bundle step must not run stale code) or missing (tests under
// tsx), or when BRINE_CLI_BUNDLE=0 (stack traces in the modules' own files, module-level tests).

import { statSync } from 'node:fs';

function freshBundle(): string | undefined {
  if (process.env.BRINE_CLI_BUNDLE === '0') return undefined;
  const bundle = new URL('./bundle/program.js', import.meta.url);
  try {
    const built = statSync(bundle).mtimeMs;
    // absent in an installed copy, which only has what npm run build made
    const compiled = statSync(new URL('../../.tsbuildinfo', import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
    return compiled === undefined || built >= compiled ? bundle.href : undefined;
  } catch {
    return undefined;
  }
}

await import(freshBundle() ?? './program.js');
