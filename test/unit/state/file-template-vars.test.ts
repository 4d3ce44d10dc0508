// The variables a file.managed / file.recurse template sees besides grains, pillar, salt and opts:
// Salt's salt/modules/file.py get_managed renders with name, source, user, group, mode and attrs
// (salt/utils/templates.py wrap_tmpl_func lays `context` over them, so defaults/context win).
// Formulas write "managed by salt via {{ source }}" headers (issue 22 corpus: collectd-formula,
// 42 state files failed test=True on `'source' is undefined`).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileManaged } from '../../../src/state/modules/file-managed.js';
import { fileRecurse } from '../../../src/state/modules/file-recurse.js';
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
  fs.mkdirSync(path.join(root, 'app', 'conf.d'), { recursive: true });
  const tpl = '# managed by salt via {{ source }}\nname={{ name }} user={{ user }} group={{ group }} mode={{ mode }}\n';
  fs.writeFileSync(path.join(root, 'app', 'header.j2'), tpl);
  fs.writeFileSync(path.join(root, 'app', 'conf.d', 'one.conf'), tpl);
});
after(() => {
  for (const d of [dir, root, cache]) fs.rmSync(d, { recursive: true, force: true });
});
const p = (name: string): string => path.join(dir, name);

describe('template variables of file.managed and file.recurse', () => {
  it('file.managed: source is the salt:// URL used, name/user/group/mode the state arguments (None when not given)', async () => {
    const r = await runState(fileManaged, { name: p('a.conf'), source: 'salt://app/header.j2', template: 'jinja', mode: '0640' }, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('a.conf'), 'utf8'), `# managed by salt via salt://app/header.j2\nname=${p('a.conf')} user=None group=None mode=0640\n`);
  });

  it('with a source list, source is the entry that was used; context wins over the state arguments', async () => {
    const r = await runState(fileManaged, { name: p('b.conf'), source: ['salt://app/missing.j2', 'salt://app/header.j2'], template: 'jinja', context: { mode: 'from-context' } }, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('b.conf'), 'utf8'), `# managed by salt via salt://app/header.j2\nname=${p('b.conf')} user=None group=None mode=from-context\n`);
  });

  it('file.recurse: each file renders with its own name and source', async () => {
    const r = await runState(fileRecurse, { name: p('conf.d'), source: 'salt://app/conf.d', template: 'jinja', file_mode: '0600' }, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('conf.d/one.conf'), 'utf8'), `# managed by salt via salt://app/conf.d/one.conf\nname=${p('conf.d/one.conf')} user=None group=None mode=0600\n`);
  });
});
