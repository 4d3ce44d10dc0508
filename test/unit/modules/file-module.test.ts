import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);

describe('file.write, file.append, file.read', () => {
  it('write replaces the file with one line per argument and says how many', async () => {
    fs.writeFileSync(p('w.txt'), 'old contents\n');
    const res = await run('file.write', [p('w.txt'), 'one', 'two words']);
    assert.equal(res.return, `Wrote 2 lines to "${p('w.txt')}"`);
    assert.equal(fs.readFileSync(p('w.txt'), 'utf8'), 'one\ntwo words\n');
  });

  it('write takes args= as a list as Salt does', async () => {
    await run('file.write', [p('w2.txt')], { args: ['x', 'y'] });
    assert.equal(fs.readFileSync(p('w2.txt'), 'utf8'), 'x\ny\n');
  });

  it('append adds a missing final newline before appending', async () => {
    fs.writeFileSync(p('a.txt'), 'first');
    const res = await run('file.append', [p('a.txt'), 'second', 'third']);
    assert.equal(res.return, `Wrote 2 lines to "${p('a.txt')}"`);
    assert.equal(fs.readFileSync(p('a.txt'), 'utf8'), 'first\nsecond\nthird\n');
    await run('file.append', [p('a.txt'), 'fourth']);
    assert.equal(fs.readFileSync(p('a.txt'), 'utf8'), 'first\nsecond\nthird\nfourth\n');
  });

  it('append to a missing file is EXEC_FAILED naming the path (it never creates it)', async () => {
    const res = await run('file.append', [p('nope.txt'), 'x']);
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.match(String(res.error?.message), new RegExp(`'${p('nope.txt')}' does not exist`));
    assert.equal(fs.existsSync(p('nope.txt')), false);
  });

  it('read returns the contents; binary=true returns base64', async () => {
    fs.writeFileSync(p('r.bin'), Buffer.from([0, 1, 2, 255]));
    fs.writeFileSync(p('r.txt'), 'héllo\n');
    assert.equal((await run('file.read', [p('r.txt')])).return, 'héllo\n');
    assert.equal((await run('file.read', [p('r.bin')], { binary: true })).return, 'AAEC/w==');
  });

  it('read of a missing file is EXEC_FAILED with the path, not a stack trace', async () => {
    const res = await run('file.read', [p('missing')]);
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.equal(res.error?.message, `file.read: '${p('missing')}' does not exist; check the path`);
  });

  it('relative paths are refused with BAD_ARGUMENTS', async () => {
    const res = await run('file.read', ['etc/hosts']);
    assert.equal(res.error?.code, 'BAD_ARGUMENTS');
    assert.match(String(res.error?.message), /must be absolute/);
  });
});

