// The state-run lock protocol, written once for the job runner and brine call (issue 24): the
// lock of this process is taken before the first await and handed to queue=True waiters in
// arrival order; the lock file held by another live process is looked at again every 250 ms on
// the injected clock (no real timer); a query takes nothing; a waiter that gives up holds nothing.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { STATE_LOCK_POLL_MS, StateRunLock, type StateLockClaim, type StateLockOutcome } from '../../../src/minion/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { settle } from '../../helpers/wait.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-srl-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let dirs = 0;
/** A fresh cachedir under this file's temp root. */
const cachedir = (): string => fs.mkdtempSync(path.join(root, `c${++dirs}-`));

let seq = 0;
function claim(fun = 'state.apply'): StateLockClaim {
  const jid = `2026120700000001${String(++seq).padStart(4, '0')}`;
  const started = '2026-12-07T00:00:00.000Z';
  return { jid, fun, started, describe: () => ({ jid, fun, arg: [], kwarg: {}, tgt: '*', tgt_type: 'glob', pid: 4242, started, queued: false }) };
}

/**
 * A lock on a fresh cachedir whose lock file a live process holds, as another brine call would;
 * the process is killed when the test ends.
 */
function heldElsewhere(t: { after(fn: () => void): void }) {
  const dir = cachedir();
  const proc = spawn('sleep', ['60'], { stdio: 'ignore' });
  t.after(() => proc.kill('SIGKILL'));
  const holder = { jid: '20261207000000009999', pid: proc.pid!, fun: 'state.sls', started: '2026-12-07T00:00:01.000Z' };
  fs.writeFileSync(path.join(dir, 'state-run.lock'), JSON.stringify(holder));
  const clock = new FakeClock();
  return { dir, holder, clock, lock: new StateRunLock({ clock, cachedir: dir }) };
}

describe('StateRunLock in one process', () => {
  it('is taken before the first await; a second run is refused naming the holder; the query takes nothing', async () => {
    const lock = new StateRunLock({ clock: new FakeClock() });
    assert.equal(lock.holder, undefined);
    assert.equal(lock.holder, undefined, 'asking who holds it did not take it');
    const a = claim();
    const pa = lock.acquire(a, { queue: false });
    assert.equal(lock.holder, a, 'held synchronously, so runs keep their arrival order');
    assert.deepEqual(await pa, { held: true });
    const refused = await lock.acquire(claim('state.sls'), { queue: false });
    assert.equal(refused.held, false);
    assert.equal(!refused.held && refused.aborted, false);
    assert.equal(!refused.held && refused.holder.jid, a.jid);
    lock.release(claim());
    assert.equal(lock.holder, a, 'only the holder releases');
    lock.release(a);
    assert.equal(lock.holder, undefined);
  });

  it('queue=True waiters get the lock in arrival order, one at a time', async () => {
    const lock = new StateRunLock({ clock: new FakeClock() });
    const [a, b, c] = [claim(), claim(), claim()];
    await lock.acquire(a, { queue: true });
    const got: string[] = [];
    const pb = lock.acquire(b, { queue: true }).then((o) => got.push(`b:${o.held}`));
    const pc = lock.acquire(c, { queue: true }).then((o) => got.push(`c:${o.held}`));
    await settle();
    assert.deepEqual(got, []);
    assert.equal(lock.waiting, 2);
    lock.release(a);
    await pb;
    await settle();
    assert.deepEqual(got, ['b:true']);
    assert.equal(lock.holder, b);
    lock.release(b);
    await pc;
    assert.equal(lock.holder, c);
    lock.release(c);
    assert.equal(lock.holder, undefined);
  });

  it('a waiter that gives up (killed) leaves the line and holds nothing', async () => {
    const lock = new StateRunLock({ clock: new FakeClock() });
    const [a, b] = [claim(), claim()];
    await lock.acquire(a, { queue: true });
    const ctl = new AbortController();
    const pb = lock.acquire(b, { queue: true, signal: ctl.signal });
    await settle();
    ctl.abort();
    const out = await pb;
    assert.equal(out.held, false);
    assert.equal(!out.held && out.aborted, true);
    assert.equal(lock.waiting, 0);
    lock.release(a);
    assert.equal(lock.holder, undefined, 'the lock was not handed to the waiter that left');
  });
});

describe('StateRunLock with the lock file of another process', () => {
  it('queue=True looks at the file again every 250 ms on the injected clock, then takes it', async (t) => {
    const { dir, clock, lock } = heldElsewhere(t);
    const a = claim();
    let outcome: StateLockOutcome | undefined;
    const pa = lock.acquire(a, { queue: true }).then((o) => (outcome = o));
    await settle();
    assert.equal(outcome, undefined);
    assert.equal(clock.pending, 1, 'one poll timer on the clock, no real timer');
    // the other run ends between two looks: seen at the next look, not before
    fs.rmSync(path.join(dir, 'state-run.lock'));
    clock.advance(STATE_LOCK_POLL_MS - 1);
    await settle();
    assert.equal(outcome, undefined);
    clock.advance(1);
    await pa;
    assert.deepEqual(outcome, { held: true });
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'state-run.lock'), 'utf8')).jid, a.jid);
    lock.release(a);
    assert.equal(fs.existsSync(path.join(dir, 'state-run.lock')), false);
    assert.equal(lock.holder, undefined);
  });

  it('without queue=True it is refused at once naming the other process; with it, giving up releases the lock of this process', async (t) => {
    const { dir, clock, lock, holder } = heldElsewhere(t);
    const refused = await lock.acquire(claim(), { queue: false });
    assert.deepEqual(!refused.held && [refused.holder.jid, refused.holder.pid, refused.aborted], [holder.jid, holder.pid, false]);
    assert.equal(lock.holder, undefined, 'refused by the file: the in-process part is given back');
    const ctl = new AbortController();
    const waiting = lock.acquire(claim(), { queue: true, signal: ctl.signal });
    await settle();
    clock.advance(STATE_LOCK_POLL_MS * 3);
    ctl.abort();
    const out = await waiting;
    assert.deepEqual(!out.held && [out.holder.jid, out.aborted], [holder.jid, true]);
    assert.equal(lock.holder, undefined);
    assert.equal(clock.pending, 0, 'the poll timer was cancelled');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'state-run.lock'), 'utf8')).jid, holder.jid, "the other process's lock is untouched");
  });

  it('an unwritable cachedir: reported and run under the lock of this process, or thrown with nothing held', async () => {
    const notADir = path.join(cachedir(), 'file');
    fs.writeFileSync(notADir, '');
    const reported: string[] = [];
    const tolerant = new StateRunLock({ clock: new FakeClock(), cachedir: notADir, onFileError: (_err, doing, c) => reported.push(`${doing}:${c.jid}`) });
    const a = claim();
    assert.deepEqual(await tolerant.acquire(a, { queue: false }), { held: true });
    assert.deepEqual(reported, [`take:${a.jid}`]);
    assert.equal(tolerant.holder, a);
    tolerant.release(a);
    const strict = new StateRunLock({ clock: new FakeClock(), cachedir: notADir });
    await assert.rejects(strict.acquire(claim(), { queue: false }), (e: NodeJS.ErrnoException) => typeof e.code === 'string');
    assert.equal(strict.holder, undefined);
  });
});
