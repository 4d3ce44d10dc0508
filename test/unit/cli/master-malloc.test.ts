// Issue 27 (enrolmem): `brine master` sets glibc's mmap threshold to 64 KiB at start
// (src/cli/master-malloc.ts), so every connection's 64 KiB TLS read buffer gets its own mapping
// instead of fragmenting the main heap during a first enrolment, while V8's 32 KiB zone segments
// (compilers, parser) stay in the heap: mapped, each would cost an mmap and a munmap. Checked by its effect in glibc
// (malloc_stats' mmap region count in a fresh process) and in a real master's start-up log.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tunablesSetThreshold } from '../../../src/cli/master-malloc.js';
import { Cluster } from '../../helpers/cluster.js';
import { repoRoot } from '../../helpers/repo.js';

const dist = (...p: string[]): string => pathToFileURL(path.join(repoRoot(), 'dist', 'src', ...p)).href;

/** mmap regions glibc made for 100 live buffers of `kib` KiB, in a fresh process (tuned or not). */
function mmapRegionsFor100Buffers(tune: boolean, kib = 64): number {
  const code = `
    const { tuneMasterMalloc } = await import(${JSON.stringify(dist('cli', 'master-malloc.js'))});
    const { libc, LIBC } = await import(${JSON.stringify(dist('transport', 'libc.js'))});
    const stats = () => { const f = libc(); f.load({ library: LIBC, funcName: 'malloc_stats', retType: f.DataType.Void, paramsType: [], paramsValue: [] }); };
    if (${tune}) { const r = tuneMasterMalloc({}); if (!r.applied) throw new Error(JSON.stringify(r)); }
    stats();
    const keep = [];
    for (let i = 0; i < 100; i++) keep.push(Buffer.allocUnsafeSlow(${kib} * 1024));
    stats();
    process.stdout.write(String(keep.length));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, GLIBC_TUNABLES: '' } });
  assert.equal(r.status, 0, r.stderr);
  // malloc_stats writes to stderr; "max mmap regions" only grows, so the second minus the first
  const regions = [...r.stderr.matchAll(/max mmap regions =\s+(\d+)/g)].map((m) => Number(m[1]));
  const [first, second] = regions;
  assert.ok(first !== undefined && second !== undefined && regions.length === 2, r.stderr);
  return second - first;
}

describe('issue 27: the master mmaps allocations of 64 KiB and up', { skip: process.platform !== 'linux' }, () => {
  it('after tuneMasterMalloc, 64 KiB buffers get their own mappings; without it they do not; 32 KiB ones never do', () => {
    const tuned = mmapRegionsFor100Buffers(true);
    const untuned = mmapRegionsFor100Buffers(false);
    assert.ok(untuned < 10, `without the setting glibc mmapped ${untuned} of 100 buffers: the check below proves nothing`);
    // the first few may still come from free heap (glibc mmaps only when the heap's top is short)
    assert.ok(tuned >= 50, `with the setting glibc mmapped only ${tuned} of 100 buffers`);
    // V8's zone segments are 32 KiB: mapped one by one they made a restart storm's munmaps
    const small = mmapRegionsFor100Buffers(true, 32);
    assert.ok(small < 10, `with the setting glibc mmapped ${small} of 100 buffers of 32 KiB`);
  });

  it("an operator's glibc.malloc.mmap_threshold in GLIBC_TUNABLES wins", () => {
    assert.equal(tunablesSetThreshold({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536' }), true);
    assert.equal(tunablesSetThreshold({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' }), true);
    assert.equal(tunablesSetThreshold({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }), false);
    assert.equal(tunablesSetThreshold({}), false);
  });

  describe('a real brine master', () => {
    let c: Cluster;
    before(async () => {
      c = await Cluster.create();
    });
    after(async () => c.cleanup());

    it('sets it at start, and leaves it to GLIBC_TUNABLES when the operator set it there', async () => {
      c.writeMasterConfig({ log_level: 'debug' });
      const tuned = c.spawnBrine('master', ['master', '-c', c.masterConfigDir], { GLIBC_TUNABLES: '' });
      await tuned.waitForOutput(/brine master listening/);
      assert.match(tuned.output, /malloc: mmap threshold 65536 B, trim threshold 8388608 B/);
      await tuned.kill();

      const left = c.spawnBrine('master', ['master', '-c', c.masterConfigDir], { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' });
      await left.waitForOutput(/brine master listening/);
      assert.match(left.output, /malloc: mmap threshold left as is \(GLIBC_TUNABLES\)/);
      await left.kill();
    });
  });
});