describe('file.touch, file.remove, file.mkdir, existence checks', () => {
  it('touch creates a file and sets the given times', async () => {
    const res = await run('file.touch', [p('t.txt'), 1000000000, 1200000000]);
    assert.equal(res.return, true);
    const st = fs.statSync(p('t.txt'));
    assert.equal(st.size, 0);
    assert.equal(Math.round(st.atimeMs / 1000), 1000000000);
    assert.equal(Math.round(st.mtimeMs / 1000), 1200000000);
    const bad = await run('file.touch', [p('t.txt')], { atime: 'yesterday' });
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
  });

  it('mkdir creates parents and applies mode and owner to the created directories', async () => {
    const deep = p('m/a/b');
    const res = await run('file.mkdir', [deep], { mode: '750', user: 'nobody' });
    assert.equal(res.return, true);
    for (const d of [p('m'), p('m/a'), deep]) {
      const st = fs.statSync(d);
      assert.equal(st.mode & 0o7777, 0o750, d);
      assert.equal(st.uid, 65534, d);
    }
    assert.equal((await run('file.mkdir', [deep])).return, true, 'an existing directory is fine');
    const bad = await run('file.mkdir', [p('m2')], { user: 'no-such-user-brine' });
    assert.equal(bad.error?.code, 'EXEC_FAILED');
    assert.match(String(bad.error?.message), /user 'no-such-user-brine' does not exist/);
  });

  it('file_exists and directory_exists tell files from directories', async () => {
    fs.writeFileSync(p('e.txt'), 'x');
    assert.equal((await run('file.file_exists', [p('e.txt')])).return, true);
    assert.equal((await run('file.file_exists', [dir])).return, false);
    assert.equal((await run('file.directory_exists', [dir])).return, true);
    assert.equal((await run('file.directory_exists', [p('e.txt')])).return, false);
    assert.equal((await run('file.file_exists', [p('none')])).return, false);
  });

  it('remove deletes a file, a whole tree, a symlink without its target; false when absent', async () => {
    fs.writeFileSync(p('target.txt'), 'keep');
    fs.symlinkSync(p('target.txt'), p('link'));
    assert.equal((await run('file.remove', [p('link')])).return, true);
    assert.equal(fs.existsSync(p('target.txt')), true);
    fs.mkdirSync(p('tree/sub'), { recursive: true });
    fs.writeFileSync(p('tree/sub/f'), 'x');
    assert.equal((await run('file.remove', [p('tree')])).return, true);
    assert.equal(fs.existsSync(p('tree')), false);
    assert.equal((await run('file.remove', [p('tree')])).return, false);
    assert.equal((await run('file.remove', ['/'])).error?.code, 'BAD_ARGUMENTS');
  });
});

