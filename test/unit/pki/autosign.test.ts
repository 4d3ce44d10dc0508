import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exprMatch, fnmatch, loadMatchFile } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { tempDir } from './helpers.js';

function matchFile(t: import('node:test').TestContext, text: string, mode = 0o644): string {
  const path = join(tempDir(t), 'autosign.conf');
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

test('fnmatch follows Python: * ? [set] [!set] [range], unclosed [ is literal, case-sensitive', () => {
  const cases: Array<[string, string, boolean]> = [
    ['web1', 'web*', true],
    ['web', 'web*', true],
    ['xweb1', 'web*', false],
    ['web12', 'web?', false],
    ['web1', 'web?', true],
    ['ac', '[ab]c', true],
    ['cc', '[ab]c', false],
    ['bx', '[!a]x', true],
    ['ax', '[!a]x', false],
    ['b1', '[a-c]1', true],
    ['d1', '[a-c]1', false],
    [']', '[]a]', true],
    ['a', '[]a]', true],
    ['b', '[!]a]', true],
    ['a', '[z-a]', false],
    ['web[1', 'web[1', true],
    ['web1', 'web[1', false],
    ['WEB1', 'web*', false],
    ['web1.example.com', 'web1.example.com', true],
    ['web1xexample.com', 'web1.example.com', false],
    ['a-b', '[a-]-b', true],
  ];
  for (const [name, glob, expected] of cases) assert.equal(fnmatch(name, glob), expected, `fnmatch(${name}, ${glob})`);
});

test('exprMatch: exact, then glob, then a full-match regex when the line has regex-only characters', () => {
  assert.equal(exprMatch('db12', 'db\\d+'), true);
  assert.equal(exprMatch('db12x', 'db\\d+'), false, 'regex must match the whole ID');
  assert.equal(exprMatch('xdb12', 'db\\d+'), false, 'anchored at the start');
  assert.equal(exprMatch('foo.example.com', '(foo|bar)\\.example\\.com'), true);
  assert.equal(exprMatch('fooXexample.com', '(foo|bar)\\.example\\.com'), false);
  assert.equal(exprMatch('web1', '^web[0-9]+$'), true, 'explicit anchors are harmless');
  assert.equal(exprMatch('x+y', 'x+y'), true, 'exact string');
  assert.equal(exprMatch('xxy', 'x+y'), true, 'and as a regex');
  assert.equal(exprMatch('web(', 'web('), true, 'invalid regex: exact/glob only');
  assert.equal(exprMatch('web', 'web('), false);
  // Salt would read these as regexes too and match; brine does not (see fnmatch.ts).
  assert.equal(exprMatch('we', 'web*'), false);
  assert.equal(exprMatch('webbb', 'web*'), true, 'still a glob match');
  assert.equal(exprMatch('web1xexample.com', 'web1.example.com'), false);
  // the regex idioms `.*` and `.?` mark a Salt regex line, so migrated files keep working
  assert.equal(exprMatch('web1', 'web.*'), true);
  assert.equal(exprMatch('web', 'web.?'), true);
  assert.equal(exprMatch('mail1', 'web.*'), false);
});

test('a match file: globs and regexes, comments and blank lines skipped, CRLF tolerated', (t) => {
  const path = matchFile(t, '# trusted hosts\r\n\r\nweb*\r\n  db\\d+  \r\n#ops*\nexact.host\n');
  const m = loadMatchFile(path);
  assert.equal(m('web1'), true);
  assert.equal(m('db7'), true);
  assert.equal(m('exact.host'), true);
  assert.equal(m('ops1'), false, 'commented out');
  assert.equal(m('#ops1'), false);
  assert.equal(m(''), false, 'blank lines match nothing');
  assert.equal(m('mail1'), false);
});

test('a missing file matches nothing, and starts matching once it is created', (t) => {
  const path = join(tempDir(t), 'autosign.conf');
  const m = loadMatchFile(path);
  assert.equal(m('web1'), false);
  writeFileSync(path, 'web*\n', { mode: 0o600 });
  assert.equal(m('web1'), true);
});

test('edits take effect without reloading by hand', (t) => {
  const path = matchFile(t, 'web*\n');
  const m = loadMatchFile(path);
  assert.equal(m('web1'), true);
  writeFileSync(path, 'db*\n# and more text so the size differs\n');
  assert.equal(m('web1'), false);
  assert.equal(m('db1'), true);
  unlinkSync(path);
  assert.equal(m('db1'), false);
});

test('a world-writable file is refused with CONFIG_VALUE naming the file and the fix', (t) => {
  const path = matchFile(t, '*\n', 0o666);
  assert.throws(
    () => loadMatchFile(path),
    (e) => {
      assert.ok(isBrineError(e, 'CONFIG_VALUE'));
      assert.ok(e.message.includes(path));
      assert.match(e.message, /world-writable \(mode 0666\)/);
      assert.match(e.message, /chmod o-w/);
      return true;
    },
  );
  assert.throws(
    () => loadMatchFile(path, { permissivePkiAccess: true, option: 'autoreject_file' }),
    (e) => isBrineError(e, 'CONFIG_VALUE') && e.message.startsWith('autoreject_file'),
  );
});

test('a group-writable file is refused unless permissive_pki_access', (t) => {
  const path = matchFile(t, 'web*\n', 0o664);
  assert.throws(
    () => loadMatchFile(path),
    (e) => isBrineError(e, 'CONFIG_VALUE') && /group-writable/.test(e.message),
  );
  assert.equal(loadMatchFile(path, { permissivePkiAccess: true })('web1'), true);
});

test('a file made world-writable after loading stops matching and reports why', (t) => {
  const path = matchFile(t, '*\n');
  const problems: string[] = [];
  const m = loadMatchFile(path, { onProblem: (msg) => problems.push(msg) });
  assert.equal(m('web1'), true);
  chmodSync(path, 0o646);
  assert.equal(m('web1'), false);
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /world-writable/);
  chmodSync(path, 0o644);
  assert.equal(m('web1'), true, 'fixed again: trusted again');
});

test('a directory is not a match file', (t) => {
  const path = join(tempDir(t), 'autosign.d');
  mkdirSync(path);
  assert.throws(
    () => loadMatchFile(path),
    (e) => isBrineError(e, 'CONFIG_VALUE') && /not a regular file/.test(e.message),
  );
});
