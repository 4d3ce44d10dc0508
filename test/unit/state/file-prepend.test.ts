// file.prepend on real files. Comments and the changes' key are Salt's (salt/states/file.py,
// prepend): "Prepended N lines", "File X is in correct state", test=True "File X is set to be
// updated" with result None and a unified diff under changes.diff. A chunk found anywhere in the
// file is not added again; header: True compares the first lines verbatim. Real trees use it to
// put a shebang on a tool a pip install wrote (corpus of issue 22: 17 files in 2 trees).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { filePrepend, prependMissing } from '../../../src/state/modules/file-prepend.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir();
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);

describe('file.prepend', () => {
  it('puts the missing lines first, in order; a second run changes nothing', async () => {
    fs.writeFileSync(p('tool.py'), 'import sys\nprint(sys.argv)\n');
    const t = await runState(filePrepend, { name: p('tool.py'), text: '#!/opt/tool/bin/python3' }, { test: true });
    assert.equal(t.result, null);
    assert.equal(t.comment, `File ${p('tool.py')} is set to be updated`);
    assert.match(String((t.changes as { diff: string }).diff), /^\+#!\/opt\/tool\/bin\/python3$/m);
    assert.equal(fs.readFileSync(p('tool.py'), 'utf8'), 'import sys\nprint(sys.argv)\n', 'test=True changes nothing');
    const r = await runState(filePrepend, { name: p('tool.py'), text: ['#!/opt/tool/bin/python3', '# managed'] });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, 'Prepended 2 lines');
    assert.ok(typeof (r.changes as { diff?: unknown }).diff === 'string');
    assert.equal(fs.readFileSync(p('tool.py'), 'utf8'), '#!/opt/tool/bin/python3\n# managed\nimport sys\nprint(sys.argv)\n');
    const before_ = snapshot(dir);
    const again = await runState(filePrepend, { name: p('tool.py'), text: ['#!/opt/tool/bin/python3', '# managed'] });
    assert.deepEqual(again, { name: p('tool.py'), result: true, changes: {}, comment: `File ${p('tool.py')} is in correct state` });
    assert.deepEqual(snapshot(dir), before_);
  });

  it('a chunk present further down is not added again, unless header: True wants it first', async () => {
    fs.writeFileSync(p('conf'), 'a = 1\n# managed   by salt\n');
    const r = await runState(filePrepend, { name: p('conf'), text: '# managed by salt' });
    assert.equal(r.comment, `File ${p('conf')} is in correct state`);
    const h = await runState(filePrepend, { name: p('conf'), text: '# managed by salt', header: true });
    assert.equal(h.comment, 'Prepended 1 lines');
    assert.equal(fs.readFileSync(p('conf'), 'utf8'), '# managed by salt\na = 1\n# managed   by salt\n');
    const h2 = await runState(filePrepend, { name: p('conf'), text: '# managed by salt', header: true });
    assert.equal(h2.comment, `File ${p('conf')} is in correct state`);
  });

  it('a missing file is created with the text; a missing directory needs makedirs', async () => {
    const r = await runState(filePrepend, { name: p('new.txt'), text: 'first' });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('new.txt'), 'utf8'), 'first\n');
    const noDir = await runState(filePrepend, { name: p('no/such/file'), text: 'x' });
    assert.equal(noDir.result, false);
    const made = await runState(filePrepend, { name: p('no/such/file'), text: 'x', makedirs: true });
    assert.equal(made.result, true, made.comment);
    assert.equal(fs.readFileSync(p('no/such/file'), 'utf8'), 'x\n');
  });

  it('the pure edit: multi-line chunks, counts', () => {
    assert.deepEqual(prependMissing('z\n', ['a\nb', 'z'], false), { text: 'a\nb\nz\n', added: 2 });
    assert.deepEqual(prependMissing('a\nb\nz\n', ['a\nb'], true), { text: 'a\nb\nz\n', added: 0 });
  });
});
