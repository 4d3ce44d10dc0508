// Issue 22: a file state whose user or group does not exist yet fails a real run ("User x is not
// available"), but not a test=True run: Salt's _check_user only logs it there, since the same
// run may create the user first (users-formula: the home directory of a user.present of the run).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileDirectory } from '../../../src/state/modules/file-directory.js';
import { fileManaged } from '../../../src/state/modules/file-managed.js';
import { runState, tempDir } from './file-fixture.js';

const dir = tempDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const ghost = 'no-such-user-brine';

describe('file states and an owner the run has not created yet', () => {
  it('test=True reports what would change, result None; a real run fails and writes nothing', async () => {
    const home = path.join(dir, 'home', ghost);
    const t = await runState(fileDirectory, { name: home, user: ghost, group: ghost, makedirs: true }, { test: true });
    assert.equal(t.result, null, t.comment);
    const conf = path.join(dir, 'app.conf');
    fs.writeFileSync(conf, 'x\n');
    const m = await runState(fileManaged, { name: conf, contents: 'x', user: ghost }, { test: true });
    assert.deepEqual([m.result, m.changes], [null, { user: ghost }]);
    const real = await runState(fileManaged, { name: conf, contents: 'y', user: ghost });
    assert.deepEqual([real.result, real.comment], [false, `User ${ghost} is not available; create it first (user.present) or fix the name`]);
    assert.equal(fs.readFileSync(conf, 'utf8'), 'x\n');
    assert.equal(fs.existsSync(home), false);
  });
});
