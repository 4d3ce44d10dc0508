// The idle minion's malloc trim (issue 27, thinmin2): malloc_trim(0) through ffi-rs runs once
// after a sign-in or a job's return has been followed by a quiet delay, and never after stop.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MallocTrim, trimMalloc } from '../../../src/minion/features/malloc-trim.js';
import { onGlibc } from '../../../src/transport/libc.js';
import { nothingFor, waitUntil } from '../../helpers/wait.js';

describe('issue 27: the minion gives free malloc pages back when idle', () => {
  it('calls glibc malloc_trim (false only where there is no glibc)', () => {
    assert.equal(trimMalloc(), process.platform === 'linux' && onGlibc());
  });

  it('trims once after a sign-in and the returns that follow it, then once per quiet spell', { skip: !onGlibc() && 'not glibc' }, async () => {
    const trim = new MallocTrim(50);
    trim.onReady();
    trim.soon();
    trim.soon();
    await waitUntil(() => trim.trims === 1, 5000, 'the first trim');
    await nothingFor(150, 'a second trim for the same quiet spell', () => trim.trims > 1);
    trim.soon();
    await waitUntil(() => trim.trims === 2, 5000, 'the trim after another return');
    trim.soon();
    trim.stop();
    await nothingFor(150, 'a trim after stop', () => trim.trims > 2);
  });
});
