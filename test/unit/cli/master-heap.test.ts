// Issue 27 (sessmem): `brine master` keeps V8's young generation at MASTER_NEW_SPACE_CAP_MIB
// instead of letting a first enrolment grow it to 32 MiB (src/cli/master-heap.ts); other
// commands keep V8's defaults. Each case is a fresh process that loads the module the way
// program.ts does, with process.argv[2] as the subcommand, then allocates garbage with many
// survivors, a turn of the event loop at a time, as an enrolment does.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../helpers/repo.js';
import { MASTER_NEW_SPACE_CAP_MIB } from '../../../src/cli/master-heap.js';

const MODULE = pathToFileURL(path.join(repoRoot(), 'dist', 'src', 'cli', 'master-heap.js')).href;

/** The new space's size in MiB after ~400 MiB of objects, a tenth of them kept a while. */
function newSpaceMiB(subcommand: string): number {
  const code = `
    process.argv[2] = ${JSON.stringify(subcommand)};
    await import(${JSON.stringify(MODULE)});
    const { getHeapSpaceStatistics } = await import('node:v8');
    let keep = [];
    for (let turn = 0; turn < 400; turn++) {
      for (let i = 0; i < 1000; i++) { const o = { i, s: 'x'.repeat(1000) + i }; if (i % 10 === 0) keep.push(o); }
      if (keep.length > 8000) keep = [];
      await new Promise((r) => setImmediate(r));
    }
    const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
    process.stdout.write(String(s.space_size / 1048576));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout);
}

describe('issue 27: the young generation of brine master', () => {
  it(`brine master keeps the new space at most ${MASTER_NEW_SPACE_CAP_MIB} MiB`, () => {
    const mib = newSpaceMiB('master');
    assert.ok(mib <= MASTER_NEW_SPACE_CAP_MIB, `new space grew to ${mib} MiB in a master`);
  });

  it('other commands keep V8 defaults (the young generation grows past the cap)', () => {
    const mib = newSpaceMiB('run');
    assert.ok(mib > MASTER_NEW_SPACE_CAP_MIB, `new space stayed at ${mib} MiB for brine run: the check above proves nothing`);
  });
});
