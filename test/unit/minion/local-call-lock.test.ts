// `brine call --local` and the state run lock (issue 24): its state run is refused while another
// process holds <cachedir>/state-run.lock, or with queue=True waits for it on the injected clock
// (one poll timer, no real one) and then runs a real state in a worker thread; Ctrl-C while it
// waits ends the call with EXEC_FAILED naming the run it waited for, and leaves that lock alone.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { asMinionOptions, loadConfig } from '../../../src/config/index.js';
import { runLocalCall, type LocalCallOptions } from '../../../src/minion/local-call.js';
import { STATE_LOCK_POLL_MS } from '../../../src/minion/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { settle } from '../../helpers/wait.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-lcl-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('brine call --local and the state run lock of another process', () => {
  const cachedir = path.join(root, 'cache');
  fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
  fs.writeFileSync(path.join(root, 'etc', 'minion'), `cachedir: ${cachedir}\nfile_roots:\n  base: [${path.join(root, 'srv')}]\npillar_roots:\n  base: [${path.join(root, 'pillar')}]\n`);
  const opts = asMinionOptions(loadConfig('minion', { configDir: path.join(root, 'etc'), env: {} }));
  const lockFile = path.join(cachedir, 'state-run.lock');
  const other = spawn('sleep', ['120'], { stdio: 'ignore' });
  after(() => other.kill('SIGKILL'));
  const holder = { jid: '20261207000000008888', pid: other.pid!, fun: 'state.apply', started: '2026-12-07T00:00:02.000Z' };
  const holdLock = (): void => {
    fs.mkdirSync(cachedir, { recursive: true });
    fs.writeFileSync(lockFile, JSON.stringify(holder));
  };
  const call = (kwarg: Record<string, unknown>, clock: FakeClock, signal = new AbortController().signal) => {
    const o: LocalCallOptions = { opts, minionId: 'c1', grains: { id: 'c1' }, localFiles: true, signal, clock, log: { info: () => undefined, warn: () => undefined, error: () => undefined } };
    return runLocalCall('state.single', ['test.nop'], { name: 'from-call', ...kwarg }, o);
  };

  it('is refused at once with STATE_RUN_IN_PROGRESS naming the holder', async () => {
    holdLock();
    const r = await call({}, new FakeClock());
    assert.equal(r.error?.code, 'STATE_RUN_IN_PROGRESS');
    assert.match(String((r.return as string[])[0]), new RegExp(`is running as PID ${holder.pid} .* with jid ${holder.jid}$`));
  });

  it('queue=True waits on the injected clock, then runs once the lock is free, and gives it back', async () => {
    holdLock();
    const clock = new FakeClock();
    let done = false;
    const p = call({ queue: true }, clock).finally(() => (done = true));
    await settle();
    assert.equal(clock.pending, 1, 'one poll timer on the clock');
    clock.advance(STATE_LOCK_POLL_MS * 4);
    await settle();
    assert.equal(done, false, 'still waiting while the other process holds the lock');
    fs.rmSync(lockFile);
    clock.advance(STATE_LOCK_POLL_MS);
    const r = await p;
    assert.equal(r.success, true, JSON.stringify(r));
    assert.ok((r.return as Record<string, unknown>)['test_|-from-call_|-from-call_|-nop'], JSON.stringify(r.return));
    assert.equal(fs.existsSync(lockFile), false, 'the call gave the lock back');
  });

  it('Ctrl-C while waiting ends the call naming the run it waited for; the other lock stays', async () => {
    holdLock();
    const clock = new FakeClock();
    const ctl = new AbortController();
    const p = call({ queue: true }, clock, ctl.signal);
    await settle();
    ctl.abort();
    const r = await p;
    assert.equal(r.error?.code, 'EXEC_FAILED');
    assert.match(r.error?.message ?? '', new RegExp(`interrupted while waiting for state run ${holder.jid}`));
    assert.equal(clock.pending, 0);
    assert.equal(JSON.parse(fs.readFileSync(lockFile, 'utf8')).jid, holder.jid);
  });
});
