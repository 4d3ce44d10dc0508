// file.serialize on real files: the text is what Salt's serializers print (json.dumps indent 2,
// sorted keys; PyYAML block style), plus Salt's "\n"; the comments and changes are those of
// salt/states/file.py serialize() (file.manage_file for real runs, its own test=True words).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileSerialize } from '../../../src/state/modules/file-serialize.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir('brine-ser-');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);

describe('file.serialize', () => {
  it('json: test=True on a new file, then writes it, then is in the correct state', async () => {
    const args = { name: p('app.json'), serializer: 'json', dataset: { name: 'app', workers: 4, hosts: ['a', 'b'] } };
    const t = await runState(fileSerialize, args, { test: true });
    assert.deepEqual(t, { name: p('app.json'), result: null, changes: { newfile: p('app.json') }, comment: `Dataset will be serialized and stored into ${p('app.json')}` });
    assert.equal(fs.existsSync(p('app.json')), false);
    const r = await runState(fileSerialize, args);
    assert.deepEqual(r, { name: p('app.json'), result: true, changes: { diff: 'New file' }, comment: `File ${p('app.json')} updated` });
    assert.equal(fs.readFileSync(p('app.json'), 'utf8'), '{\n  "hosts": [\n    "a",\n    "b"\n  ],\n  "name": "app",\n  "workers": 4\n}\n');
    assert.deepEqual(await runState(fileSerialize, args, { test: true }), { name: p('app.json'), result: true, changes: {}, comment: `The file ${p('app.json')} is in the correct state` });
    assert.equal((await runState(fileSerialize, args)).comment, `File ${p('app.json')} is in the correct state`);
  });

  it('yaml (the default) in block style; a changed dataset reports the diff', async () => {
    const r = await runState(fileSerialize, { name: p('c.yaml'), dataset: { b: [1, 2], a: { x: 'y' } } });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('c.yaml'), 'utf8'), 'a:\n  x: y\nb:\n- 1\n- 2\n');
    const before_ = snapshot(dir);
    const t = await runState(fileSerialize, { name: p('c.yaml'), dataset: { b: [1, 3], a: { x: 'y' } } }, { test: true });
    assert.equal(t.result, null);
    assert.equal(t.changes.diff, '--- \n+++ \n@@ -2,4 +2,4 @@\n   x: y\n b:\n - 1\n-- 2\n+- 3\n');
    assert.deepEqual(snapshot(dir), before_);
  });

  it('merge_if_exists merges into the current data; a merge that changes nothing is in the correct state', async () => {
    fs.writeFileSync(p('m.json'), '{"keep": true, "nested": {"a": 1}}');
    const r = await runState(fileSerialize, { name: p('m.json'), serializer: 'json', merge_if_exists: true, dataset: { nested: { b: 2 } } });
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(JSON.parse(fs.readFileSync(p('m.json'), 'utf8')), { keep: true, nested: { a: 1, b: 2 } });
    const same = await runState(fileSerialize, { name: p('m.json'), serializer: 'json', merge_if_exists: true, dataset: { nested: { a: 1 } } });
    assert.deepEqual(same, { name: p('m.json'), result: true, changes: {}, comment: `The file ${p('m.json')} is in the correct state` });
  });

  it('dataset_pillar and argument errors in Salt words', async () => {
    const r = await runState(fileSerialize, { name: p('pil.json'), serializer: 'json', dataset_pillar: 'app:conf' }, { pillar: { app: { conf: { port: 80 } } } });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('pil.json'), 'utf8'), '{\n  "port": 80\n}\n');
    assert.equal((await runState(fileSerialize, { name: p('x.json') })).comment, "Neither 'dataset' nor 'dataset_pillar' was defined");
    assert.equal((await runState(fileSerialize, { name: p('x.json'), dataset: { a: 1 }, serializer: 'json', formatter: 'json' })).comment, 'Only one of serializer and formatter are allowed');
    assert.match(
      (await runState(fileSerialize, { name: p('x.toml'), dataset: { a: 1 }, serializer: 'toml' })).comment,
      /^The toml serializer could not be found\. It either does not exist or its prerequisites are not installed\./,
    );
    assert.deepEqual(await runState(fileSerialize, { name: p('absent.json'), dataset: { a: 1 }, create: false }), {
      name: p('absent.json'),
      result: true,
      changes: {},
      comment: `File ${p('absent.json')} is not present and is not set for creation`,
    });
  });
});
