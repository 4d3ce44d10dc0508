// The one atomic-write helper (src/util/atomic-write.ts) used by the key store, the master pin
// and the minion's return queue: exact mode, whole content even when write(2) is short, and no
// temporary file left behind when a step fails.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ATOMIC_TMP_SUFFIX, writeFileAtomicSync, type AtomicWriteFs } from '../../../src/util/atomic-write.js';

function tmpDir(t: { after(fn: () => void): void }): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-atomic-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

test('writes the content with exactly the mode asked for, whatever the umask, and replaces an old file', (t) => {
  const d = tmpDir(t);
  const file = path.join(d, 'minion.pub');
  const old = process.umask(0o077);
  try {
    writeFileAtomicSync(file, 'first', 0o644);
    assert.equal(fs.statSync(file).mode & 0o777, 0o644);
    writeFileAtomicSync(file, 'second', { mode: 0o600, fsync: false });
  } finally {
    process.umask(old);
  }
  assert.equal(fs.readFileSync(file, 'utf8'), 'second');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(d), ['minion.pub']);
});

test('a short write(2) is continued until everything is out', (t) => {
  const d = tmpDir(t);
  const file = path.join(d, 'ret.json');
  const short: AtomicWriteFs = {
    ...fs,
    // at most 3 bytes per call, as a signal-interrupted or nearly full disk may do
    writeSync: ((fd: number, buf: Buffer, off: number, len: number) => fs.writeSync(fd, buf, off, Math.min(3, len))) as typeof fs.writeSync,
  };
  const body = JSON.stringify({ jid: '20250101000000000001', ret: 'é'.repeat(50) });
  writeFileAtomicSync(file, body, { mode: 0o600, fs: short });
  assert.equal(fs.readFileSync(file, 'utf8'), body);
});

test('a failing step leaves the old file as it was and no temporary file behind', (t) => {
  const d = tmpDir(t);
  const file = path.join(d, 'key');
  fs.writeFileSync(file, 'old');
  const failing: AtomicWriteFs = {
    ...fs,
    renameSync: () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    },
  };
  assert.throws(() => writeFileAtomicSync(file, 'new', { mode: 0o600, fs: failing }), /ENOSPC/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'old');
  assert.deepEqual(fs.readdirSync(d), ['key'], `no ${ATOMIC_TMP_SUFFIX} file left`);
});
