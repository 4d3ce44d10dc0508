// Issue 12 (lean minion): `brine minion` keeps V8's young generation at its initial size instead
// of letting start-up grow it to 16 MiB (src/cli/minion-heap.ts); other commands keep V8's
// defaults. Each case is a fresh process that loads the module the way main.ts does, with
// process.argv[2] as the subcommand, then allocates short-lived garbage as a start-up does.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/repo.js';

const MODULE = pathToFileURL(path.join(repoRoot(), 'dist', 'src', 'cli', 'minion-heap.js')).href;

/** The new space's size in MiB after churning through ~200 MiB of short-lived objects. */
function newSpaceMiB(subcommand: string): number {
  const code = `
    process.argv[2] = ${JSON.stringify(subcommand)};
    await import(${JSON.stringify(MODULE)});
    const { getHeapSpaceStatistics } = await import('node:v8');
    let keep = [];
    for (let i = 0; i < 200_000; i++) { keep.push({ i, s: 'x'.repeat(1000) + i }); if (keep.length > 2000) keep = []; }
    const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
    process.stdout.write(String(s.space_size / 1048576));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout);
}

describe('issue 12: V8 heap flags of brine minion', () => {
  it('brine minion keeps the young generation at its initial semi-spaces', () => {
    assert.ok(newSpaceMiB('minion') <= 2, 'new space grew in a minion');
  });

  it('other commands keep V8 defaults (the young generation grows)', () => {
    assert.ok(newSpaceMiB('run') > 2, 'new space did not grow for brine run: the check above proves nothing');
  });
});
