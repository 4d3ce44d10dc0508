// The pre-auth connection gate (issue 8 point 2, threats.md #24): per-source and total caps on
// unauthenticated connections, and the file-descriptor reserve; a released slot frees its place.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PreauthGate, type PreauthSlot } from '../../../src/transport/preauth-gate.js';
import { countOpenFds, readFdLimit } from '../../../src/transport/fd-limit.js';

const limits = { maxTotal: 5, maxPerSource: 2, fdLimit: undefined, fdReserve: 0, baselineFds: 0 };

test('caps unauthenticated connections per source and in total; release frees the place once', () => {
  const gate = new PreauthGate(limits);
  const a1 = gate.admit('10.0.0.1', 1) as PreauthSlot;
  gate.admit('10.0.0.1', 2);
  assert.equal(gate.admit('10.0.0.1', 3), 'per_source');
  const others = ['10.0.0.2', '10.0.0.3', '10.0.0.4'].map((src) => gate.admit(src, 3) as PreauthSlot);
  assert.ok(others.every((slot) => typeof slot === 'object'));
  assert.equal(gate.admit('10.0.0.9', 6), 'total');
  a1.release();
  a1.release();
  assert.equal(gate.unauthenticated, 4, 'a second release changes nothing');
  assert.equal(gate.unauthenticatedFrom('10.0.0.1'), 1);
  assert.equal(typeof gate.admit('10.0.0.1', 6), 'object');
  others[0]!.release();
  assert.equal(gate.admit('10.0.0.1', 7), 'per_source', 'room in total, none for this source');
});

test('refuses when the open sockets would eat into the descriptor reserve, authenticated ones included', () => {
  const gate = new PreauthGate({ maxTotal: 0, maxPerSource: 0, fdLimit: 300, fdReserve: 100, baselineFds: 30 });
  assert.equal(typeof gate.admit('10.0.0.1', 170), 'object');
  assert.equal(gate.admit('10.0.0.1', 171), 'fd_reserve');
  // without a known limit (no /proc) the reserve is off
  const off = new PreauthGate({ maxTotal: 0, maxPerSource: 0, fdLimit: undefined, fdReserve: 100, baselineFds: 30 });
  assert.equal(typeof off.admit('10.0.0.1', 100_000), 'object');
});

test('reads the soft open-files limit from a limits file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-limits-'));
  try {
    const file = path.join(dir, 'limits');
    fs.writeFileSync(file, 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            300                  4096                 files\n');
    assert.equal(readFdLimit(file), 300);
    fs.writeFileSync(file, 'Max open files            unlimited            unlimited            files\n');
    assert.equal(readFdLimit(file), undefined);
    assert.equal(readFdLimit(path.join(dir, 'missing')), undefined);
    if (fs.existsSync('/proc/self/fd')) assert.ok((countOpenFds() ?? 0) >= 3);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
