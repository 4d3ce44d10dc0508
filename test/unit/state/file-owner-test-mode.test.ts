// An owner that does not exist yet (issue 22: elasticsearch, zabbix, prometheus, vault formulas,
// whose package creates the user earlier in the same run): Salt's _check_user lets test=True
// through with the change reported, and fails the real run with "User x is not available".

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileDirectory } from '../../../src/state/modules/file-directory.js';
import { fileManaged } from '../../../src/state/modules/file-managed.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

const NOBODY = 'brine-no-such-user';
let dir: string;
const p = (name: string): string => path.join(dir, name);
before(() => {
  dir = tempDir();
  fs.writeFileSync(p('existing.yml'), 'a: 1\n');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('file states with an owner that does not exist yet', () => {
  it('test=True: file.managed reports the owner change instead of failing; nothing is written', async () => {
    const snap = snapshot(dir);
    const r = await runState(fileManaged, { name: p('existing.yml'), contents: 'a: 1', user: NOBODY, group: NOBODY }, { test: true });
    assert.equal(r.result, null, r.comment);
    assert.equal((r.changes as Record<string, unknown>).user, NOBODY);
    assert.equal((r.changes as Record<string, unknown>).group, NOBODY);
    const d = await runState(fileDirectory, { name: p('data'), user: NOBODY }, { test: true });
    assert.equal(d.result, null, d.comment);
    assert.deepEqual(snapshot(dir), snap);
  });

  it('the real run still fails with Salt\'s "User x is not available"', async () => {
    const r = await runState(fileManaged, { name: p('existing.yml'), contents: 'a: 1', user: NOBODY });
    assert.equal(r.result, false);
    assert.match(r.comment, new RegExp(`^User ${NOBODY} is not available`));
    const d = await runState(fileDirectory, { name: p('data'), group: NOBODY });
    assert.equal(d.result, false);
    assert.match(d.comment, new RegExp(`Group ${NOBODY} is not available`));
    assert.equal(fs.existsSync(p('data')), false);
  });
});
