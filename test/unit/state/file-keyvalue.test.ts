// file.keyvalue on real files, pinned to Salt 3007's salt/states/file.py keyvalue(): its
// "- old / + new" diff, <EOF> markers for appended keys, "(from int type)" notes, the
// "Changed N lines" comment, an empty comment when nothing changes, and the test=True report.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileKeyvalue } from '../../../src/state/modules/file-keyvalue.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir('brine-kv-');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);

const SSHD = '#Port 22\nPermitRootLogin yes\n#LoginGraceTime 2m\nUsePAM yes\n';
const HARDEN = {
  key_values: { permitrootlogin: 'without-password', LoginGraceTime: '1m', DisableForwarding: 'yes' },
  separator: ' ',
  uncomment: '# ',
  key_ignore_case: true,
  append_if_not_found: true,
};
const DIFF = '- PermitRootLogin yes\n+ PermitRootLogin without-password\n- #LoginGraceTime 2m\n+ LoginGraceTime 1m\n- <EOF>\n+ DisableForwarding yes\n+ <EOF>\n';

describe('file.keyvalue', () => {
  it('test=True predicts the diff and writes nothing', async () => {
    fs.writeFileSync(p('sshd_config'), SSHD);
    const before_ = snapshot(dir);
    const t = await runState(fileKeyvalue, { name: p('sshd_config'), ...HARDEN }, { test: true });
    assert.deepEqual(t, {
      name: p('sshd_config'),
      result: null,
      changes: { diff: DIFF },
      comment: `File ${p('sshd_config')} is set to be changed (3 lines)\nPredicted diff:\n\r\t\t${DIFF.split(/(?<=\n)/).join('\r\t\t')}`,
    });
    assert.deepEqual(snapshot(dir), before_);
  });

  it('hardens an sshd_config (keeps the matched key, uncomments, appends), then needs nothing', async () => {
    fs.writeFileSync(p('sshd_config'), SSHD);
    const r = await runState(fileKeyvalue, { name: p('sshd_config'), ...HARDEN });
    assert.deepEqual(r, { name: p('sshd_config'), result: true, changes: { diff: DIFF }, comment: 'Changed 3 lines' });
    assert.equal(fs.readFileSync(p('sshd_config'), 'utf8'), '#Port 22\nPermitRootLogin without-password\nLoginGraceTime 1m\nUsePAM yes\nDisableForwarding yes\n');
    assert.deepEqual(await runState(fileKeyvalue, { name: p('sshd_config'), ...HARDEN }), { name: p('sshd_config'), result: true, changes: {}, comment: '' });
  });

  it('key/value shorthand with a number notes its type; count 0 removes every line with the key', async () => {
    fs.writeFileSync(p('kv'), 'MaxAuthTries=6\nA=1\nA=2\n');
    const r = await runState(fileKeyvalue, { name: p('kv'), key: 'MaxAuthTries', value: 3 });
    assert.equal(r.changes.diff, '- MaxAuthTries=6\n+ MaxAuthTries=3 (from int type)\n');
    const del = await runState(fileKeyvalue, { name: p('kv'), key: 'A', value: 'x', count: 0 });
    assert.equal(del.comment, 'Changed 2 lines');
    assert.equal(fs.readFileSync(p('kv'), 'utf8'), 'MaxAuthTries=3\n');
  });

  it('argument and file errors in Salt words', async () => {
    assert.deepEqual(await runState(fileKeyvalue, { name: p('nope'), key: 'a', value: 'b' }), { name: p('nope'), result: false, changes: {}, comment: `unable to open ${p('nope')}` });
    assert.equal((await runState(fileKeyvalue, { name: p('nope'), key: 'a', value: 'b', ignore_if_missing: true })).result, true);
    assert.equal((await runState(fileKeyvalue, { name: p('kv') })).comment, 'file.keyvalue key and value not supplied and key_values is empty');
    assert.equal((await runState(fileKeyvalue, { name: p('kv'), key_values: ['a'] })).comment, 'file.keyvalue key and value not supplied and key_values is not a dictionary');
    assert.equal((await runState(fileKeyvalue, { name: p('kv'), key: 'a', value: 'b', key_values: { c: 'd' } })).comment, 'file.keyvalue can not combine key_values with key and value');
  });
});
