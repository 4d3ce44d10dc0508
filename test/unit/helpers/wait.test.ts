// The shared waiting helpers every test leans on: a poll that returns as soon as its condition
// holds and fails naming what it waited for, and a "nothing happens" window that fails early.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nothingFor, settle, waitUntil, within } from '../../helpers/wait.js';

describe('waitUntil', () => {
  it('resolves with the first truthy value, long before its deadline', async () => {
    let calls = 0;
    const started = Date.now();
    const v = await waitUntil(async () => ++calls >= 3 && `after ${calls}`, 30_000, 'the third call');
    assert.equal(v, 'after 3');
    assert.ok(Date.now() - started < 10_000, 'it polled instead of waiting out the deadline');
  });

  it('fails after the deadline naming what it waited for', async () => {
    await assert.rejects(
      waitUntil(() => false, 50, 'a thing that never comes'),
      /timed out after 50 ms waiting for a thing that never comes/,
    );
  });
});

describe('nothingFor', () => {
  it('waits the whole window when nothing happens', async () => {
    const started = Date.now();
    await nothingFor(120, 'a change', () => false);
    assert.ok(Date.now() - started >= 115, `returned after ${Date.now() - started} ms`);
  });

  it('fails as soon as the thing happens, saying what was seen', async () => {
    let happened = false;
    setTimeout(() => (happened = true), 30);
    const started = Date.now();
    await assert.rejects(
      nothingFor(20_000, 'the flag', () => happened && 'flag set'),
      /the flag happened within 20000 ms: flag set/,
    );
    assert.ok(Date.now() - started < 10_000, 'it failed early instead of waiting out the window');
  });
});

describe('within and settle', () => {
  it('within passes a value through and rejects a promise that never settles', async () => {
    assert.equal(await within(Promise.resolve(7), 1000, 'seven'), 7);
    await assert.rejects(within(new Promise(() => undefined), 30, 'a reply'), /timed out after 30 ms waiting for a reply/);
  });

  it('settle lets queued promise chains run', async () => {
    let done = false;
    void Promise.resolve()
      .then(() => undefined)
      .then(() => (done = true));
    await settle();
    assert.equal(done, true);
  });
});
