// Privileged tests on a machine without root, ip or iptables (issue 8 point 8): they skip with
// a one-line reason and the closing line of scripts/run-tests.mjs counts them as skipped; with
// BRINE_REQUIRE_PRIVILEGED set (CI) the same skip is a failure that names the fix.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/repo.js';
import { runSuites } from '../../helpers/run-suites.js';
import { privilegedRequired, privilegedSkip } from '../../helpers/privileged.js';

const helper = pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'helpers', 'privileged.js')).href;

// one plain test, one suite and one test whose prerequisites are "missing"
const FIXTURE = `
import { describe, it, test } from 'node:test';
import { privilegedSkip } from ${JSON.stringify(helper)};
test('plain', () => {});
describe('kernel suite', { skip: privilegedSkip('kernel suite', 'iptables not found') }, () => {
  it('one', () => { throw new Error('must not run'); });
  it('two', () => { throw new Error('must not run'); });
});
test('root test', { skip: privilegedSkip('root test', 'needs root') }, () => { throw new Error('must not run'); });
test('has what it needs', { skip: privilegedSkip('has what it needs', false) }, () => {});
`;

async function runFixture(t: { after(fn: () => void): void }, extraEnv: NodeJS.ProcessEnv, fixture = FIXTURE): ReturnType<typeof runSuites> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-privileged-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'fixture.test.mjs');
  fs.writeFileSync(file, fixture);
  return runSuites([file], extraEnv);
}

test('missing prerequisites: skipped with the reason, counted in the closing line, exit 0', async (t) => {
  const r = await runFixture(t, {});
  assert.equal(r.line, '2 passed, 0 failed, 2 skipped', r.output);
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /kernel suite .*# iptables not found/);
  assert.match(r.output, /root test .*# needs root/);
  assert.doesNotMatch(r.output, /must not run/);
});

test('BRINE_REQUIRE_PRIVILEGED=1 turns each such skip into a failure that names the fix', async (t) => {
  const r = await runFixture(t, { BRINE_REQUIRE_PRIVILEGED: '1' });
  assert.equal(r.failed, 2, r.output);
  assert.notEqual(r.code, 0);
  assert.match(r.line, /^2 passed, 2 failed, 2 skipped$/);
  assert.match(r.output, /kernel suite cannot run: iptables not found\. BRINE_REQUIRE_PRIVILEGED is set, so this skip is a failure/);
  assert.match(r.output, /root test cannot run: needs root/);
  assert.doesNotMatch(r.output, /must not run/);
});

test('a failing test with long details after the summary is still counted (the summary comes first)', async (t) => {
  const longFailure = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('ok', () => {});\ntest('long failure', () => { assert.equal('x'.repeat(20000), 'y'.repeat(20000)); });\n`;
  const r = await runFixture(t, {}, longFailure);
  assert.ok(r.output.length > 20000, 'the failure details are long');
  assert.equal(r.line, '1 passed, 1 failed', r.output.slice(-500));
  assert.notEqual(r.code, 0);
});

test('the closing line keeps its plain format when nothing is skipped', async () => {
  const { closingLine, countsFromSpec } = (await import(pathToFileURL(path.join(repoRoot(), 'scripts', 'test-run.mjs')).href)) as {
    closingLine(c: { passed: number; failed: number; skipped: number }): string;
    countsFromSpec(tail: string, skippedSuites?: number): { passed: number; failed: number; skipped: number };
  };
  assert.equal(closingLine({ passed: 3, failed: 1, skipped: 0 }), '3 passed, 1 failed');
  assert.deepEqual(countsFromSpec('ℹ tests 5\nℹ pass 3\nℹ fail 1\nℹ cancelled 1\nℹ skipped 2\n', 1), { passed: 3, failed: 2, skipped: 3 });
});

test('privilegedRequired reads the variable; an empty value or 0 means not required', () => {
  assert.equal(privilegedRequired({}), false);
  assert.equal(privilegedRequired({ BRINE_REQUIRE_PRIVILEGED: '' }), false);
  assert.equal(privilegedRequired({ BRINE_REQUIRE_PRIVILEGED: '0' }), false);
  assert.equal(privilegedRequired({ BRINE_REQUIRE_PRIVILEGED: '1' }), true);
  assert.equal(privilegedSkip('x', false, { BRINE_REQUIRE_PRIVILEGED: '1' }), false);
  assert.equal(privilegedSkip('x', 'no ip', {}), 'no ip');
});
