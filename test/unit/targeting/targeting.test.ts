import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globMatch, matchTarget, minionMatches, matcherFor } from '../../../src/targeting/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const NAMES = [
  'web1',
  'web2',
  'web3',
  'web12',
  'webx',
  'web',
  'db1',
  ']x',
  'ax',
  'a',
  '-',
  'b',
  '[',
  'web[',
  'abc',
  'aXbYc',
  'host.example.com',
  '*',
  'a.b',
  'aXb',
  'c',
  '/',
  'x^',
  'xa',
  'x\\',
  '(a|b)',
  'a+',
  '',
  'é',
];

// Expected sets produced by CPython 3.11 fnmatch.fnmatchcase over NAMES.
const FNMATCH: Array<[string, string[]]> = [
  ['web*', ['web1', 'web2', 'web3', 'web12', 'webx', 'web', 'web[']],
  ['web?', ['web1', 'web2', 'web3', 'webx', 'web[']],
  ['web[12]', ['web1', 'web2']],
  ['web[!12]', ['web3', 'webx', 'web[']],
  ['web[1-3]', ['web1', 'web2', 'web3']],
  ['web[3-1]', []],
  ['[]]x', [']x']],
  ['[!]]x', ['ax']],
  ['[a-]', ['a', '-']],
  ['[!a-]', ['b', '[', '*', 'c', '/', 'é']],
  ['[', ['[']],
  ['web[', ['web[']],
  ['a*b*c', ['abc', 'aXbYc']],
  ['*.example.com', ['host.example.com']],
  ['\\*', []],
  ['a.b', ['a.b']],
  ['[a-b-c]', ['a', '-', 'b', 'c']],
  ['[--0]', ['-', '/']],
  ['[!z-a]', ['a', '-', 'b', '[', '*', 'c', '/', 'é']],
  ['x[^a]', ['x^', 'xa']],
  ['x[\\]', ['x\\']],
  ['(a|b)', ['(a|b)']],
  ['a+', ['a+']],
  ['?', ['a', '-', 'b', '[', '*', 'c', '/', 'é']],
  ['[[]', ['[']],
  ['[!]', []],
  ['', ['']],
];

test('globMatch agrees with Python fnmatch.fnmatchcase', () => {
  for (const [pattern, expected] of FNMATCH) {
    assert.deepEqual(
      NAMES.filter((n) => globMatch(pattern, n)),
      expected,
      `pattern ${JSON.stringify(pattern)}`,
    );
  }
  assert.equal(globMatch('*', 'anything at all'), true);
  assert.equal(globMatch('*', 'line1\nline2'), true, '* crosses newlines as in fnmatch');
});

test('glob is case-sensitive and matches the whole ID', () => {
  assert.equal(globMatch('Web*', 'web1'), false);
  assert.equal(globMatch('web', 'web1'), false);
  assert.equal(globMatch('eb1', 'web1'), false);
});

const IDS = ['web1', 'web2', 'webserver', 'db1', 'mail.example.com'];

test('glob targets select from the known IDs only', () => {
  assert.deepEqual(matchTarget('web*', 'glob', IDS), { matched: ['web1', 'web2', 'webserver'], missing: [] });
  assert.deepEqual(matchTarget('*', 'glob', IDS), { matched: IDS, missing: [] });
  assert.deepEqual(matchTarget('nomatch*', 'glob', IDS), { matched: [], missing: [] });
  assert.deepEqual(matchTarget('*', 'glob', []), { matched: [], missing: [] }, 'no keys means no targets, never "all"');
});

test('pcre targets are anchored at the start only, like re.match', () => {
  assert.deepEqual(matchTarget('web', 'pcre', IDS).matched, ['web1', 'web2', 'webserver']);
  assert.deepEqual(matchTarget('eb', 'pcre', IDS).matched, []);
  assert.deepEqual(matchTarget('.*eb', 'pcre', IDS).matched, ['web1', 'web2', 'webserver']);
  assert.deepEqual(matchTarget('web\\d$', 'pcre', IDS).matched, ['web1', 'web2']);
  assert.deepEqual(matchTarget('db1|mail', 'pcre', IDS).matched, ['db1', 'mail.example.com'], 'each alternative is anchored');
  assert.deepEqual(matchTarget('xyz|web2', 'pcre', IDS).matched, ['web2']);
  // An unbalanced `)` must not escape an anchoring wrapper.
  assert.throws(
    () => matchTarget('x)|(.*', 'pcre', IDS),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
  );
});

test('an invalid pcre is TARGET_INVALID naming the regex problem', () => {
  assert.throws(
    () => matchTarget('web[', 'pcre', IDS),
    (err: unknown) => {
      assert.ok(isBrineError(err, 'TARGET_INVALID'));
      assert.match(err.message, /web\[/);
      assert.match(err.message, /not a valid regular expression: missing closing \]/);
      return true;
    },
  );
  assert.throws(
    () => minionMatches('(', 'pcre', 'web1'),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
  );
});

test('list targets: known entries are matched, unknown ones go to missing', () => {
  assert.deepEqual(matchTarget('web1,ghost,db1', 'list', IDS), { matched: ['web1', 'db1'], missing: ['ghost'] });
  assert.deepEqual(matchTarget(['db1', 'web2', 'gone'], 'list', IDS), { matched: ['db1', 'web2'], missing: ['gone'] });
  assert.deepEqual(matchTarget('web1, db1,,web1', 'list', IDS), { matched: ['web1', 'db1'], missing: [] }, 'trimmed, empties dropped, de-duplicated');
  assert.deepEqual(matchTarget('web*', 'list', IDS), { matched: [], missing: ['web*'] }, 'no glob expansion in a list');
  assert.deepEqual(matchTarget('', 'list', IDS), { matched: [], missing: [] });
  assert.deepEqual(matchTarget([], 'list', IDS), { matched: [], missing: [] });
});

test('glob and pcre targets must be a single expression', () => {
  assert.throws(
    () => matchTarget(['web1'], 'glob', IDS),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
  );
  assert.throws(
    () => matchTarget(['web1'], 'pcre', IDS),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
  );
});

test('unsupported target types are TARGET_INVALID, not "match everything"', () => {
  for (const t of ['range', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.throws(
      () => matchTarget('*', t as 'glob', IDS),
      (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
      t,
    );
    assert.throws(
      () => matcherFor(t),
      (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
      t,
    );
  }
});

test('a minion re-checks the target against its own ID', () => {
  assert.equal(minionMatches('web*', 'glob', 'web1'), true);
  assert.equal(minionMatches('web*', 'glob', 'db1'), false);
  assert.equal(minionMatches('web', 'pcre', 'webserver'), true);
  assert.equal(minionMatches('eb', 'pcre', 'webserver'), false);
  assert.equal(minionMatches('a,web1', 'list', 'web1'), true);
  assert.equal(minionMatches(['a', 'b'], 'list', 'web1'), false);
  // The sticky regex is reused safely: lastIndex never leaks between calls.
  assert.deepEqual(matchTarget('w', 'pcre', ['web1', 'web2', 'web3']).matched, ['web1', 'web2', 'web3']);
  assert.equal(minionMatches('w', 'pcre', 'web1'), true);
  assert.equal(minionMatches('w', 'pcre', 'web2'), true);
});
