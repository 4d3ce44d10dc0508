// file.managed `template: py` (issue 22): the source is a Python file whose run() returns the
// file's text, run by python3 as Salt's salt/utils/templates.py `py` does, with grains, pillar,
// the state's name and `context` on the module (its salt[...] calls take the #!py renderer's path).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileManaged } from '../../../src/state/modules/file-managed.js';
import { DirFileClient, runState, tempDir } from './file-fixture.js';

let dir: string;
let root: string;
let cache: string;
let files: DirFileClient;
before(() => {
  dir = tempDir();
  root = tempDir('brine-root-');
  cache = tempDir('brine-cache-');
  files = new DirFileClient(root, cache);
  fs.mkdirSync(path.join(root, 'web'));
  // module-level code runs before Salt sets its names: only run() may read them
  fs.writeFileSync(
    path.join(root, 'web', 'motd.py'),
    [
      'LINES = ["motd"]',
      'def run():',
      '    lines = LINES + ["os=%s" % grains["os"], "port=%s" % context["port"], "also=%s" % port, "name=%s" % name]',
      '    return "\\n".join(lines) + "\\n"',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(root, 'web', 'data.py'), 'def run():\n    return {"a": 1}\n');
  fs.writeFileSync(path.join(root, 'web', 'broken.py'), 'def run():\n    return undefined_name\n');
});
after(() => {
  for (const d of [dir, root, cache]) fs.rmSync(d, { recursive: true, force: true });
});
const p = (name: string): string => path.join(dir, name);

describe('file.managed template: py', () => {
  it("writes what run() returns, with grains, context and the state's name", async () => {
    const args = { name: p('motd'), source: 'salt://web/motd.py', template: 'py', defaults: { port: 80 }, context: { port: 8080 } };
    const t = await runState(fileManaged, args, { files, test: true });
    assert.equal(t.result, null, t.comment);
    assert.equal(fs.existsSync(p('motd')), false, 'test=True writes nothing');
    const r = await runState(fileManaged, args, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('motd'), 'utf8'), `motd\nos=Debian\nport=8080\nalso=8080\nname=${p('motd')}\n`);
    const again = await runState(fileManaged, args, { files });
    assert.deepEqual(again.changes, {});
  });

  it("a run() that returns no text writes Python's str() of it, as Salt does", async () => {
    const r = await runState(fileManaged, { name: p('data'), source: 'salt://web/data.py', template: 'py' }, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('data'), 'utf8'), "{'a': 1}");
  });

  it('a Python error fails the state naming the file and line, and writes nothing', async () => {
    const r = await runState(fileManaged, { name: p('broken'), source: 'salt://web/broken.py', template: 'py' }, { files });
    assert.equal(r.result, false);
    assert.match(r.comment, /salt:\/\/web\/broken\.py.*2.*Python error in the 'py' template: NameError: name 'undefined_name' is not defined/s);
    assert.equal(fs.existsSync(p('broken')), false);
  });
});
