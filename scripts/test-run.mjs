// Runs test files with node's test runner (spec output passed through) and works out the
// closing line "N passed, N failed" (", N skipped" added when something was skipped). Used by
// scripts/run-tests.mjs; a unit test drives it with a fixture file.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const skipReporter = new URL('./skip-reporter.mjs', import.meta.url).pathname;

/** Counts from the tail of node's spec summary ("ℹ pass 3") plus suites skipped as a whole. */
export function countsFromSpec(tail, skippedSuites = 0) {
  const num = (label) => Number((tail.match(new RegExp(`^\\S*\\s*${label} (\\d+)`, 'm')) ?? [])[1] ?? 0);
  return { passed: num('pass'), failed: num('fail') + num('cancelled'), skipped: num('skipped') + skippedSuites };
}

/** The plain closing line; the skipped part is left off when nothing was skipped. */
export function closingLine({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

/**
 * Runs `files`, writing the spec output to `out` (a writable, default stdout), and resolves
 * with the counts, the closing line and the runner's exit code.
 */
export function runTests(files, { out = process.stdout, extraArgs = [], env = process.env } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'brine-run-tests-'));
  const skipFile = join(dir, 'skipped.json');
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-concurrency=2',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${skipReporter}`,
      `--test-reporter-destination=${skipFile}`,
      '--test-timeout=300000',
      ...extraArgs,
      ...files,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env },
  );
  // node's summary ("ℹ pass 3") comes before the details of failing tests, which can be long,
  // so its lines are picked out as they stream by rather than read from the tail
  let partial = '';
  const summary = new Map();
  child.stdout.on('data', (chunk) => {
    out.write(chunk);
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = line.match(/^\S*\s*(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)\s*$/);
      if (m) summary.set(m[1], line);
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      let skippedSuites = 0;
      try {
        skippedSuites = JSON.parse(readFileSync(skipFile, 'utf8')).skippedSuites ?? 0;
      } catch {
        // the runner died before the reporter finished; node's own counts still stand
      }
      rmSync(dir, { recursive: true, force: true });
      const counts = countsFromSpec([...summary.values(), partial].join('\n'), skippedSuites);
      resolve({ ...counts, line: closingLine(counts), code: code ?? 1 });
    });
  });
}
