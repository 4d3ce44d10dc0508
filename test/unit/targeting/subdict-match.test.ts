// Salt's subdict_match as used by grain and grain_pcre targets: nested keys, lists, the
// delimiter inside values, `*` wildcards, Python str() of non-strings and case-insensitivity.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pyStr, subdictMatch } from '../../../src/targeting/index.js';

const TWO_LEVEL = { foo: { bar: 'baz' } };
const TWO_LEVEL_COMB = { foo: { bar: 'baz:woz' } };
const DICT_AND_LIST = { abc: ['def', 'ghi', { lorem: { ipsum: [{ dolor: 'sit' }] } }] };
const THREE_LEVEL = { a: { b: { c: 'v' } } };
const GRAINS = {
  os: 'Debian',
  os_family: 'Debian',
  osrelease: '12',
  num_cpus: 4,
  virtual: 'physical',
  roles: ['web', 'Cache'],
  flag: true,
  nothing: null,
  empty: {},
  locale_info: { defaultlanguage: 'en_US', timezone: 'UTC' },
  disks: [
    { name: 'sda', size: 100 },
    { name: 'sdb', size: 200 },
  ],
  ipv4: ['10.0.0.1', '127.0.0.1'],
};

// [data, expression, expected] — the first block is Salt's own test_subdict_match
const CASES: Array<[unknown, string, boolean]> = [
  [TWO_LEVEL, 'foo:bar:baz', true],
  [TWO_LEVEL_COMB, 'foo:bar:baz', false],
  [TWO_LEVEL_COMB, 'foo:bar:baz:woz', true],
  [TWO_LEVEL_COMB, 'foo:bar:baz:woz:wiz', false],
  [DICT_AND_LIST, 'abc:ghi', true],
  [DICT_AND_LIST, 'abc:lorem:ipsum:dolor:sit', true],
  [THREE_LEVEL, 'a:b:c:v', true],
  [THREE_LEVEL, 'a:c:v', false],
  [THREE_LEVEL, 'a:*:c:v', true],
  // grains as operators use them
  [GRAINS, 'os:Debian', true],
  [GRAINS, 'os:debian', true],
  [GRAINS, 'OS:Debian', false],
  [GRAINS, 'os:Deb*', true],
  [GRAINS, 'os:Ubuntu', false],
  [GRAINS, 'os:Debia', false],
  [GRAINS, 'roles:web', true],
  [GRAINS, 'roles:cache', true],
  [GRAINS, 'roles:db', false],
  [GRAINS, 'roles:w?b', true],
  [GRAINS, 'num_cpus:4', true],
  [GRAINS, 'num_cpus:[0-9]', true],
  [GRAINS, 'num_cpus:8', false],
  [GRAINS, 'flag:true', true],
  [GRAINS, 'flag:True', true],
  [GRAINS, 'nothing:None', true],
  [GRAINS, 'locale_info:defaultlanguage:en_US', true],
  [GRAINS, 'locale_info:timezone:utc', true],
  [GRAINS, 'locale_info:timezone', true],
  [GRAINS, 'locale_info:*', true],
  [GRAINS, 'locale_info:nope', false],
  [GRAINS, 'disks:name:sdb', true],
  [GRAINS, 'disks:1:name:sdb', true],
  [GRAINS, 'disks:0:name:sdb', false],
  [GRAINS, 'disks:-1:size:200', true],
  [GRAINS, 'missing:x', false],
  [GRAINS, 'missing:*', false],
  [GRAINS, 'empty:*', false],
  [GRAINS, 'os', false],
  [GRAINS, '__proto__:*', false],
  [GRAINS, 'constructor:*', false],
  [GRAINS, 'ipv4:10.0.0.*', true],
];

test('subdict_match agrees with Salt on nested keys, lists, wildcards and values', () => {
  for (const [data, expr, expected] of CASES) {
    assert.equal(subdictMatch(data, expr), expected, `${expr} in ${JSON.stringify(data)}`);
  }
});

test('a custom delimiter splits keys, and the default one is then ordinary text', () => {
  assert.equal(subdictMatch(TWO_LEVEL_COMB, 'foo|bar|baz:woz', { delimiter: '|' }), true);
  assert.equal(subdictMatch(TWO_LEVEL_COMB, 'foo:bar:baz:woz', { delimiter: '|' }), false);
  assert.equal(subdictMatch(GRAINS, 'locale_info||timezone||UTC', { delimiter: '||' }), true);
});

test('grain_pcre: anchored at the start, case-insensitive, invalid regex is no match', () => {
  const rx = (expr: string) => subdictMatch(GRAINS, expr, { regex: true });
  assert.equal(rx('os:deb.*'), true);
  assert.equal(rx('os:DEB'), true, 're.match on lower-cased text: a prefix is enough');
  assert.equal(rx('os:ebian'), false, 'anchored at the start like re.match');
  assert.equal(rx('os:.*bian$'), true);
  assert.equal(rx('os:(debian|ubuntu)$'), true);
  assert.equal(rx('roles:^ca'), true);
  assert.equal(rx('osrelease:\\d+$'), true);
  assert.equal(rx('osrelease:\\D'), false, '\\D keeps its meaning (Salt lower-cased it to \\d)');
  assert.equal(rx('os:('), false);
});

test('Python str() of JSON values is what patterns see', () => {
  assert.equal(pyStr(true), 'True');
  assert.equal(pyStr(null), 'None');
  assert.equal(pyStr(4), '4');
  assert.equal(pyStr(['a', 1, null]), "['a', 1, None]");
  assert.equal(pyStr({ k: "it's" }), "{'k': 'it\\'s'}");
});
