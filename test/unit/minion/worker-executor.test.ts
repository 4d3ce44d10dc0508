// A minion that switched to `user:` loads its job workers as that account: when the account
// cannot read brine's code, the job fails with a message that says so (not a module-loader error).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { unreadableCode } from '../../../src/minion/worker-executor.js';

const isRoot = process.getuid?.() === 0;

test('code this process can read is not reported', () => {
  assert.equal(unreadableCode(path.dirname(new URL(import.meta.url).pathname)), undefined);
});

test('after switching to nobody, a directory closed to others is reported with the uid and the fix', { skip: isRoot ? false : 'needs root to switch to nobody' }, (t) => {
  const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-closed-'));
  t.after(() => fs.rmSync(closed, { recursive: true, force: true }));
  fs.chmodSync(closed, 0o700);
  // the module is loaded as root, then the process becomes nobody, as a daemon with user: does
  const moduleUrl = pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..', 'src', 'minion', 'worker-executor.js')).href;
  const script = `import(${JSON.stringify(moduleUrl)}).then((m) => { process.setgid(65534); process.setuid(65534); process.stdout.write(String(m.unreadableCode(${JSON.stringify(closed)}))); });`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`^this process \\(uid 65534\\) cannot read brine's code in ${closed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(EACCES\\); make the installation readable by the user: account`),
  );
});