describe('file.contains, file.chmod, file.chown', () => {
  it('contains finds text (stripped) even across read chunks; false for a missing file', async () => {
    const big = `${'a'.repeat(65530)}NEEDLE-across-chunks${'b'.repeat(100)}`;
    fs.writeFileSync(p('big.txt'), big);
    assert.equal((await run('file.contains', [p('big.txt'), '  NEEDLE-across-chunks \n'])).return, true);
    assert.equal((await run('file.contains', [p('big.txt'), 'absent'])).return, false);
    assert.equal((await run('file.contains', [p('nofile'), 'x'])).return, false);
  });

  it("chmod sets the mode and returns it as Salt prints it ('0640')", async () => {
    fs.writeFileSync(p('c.txt'), 'x');
    assert.equal((await run('file.chmod', [p('c.txt'), 640])).return, '0640');
    assert.equal(fs.statSync(p('c.txt')).mode & 0o7777, 0o640);
    assert.equal((await run('file.chmod', [p('c.txt'), '0o4755'])).return, '4755');
    assert.equal((await run('file.chmod', [p('c.txt'), '999'])).error?.code, 'BAD_ARGUMENTS');
    const missing = await run('file.chmod', [p('x-missing'), 644]);
    assert.equal(missing.error?.code, 'EXEC_FAILED');
    assert.match(String(missing.error?.message), /x-missing' does not exist/);
  });

  it('chown takes names or ids, returns null like Salt, and names a missing group', async () => {
    fs.writeFileSync(p('o.txt'), 'x');
    const res = await run('file.chown', [p('o.txt'), 'nobody', 'nogroup']);
    assert.deepEqual(res, { return: null, retcode: 0, success: true });
    assert.equal(fs.statSync(p('o.txt')).uid, 65534);
    assert.equal(fs.statSync(p('o.txt')).gid, 65534);
    await run('file.chown', [p('o.txt'), '0', '']);
    assert.equal(fs.statSync(p('o.txt')).uid, 0);
    assert.equal(fs.statSync(p('o.txt')).gid, 65534, 'an empty group leaves it unchanged');
    const bad = await run('file.chown', [p('o.txt'), 'root', 'no-such-group-brine']);
    assert.equal(bad.error?.code, 'EXEC_FAILED');
    assert.match(String(bad.error?.message), /group 'no-such-group-brine' does not exist/);
  });
});

describe('file.stats / file.stat and file.get_hash', () => {
  it("returns Salt's keys with real values", async () => {
    fs.writeFileSync(p('s.txt'), 'hello');
    fs.chmodSync(p('s.txt'), 0o604);
    fs.symlinkSync(p('s.txt'), p('s.link'));
    const st = fs.statSync(p('s.txt'));
    const res = (await run('file.stat', [p('s.link')])).return as Record<string, unknown>;
    assert.deepEqual(Object.keys(res).sort(), ['atime', 'ctime', 'gid', 'group', 'inode', 'mode', 'mtime', 'size', 'target', 'type', 'uid', 'user']);
    assert.equal(res.inode, st.ino);
    assert.equal(res.size, 5);
    assert.equal(res.mode, '0604');
    assert.equal(res.type, 'file');
    assert.equal(res.user, 'root');
    assert.equal(res.target, fs.realpathSync(p('s.txt')));
    assert.equal(res.mtime, st.mtimeMs / 1000);
    const link = (await run('file.stats', [p('s.link')], { follow_symlinks: false })).return as Record<string, unknown>;
    assert.equal(link.type, 'link');
    const withSum = (await run('file.stats', [p('s.txt'), 'md5'])).return as Record<string, unknown>;
    assert.equal(withSum.sum, createHash('md5').update('hello').digest('hex'));
    assert.equal(((await run('file.stats', [dir])).return as Record<string, unknown>).type, 'dir');
  });

  it('stat of a missing path is EXEC_FAILED naming it', async () => {
    const res = await run('file.stat', [p('gone')]);
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.equal(res.error?.message, `file.stat: path not found: ${p('gone')}`);
  });

  it('get_hash defaults to sha256 and supports md5, sha1, sha512; an unknown form is BAD_ARGUMENTS', async () => {
    const data = 'x'.repeat(200000);
    fs.writeFileSync(p('h.txt'), data);
    const h = (algo: string): string => createHash(algo).update(data).digest('hex');
    assert.equal((await run('file.get_hash', [p('h.txt')])).return, h('sha256'));
    for (const algo of ['md5', 'sha1', 'sha512']) assert.equal((await run('file.get_hash', [p('h.txt'), algo])).return, h(algo));
    const bad = await run('file.get_hash', [p('h.txt'), 'crc32']);
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
    assert.match(String(bad.error?.message), /invalid hash type 'crc32'/);
    assert.equal((await run('file.get_hash', [p('nothing')])).error?.code, 'EXEC_FAILED');
  });

  it("file.check_hash compares as Salt's: <type>=<hex>, <type>:<hex>, or a bare digest typed by its length (packages-formula archives.sls)", async () => {
    fs.writeFileSync(p('c.txt'), 'archive');
    const sha = createHash('sha256').update('archive').digest('hex');
    const md5 = createHash('md5').update('archive').digest('hex');
    assert.equal((await run('file.check_hash', [p('c.txt'), `sha256=${sha}`])).return, true);
    assert.equal((await run('file.check_hash', [p('c.txt'), `md5:${md5}`])).return, true);
    assert.equal((await run('file.check_hash', [p('c.txt'), md5])).return, true);
    assert.equal((await run('file.check_hash', [p('c.txt'), sha.replace(/^./, (c) => (c === '0' ? '1' : '0'))])).return, false);
    const bad = await run('file.check_hash', [p('c.txt'), 'abc']);
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
    assert.match(String(bad.error?.message), /could not be matched to a supported hash type/);
  });
});

describe('file.grep', () => {
  it("returns cmd.run_all's shape with grep's exit code; one option per argument, as Salt", async () => {
    fs.writeFileSync(p('g.txt'), 'alpha\nBeta\n');
    const found = await run('file.grep', [p('g.txt'), 'beta', '-i']);
    assert.equal(found.retcode, 0);
    assert.deepEqual({ ...(found.return as Record<string, unknown>), pid: 0 }, { pid: 0, retcode: 0, stdout: 'Beta', stderr: '' });
    const missing = await run('file.grep', [p('g.txt'), 'gamma']);
    assert.equal((missing.return as { retcode: number }).retcode, 1);
    const bad = await run('file.grep', [p('g.txt'), 'x', '-i -v']);
    assert.notEqual(bad.retcode, 0);
    assert.match(JSON.stringify(bad), /please pass the following arguments separately: -i -v/);
  });
});
