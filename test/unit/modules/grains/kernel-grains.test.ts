// kernelparams and transactional as Salt 3007 reports them (issue 22, bench:salt-lowchunks listed
// both as grains Salt has and brine lacked). The expected lists are what Salt's grains.items
// printed for the kernel command line of the machine the bench ran on.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kernelGrains, kernelParams } from '../../../../src/modules/grains/kernel-grains.js';
import { collectGrains } from '../../../../src/modules/grains.js';

describe('kernelparams', () => {
  it('splits at "=" like Salt: bare words and words with two "=" get null, duplicates kept in order', () => {
    const cmdline = 'mitigations=auto,no_guest_host console=ttyS0 quiet tsc=reliable tsc=unstable rdinit=/process_api -- --addr 0.0.0.0:2024 a=b=c\n';
    assert.deepEqual(kernelParams(cmdline), [
      ['mitigations', 'auto,no_guest_host'],
      ['console', 'ttyS0'],
      ['quiet', null],
      ['tsc', 'reliable'],
      ['tsc', 'unstable'],
      ['rdinit', '/process_api'],
      ['--', null],
      ['--addr', null],
      ['0.0.0.0:2024', null],
      ['a', null],
    ]);
  });

  it('takes quotes away as a shell does, and strips double quotes left around a value', () => {
    assert.deepEqual(kernelParams('root=UUID=x dyndbg="file x.c +p" k=\'"v"\''), [
      ['root', null],
      ['dyndbg', 'file x.c +p'],
      ['k', 'v'],
    ]);
  });

  it('an unreadable /proc/cmdline or an open quote reports no kernelparams; transactional is always there', () => {
    assert.deepEqual(kernelGrains(undefined, false), { transactional: false });
    assert.deepEqual(kernelGrains('a="open', true), { transactional: true });
  });

  it("this machine's grains carry its /proc/cmdline", { skip: !readable('/proc/cmdline') && 'no /proc/cmdline' }, async () => {
    const g = await collectGrains({ id: 'kp' });
    assert.deepEqual(g.kernelparams, kernelParams(readFileSync('/proc/cmdline', 'utf8')));
    assert.equal(typeof g.transactional, 'boolean');
  });
});

function readable(file: string): boolean {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}
