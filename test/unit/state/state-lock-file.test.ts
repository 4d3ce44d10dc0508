// The state run lock shared by the minion daemon and `brine call` (<cachedir>/state-run.lock):
// one holder at a time, a holder whose process is gone is taken over, only the holder releases.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateLockFile } from '../../../src/state/index.js';

const dirs: string[] = [];
function cachedir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-lock-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const me = { jid: '20261203120000000001', pid: process.pid, fun: 'state.apply', started: '2026-12-03T12:00:00.000Z' };

describe('StateLockFile', () => {
  it('is taken once; the same holder may take it again; release frees it', () => {
    const lock = new StateLockFile(cachedir());
    assert.equal(lock.tryAcquire(me), undefined);
    assert.equal(lock.tryAcquire(me), undefined);
    assert.deepEqual(JSON.parse(fs.readFileSync(lock.file, 'utf8')), me);
    lock.release(me);
    assert.equal(fs.existsSync(lock.file), false);
  });

  it('names a live holder in another process and leaves its file alone', async () => {
    const dir = cachedir();
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const holder = { jid: '20261203120000000002', pid: other.pid!, fun: 'state.sls', started: '2026-12-03T12:00:01.000Z' };
      fs.writeFileSync(path.join(dir, 'state-run.lock'), JSON.stringify(holder));
      const lock = new StateLockFile(dir);
      assert.deepEqual(lock.tryAcquire(me), holder);
      lock.release(me);
      assert.deepEqual(JSON.parse(fs.readFileSync(lock.file, 'utf8')), holder, 'a non-holder released the lock');
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('takes over a lock whose holder process is gone, or that cannot be read', async () => {
    const dir = cachedir();
    const gone = spawn('true', [], { stdio: 'ignore' });
    await new Promise((resolve) => gone.on('exit', resolve));
    fs.writeFileSync(path.join(dir, 'state-run.lock'), JSON.stringify({ ...me, jid: '20261203120000000003', pid: gone.pid }));
    const lock = new StateLockFile(dir);
    assert.equal(lock.tryAcquire(me), undefined);
    assert.equal(JSON.parse(fs.readFileSync(lock.file, 'utf8')).jid, me.jid);
    fs.writeFileSync(lock.file, '{half');
    assert.equal(lock.tryAcquire({ ...me, jid: '20261203120000000004' }), undefined);
  });

  it('processes racing for it never hold it together: the holder is on disk whole before anyone can read it', async () => {
    // before, the file was created empty and then written: a racer reading it in between took the
    // empty file for stale, removed it and took the lock while its holder still ran
    const dir = cachedir();
    const inside = path.join(dir, 'inside');
    const lockModule = new URL('../../../src/state/index.js', import.meta.url).href;
    const script = `
      import * as fs from 'node:fs';
      const { StateLockFile } = await import(${JSON.stringify(lockModule)});
      const lock = new StateLockFile(${JSON.stringify(dir)});
      let held = 0, overlaps = 0, n = 0;
      const end = Date.now() + 1500;
      while (Date.now() < end) {
        const me = { jid: String(process.pid) + '-' + n++, pid: process.pid, fun: 'state.apply', started: new Date().toISOString() };
        if (lock.tryAcquire(me) !== undefined) continue;
        try { fs.mkdirSync(${JSON.stringify(inside)}); } catch { overlaps++; }
        held++;
        const spin = Date.now() + 1;
        while (Date.now() < spin) {}
        fs.rmSync(${JSON.stringify(inside)}, { recursive: true, force: true });
        lock.release(me);
      }
      process.stdout.write(JSON.stringify({ held, overlaps }));
    `;
    const runs = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<{ held: number; overlaps: number }>((resolve, reject) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            child.stdout.on('data', (d: Buffer) => {
              out += d.toString();
            });
            child.on('error', reject);
            child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { held: number; overlaps: number }) : reject(new Error(`racer exited ${code}`))));
          }),
      ),
    );
    assert.deepEqual(
      runs.map((r) => r.overlaps),
      [0, 0, 0, 0],
      `two processes held the lock at once: ${JSON.stringify(runs)}`,
    );
    assert.ok(runs.reduce((n, r) => n + r.held, 0) > 10, JSON.stringify(runs));
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
      'a temporary holder file was left behind',
    );
  });
});
