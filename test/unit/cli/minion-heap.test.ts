// Issue 12 (lean minion): `brine minion` keeps V8's young generation at its initial size instead
// of letting start-up grow it to 16 MiB (src/cli/minion-heap.ts); other commands keep V8's
// defaults; the minion also keeps TurboFan off until its first job (util/optimizing-compiler.ts).
// Each case is a fresh process that loads the module the way main.ts does, with
// process.argv[2] as the subcommand, then allocates short-lived garbage as a start-up does.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/repo.js';

const MODULE = pathToFileURL(path.join(repoRoot(), 'dist', 'src', 'cli', 'minion-heap.js')).href;
const COMPILER = pathToFileURL(path.join(repoRoot(), 'dist', 'src', 'util', 'optimizing-compiler.js')).href;

/**
 * Whether V8 optimized a hot function (%GetOptimizationStatus bit 4, kOptimized) before, and
 * after releaseOptimizingCompiler() (another function: V8 marks one it was not allowed to
 * optimize); and whether Sparkplug compiled it before (bit 15, kBaseline; issue 27).
 */
function optimized(subcommand: string): { before: boolean; after: boolean; baselineBefore: boolean } {
  const code = `
    process.argv[2] = ${JSON.stringify(subcommand)};
    await import(${JSON.stringify(MODULE)});
    const spin = (f) => { for (let k = 0; k < 3000; k++) f(1000); return %GetOptimizationStatus(f); };
    const status = spin(function hot1(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; });
    (await import(${JSON.stringify(COMPILER)})).releaseOptimizingCompiler();
    const after = (spin(function hot2(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }) & 16) !== 0;
    process.stdout.write(JSON.stringify({ before: (status & 16) !== 0, after, baselineBefore: (status & 32768) !== 0 }));`;
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

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

  it('brine minion holds TurboFan and Sparkplug back until the first job worker releases them (perf-lean3, issue 27)', () => {
    assert.deepEqual(optimized('minion'), { before: false, after: true, baselineBefore: false });
  });

  it('other commands optimize from the start, and a release leaves them alone', () => {
    const { before, after } = optimized('run');
    assert.deepEqual({ before, after }, { before: true, after: true });
  });
});
