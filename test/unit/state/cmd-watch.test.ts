// cmd.watch is Salt's alias of cmd.wait (salt/states/cmd.py: `watch = alias_function(wait,
// "watch")`): without a triggering watch it returns {changes: {}, result: True, comment: ''} and
// runs nothing; a watch runs the command (mod_watch). Real trees use it (issue 22 corpus: 6 files).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runState } from './state-ctx.js';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-cmdwatch-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('cmd.watch', () => {
  it('behaves as cmd.wait: idle without a watch, runs the command from a watch, says it would under test=True', async () => {
    const marker = path.join(tmp, 'watched');
    const idle = await runState('cmd.watch', { name: `touch ${marker}` });
    assert.deepEqual(idle, { name: `touch ${marker}`, result: true, changes: {}, comment: '' });
    assert.equal(fs.existsSync(marker), false);
    const dry = await runState('cmd.watch', { name: `touch ${marker}` }, { watch: true, test: true });
    assert.equal(dry.result, null);
    assert.equal(fs.existsSync(marker), false);
    const watched = await runState('cmd.watch', { name: `touch ${marker}` }, { watch: true });
    assert.equal(watched.result, true, watched.comment);
    assert.equal(watched.changes.retcode, 0);
    assert.equal(fs.existsSync(marker), true);
  });
});
