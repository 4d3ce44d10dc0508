// pkg.version_cmp against `dpkg --compare-versions` on this machine (Debian's dpkg package):
// the ordering aptpkg.version_cmp returns (-1, 0, 1), epochs, revisions, '~' and letters.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { debianVersionCmp } from '../../../src/modules/pkg-version-cmp.js';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

function dpkg(a: string, b: string): number {
  for (const [op, r] of [
    ['lt', -1],
    ['eq', 0],
    ['gt', 1],
  ] as const)
    if (spawnSync('dpkg', ['--compare-versions', a, op, b]).status === 0) return r;
  throw new Error(`dpkg could not compare ${a} and ${b}`);
}

const VERSIONS = [
  '1.0',
  '1.0-1',
  '1.0-0',
  '1:0.9',
  '1.0~rc1',
  '1.0~rc1-1',
  '1.0a',
  '1.0+b1',
  '1.00',
  '1.0.1',
  '2.4.57-2+deb12u1',
  '2.4.57-2',
  '10',
  '9',
  '1.0-1ubuntu1',
  '0:1.0',
  '1.0~~',
  '1.0~',
  'a',
  '1.2.3-1.1',
];

describe('pkg.version_cmp', () => {
  it('orders every pair as dpkg does', () => {
    const diffs: string[] = [];
    for (const a of VERSIONS) for (const b of VERSIONS) if (debianVersionCmp(a, b) !== dpkg(a, b)) diffs.push(`${a} vs ${b}: brine ${debianVersionCmp(a, b)}, dpkg ${dpkg(a, b)}`);
    assert.deepEqual(diffs, []);
  });

  it("through the registry, with Salt's ignore_epoch", async () => {
    const registry = createDefaultRegistry();
    const call = async (arg: unknown[], kwarg: Record<string, unknown> = {}) => (await registry.call('pkg.version_cmp', arg, kwarg, makeCtx())).return;
    assert.equal(await call(['0.2.4-0ubuntu1', '0.2.4.1-0ubuntu1']), -1);
    assert.equal(await call(['1:1.0', '2.0']), 1);
    assert.equal(await call(['1:1.0', '2.0'], { ignore_epoch: true }), -1);
    // Salt compares str() of each (issue 22, os-autoinst rebootmgr.sls: the version of a package
    // not installed is None); dpkg orders 'None' after '3.0' as it does any letters
    assert.equal(await call([null, '3.0']), dpkg('None', '3.0'));
    assert.equal(await call([3, '3.1']), -1);
  });
});
