// Runs test files through scripts/test-run.mjs (the real runner and its closing line) in a child
// process, with the output captured: for tests of how suites skip or fail.

import * as path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './repo.js';

export interface RunResult {
  passed: number;
  failed: number;
  skipped: number;
  line: string;
  code: number;
}
type RunTests = (files: string[], opts: { out: Writable; env: NodeJS.ProcessEnv }) => Promise<RunResult>;

/** `extraEnv` over this process's environment; BRINE_REQUIRE_PRIVILEGED only when it sets it. */
export async function runSuites(files: string[], extraEnv: NodeJS.ProcessEnv): Promise<RunResult & { output: string }> {
  const { runTests } = (await import(pathToFileURL(path.join(repoRoot(), 'scripts', 'test-run.mjs')).href)) as { runTests: RunTests };
  let output = '';
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      output += chunk.toString();
      done();
    },
  });
  // NODE_TEST_CONTEXT would make the inner runner report to this one instead of printing
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  delete env.NODE_TEST_CONTEXT;
  if (extraEnv.BRINE_REQUIRE_PRIVILEGED === undefined) delete env.BRINE_REQUIRE_PRIVILEGED;
  return { ...(await runTests(files, { out, env })), output };
}
