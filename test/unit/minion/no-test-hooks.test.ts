// Issue 8 item 9: production code carries no test scaffolding. Fault injection (callbacks that
// throw) is a wrapper the tests pass in (test/helpers/throwing-minion.ts), never an environment
// variable the daemon reads.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../helpers/repo.js';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('no source file under src/ reads a BRINE_TEST_* variable', () => {
  const offenders = sources(path.join(repoRoot(), 'src')).filter((f) => /BRINE_TEST_/.test(fs.readFileSync(f, 'utf8')));
  assert.deepEqual(
    offenders.map((f) => path.relative(repoRoot(), f)),
    [],
  );
});
