import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileRecurse } from '../../../src/state/modules/file-recurse.js';
import { DirFileClient, runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
let root: string;
let cache: string;
let files: DirFileClient;
before(() => {
  dir = tempDir();
  root = tempDir('brine-root-');
  cache = tempDir('brine-cache-');
  files = new DirFileClient(root, cache);
  fs.mkdirSync(path.join(root, 'app/conf.d/sub'), { recursive: true });
  fs.mkdirSync(path.join(root, 'app/conf.d/empty'));
  fs.writeFileSync(path.join(root, 'app/conf.d/a.conf'), 'a\n');
  fs.writeFileSync(path.join(root, 'app/conf.d/sub/b.conf'), 'b\n');
  fs.writeFileSync(path.join(root, 'app/conf.d/skip.tmp'), 'tmp\n');
  fs.writeFileSync(path.join(root, 'app/other.conf'), 'not under the source\n');
});
after(() => {
  for (const d of [dir, root, cache]) fs.rmSync(d, { recursive: true, force: true });
});
const p = (name: string): string => path.join(dir, name);

describe('file.recurse', () => {
  it('test=True reports every file and creates nothing', async () => {
    const before_ = snapshot(dir);
    const t = await runState(fileRecurse, { name: p('conf.d'), source: 'salt://app/conf.d' }, { files, test: true });
    assert.equal(t.result, null);
    // Salt (salt/states/file.py recurse): each managed directory's and file's own return, per path
    assert.deepEqual(Object.keys(t.changes).sort(), [p('conf.d'), p('conf.d/a.conf'), p('conf.d/skip.tmp'), p('conf.d/sub'), p('conf.d/sub/b.conf')]);
    assert.deepEqual(t.changes[p('conf.d')], { [p('conf.d')]: { directory: 'new' } });
    assert.deepEqual(t.changes[p('conf.d/a.conf')], { newfile: p('conf.d/a.conf') });
    assert.ok(t.comment.startsWith(`#### ${p('conf.d')} ####\nThe following files will be changed:\n${p('conf.d')}: directory - new\n`), t.comment);
    assert.ok(t.comment.includes(`\n#### ${p('conf.d/a.conf')} ####\nThe file ${p('conf.d/a.conf')} is set to be changed\nNote: No changes made`), t.comment);
    assert.deepEqual(snapshot(dir), before_);
  });

  it("a target whose parents are missing is no error: test=True reports it, the run creates them (Salt's makedirs_perms; tdf's nginx includes, issue 22)", async () => {
    const target = p('missing/parent/includes');
    const t = await runState(fileRecurse, { name: target, source: 'salt://app/conf.d', exclude_pat: '*.tmp' }, { files, test: true });
    assert.equal(t.result, null, t.comment);
    assert.deepEqual(t.changes[target], { [target]: { directory: 'new' } });
    assert.equal(fs.existsSync(p('missing')), false);
    const r = await runState(fileRecurse, { name: target, source: 'salt://app/conf.d', exclude_pat: '*.tmp' }, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(path.join(target, 'sub', 'b.conf'), 'utf8'), 'b\n');
    fs.rmSync(p('missing'), { recursive: true, force: true });
  });

  it('mirrors the files with file_mode, then reports no changes', async () => {
    const args = { name: p('conf.d'), source: 'salt://app/conf.d', file_mode: '0640', dir_mode: '0750', exclude_pat: '*.tmp' };
    const r = await runState(fileRecurse, args, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `Recursively updated ${p('conf.d')}`);
    assert.deepEqual(r.changes[p('conf.d/a.conf')], { diff: 'New file', mode: '0640' });
    assert.equal(fs.readFileSync(p('conf.d/sub/b.conf'), 'utf8'), 'b\n');
    assert.equal(fs.statSync(p('conf.d/sub/b.conf')).mode & 0o777, 0o640);
    assert.equal(fs.statSync(p('conf.d/sub')).mode & 0o777, 0o750);
    assert.equal(fs.existsSync(p('conf.d/skip.tmp')), false);
    assert.equal(fs.existsSync(p('conf.d/empty')), false);
    const again = await runState(fileRecurse, args, { files });
    assert.deepEqual(again, { name: p('conf.d'), result: true, changes: {}, comment: `The directory ${p('conf.d')} is in the correct state` });
  });

  it('reports a changed file with its diff and include_empty creates empty directories', async () => {
    fs.writeFileSync(p('conf.d/a.conf'), 'changed locally\n');
    const r = await runState(fileRecurse, { name: p('conf.d'), source: 'salt://app/conf.d', include_empty: true, exclude_pat: '*.tmp' }, { files });
    assert.equal(r.result, true, r.comment);
    assert.match(String((r.changes[p('conf.d/a.conf')] as { diff: string }).diff), /-changed locally\n\+a\n/);
    assert.deepEqual(r.changes[p('conf.d/empty')], { [p('conf.d/empty')]: { directory: 'new' } });
    assert.ok(fs.statSync(p('conf.d/empty')).isDirectory());
  });

  it('clean removes local files not in the source but keeps excluded ones', async () => {
    fs.writeFileSync(p('conf.d/stray.conf'), 'x');
    fs.writeFileSync(p('conf.d/local.tmp'), 'x');
    const args = { name: p('conf.d'), source: 'salt://app/conf.d', clean: true, include_empty: true, exclude_pat: '*.tmp' };
    const t = await runState(fileRecurse, args, { files, test: true });
    // test=True: what clean would remove is a comment section, not a change (Salt's add_comment)
    assert.equal(t.changes.removed, undefined);
    assert.equal(t.result, null);
    assert.ok(t.comment.endsWith(`#### removed ####\n${p('conf.d/stray.conf')}`), t.comment);
    assert.ok(fs.existsSync(p('conf.d/stray.conf')));
    const r = await runState(fileRecurse, args, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.existsSync(p('conf.d/stray.conf')), false);
    assert.ok(fs.existsSync(p('conf.d/local.tmp')));
    assert.deepEqual((await runState(fileRecurse, args, { files })).changes, {});
  });

  it('a template that cannot be rendered fails before any file is written', async () => {
    fs.mkdirSync(path.join(root, 'tpl'));
    fs.writeFileSync(path.join(root, 'tpl', 'a.conf'), 'plain\n');
    fs.writeFileSync(path.join(root, 'tpl', 'b.conf'), 'broken {{ \n');
    const r = await runState(fileRecurse, { name: p('tpl'), source: 'salt://tpl', template: 'jinja' }, { files });
    assert.equal(r.result, false);
    assert.match(r.comment, /^Nothing was changed: Unable to render salt:\/\/tpl\/b\.conf/);
    assert.equal(fs.existsSync(p('tpl')), false);
  });

  it('a missing source directory or a non-salt source fails', async () => {
    const r = await runState(fileRecurse, { name: p('x'), source: 'salt://nope' }, { files });
    assert.equal(r.result, false);
    assert.match(r.comment, /does not exist on the file server/);
    assert.equal(fs.existsSync(p('x')), false);
    const local = await runState(fileRecurse, { name: p('x'), source: '/etc' }, { files });
    assert.equal(local.result, false);
    const nofs = await runState(fileRecurse, { name: p('x'), source: 'salt://app/conf.d' });
    assert.match(nofs.comment, /FILESERVER_UNAVAILABLE/);
  });

  it('a source list mirrors the first directory that exists; pattern lists match any of their patterns (issue 22: salt-formula, apt-formula)', async () => {
    // Salt 3007 recurse: _validate_str_list(source) then file.source_list picks the first that exists
    const r = await runState(
      fileRecurse,
      { name: p('picked'), source: ['salt://nope/per-minion', 'salt://app/conf.d/'], include_pat: ['*.conf', '*.tmp'], exclude_pat: ['skip.*', 'E@^sub/'] },
      { files },
    );
    assert.equal(r.result, true, r.comment);
    // include_pat: any of the list; exclude_pat: any of the list (check_include_exclude)
    assert.deepEqual(fs.readdirSync(p('picked')).sort(), ['a.conf']);
    const none = await runState(fileRecurse, { name: p('none'), source: ['salt://nope/a', 'salt://nope/b'] }, { files });
    assert.equal(none.result, false);
    assert.equal(none.comment, 'Recurse failed: none of the specified sources were found');
    const bad = await runState(fileRecurse, { name: p('none'), source: ['salt://app/conf.d', '/etc'] }, { files });
    assert.equal(bad.comment, "Invalid source '/etc' (must be a salt:// URI)");
    assert.equal(fs.existsSync(p('none')), false);
  });

  it("creates missing parents of name as Salt does, makedirs or not (issue 22: salt-formula's /etc/salt/master.d)", async () => {
    const name = p('etc/salt/master.d');
    const args = { name, source: 'salt://app/conf.d', exclude_pat: '*.tmp', dir_mode: '0750' };
    const before_ = snapshot(dir);
    const t = await runState(fileRecurse, args, { files, test: true });
    assert.equal(t.result, null, t.comment);
    assert.deepEqual(t.changes[name], { [name]: { directory: 'new' } });
    assert.deepEqual(t.changes[path.join(name, 'a.conf')], { newfile: path.join(name, 'a.conf') });
    assert.deepEqual(snapshot(dir), before_, 'test=True creates nothing');
    const r = await runState(fileRecurse, args, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(path.join(name, 'sub/b.conf'), 'utf8'), 'b\n');
    assert.equal(fs.statSync(p('etc/salt')).mode & 0o777, 0o750, 'a created parent gets dir_mode');
  });
});
