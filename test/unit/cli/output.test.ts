import { test } from 'node:test';
import assert from 'node:assert/strict';
import { format, formatReturn, noReturn, cliExit, minionRetcode, pyRepr, pyNumber, splitLines } from '../../../src/cli/output/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const off = { color: false };
const on = { color: true };
// Salt's codes (TextFormat prepends a reset): cyan keys, green strings, light-yellow scalars.
const CYAN = '\x1b[0;36m';
const GREEN = '\x1b[0;32m';
const LY = '\x1b[0;1;33m';
const RED = '\x1b[0;31m';
const END = '\x1b[0;0m';

test('nested: booleans, None and numbers', () => {
  assert.equal(format('nested', { web1: true }, off), 'web1:\n    True\n');
  assert.equal(format('nested', { web1: false }, off), 'web1:\n    False\n');
  assert.equal(format('nested', { web1: null }, off), 'web1:\n    None\n');
  assert.equal(format('nested', { web1: 42 }, off), 'web1:\n    42\n');
  assert.equal(format('nested', { web1: 0.5 }, off), 'web1:\n    0.5\n');
});

test('nested: strings, multi-line strings and empty strings', () => {
  assert.equal(format('nested', { web1: 'hello' }, off), 'web1:\n    hello\n');
  assert.equal(format('nested', { web1: 'one\ntwo\r\nthree\n' }, off), 'web1:\n    one\n    two\n    three\n');
  assert.equal(format('nested', { web1: '' }, off), 'web1:\n', 'an empty string prints no value line');
  // A multi-line string inside a list keeps its continuation lines under the text, not the dash.
  assert.equal(format('nested', { web1: ['a\nb'] }, off), 'web1:\n    - a\n      b\n');
});

test('nested: the layout of Salt docs example (dicts, nested dicts, lists)', () => {
  const data = { myminion: { foo: { list: ['Hello', 'World'], bar: 'baz', dictionary: { def: 456, abc: 123 } } } };
  const expected = [
    'myminion:',
    '    ----------',
    '    foo:',
    '        ----------',
    '        bar:',
    '            baz',
    '        dictionary:',
    '            ----------',
    '            abc:',
    '                123',
    '            def:',
    '                456',
    '        list:',
    '            - Hello',
    '            - World',
    '',
  ].join('\n');
  assert.equal(format('nested', data, off), expected);
});

test('nested: collections inside lists use |_ and indent by 2', () => {
  const expected = ['web1:', '    - 1', '    |_', '      - 2', '      - 3', '    |_', '      ----------', '      a:', '          None', '    - x', ''].join('\n');
  assert.equal(format('nested', { web1: [1, [2, 3], { a: null }, 'x'] }, off), expected);
  assert.equal(format('nested', { web1: {} }, off), 'web1:\n    ----------\n');
  assert.equal(format('nested', { web1: [] }, off), 'web1:\n');
});

test('nested: each minion is its own block in arrival order', () => {
  assert.equal(format('nested', { zed: true, alpha: false }, off), 'zed:\n    True\nalpha:\n    False\n');
  assert.equal(format('nested', {}, off), '');
});

test('nested: keys are sorted by code point like Python sorted()', () => {
  assert.equal(format('nested', { m: { b: 1, B: 2, a: 3 } }, off), 'm:\n    ----------\n    B:\n        2\n    a:\n        3\n    b:\n        1\n');
});

test('nested: colours only when asked, with Salt codes', () => {
  assert.equal(format('nested', { web1: true }, on), `${CYAN}web1${END}:\n    ${LY}True${END}\n`);
  assert.equal(format('nested', { web1: 'hi' }, on), `${CYAN}web1${END}:\n    ${GREEN}hi${END}\n`);
  assert.equal(format('nested', { web1: { k: ['v'] } }, on), `${CYAN}web1${END}:\n    ${CYAN}----------${END}\n    ${CYAN}k${END}:\n        ${GREEN}- v${END}\n`);
  assert.doesNotMatch(format('nested', { web1: { k: ['v', true] } }, off), /\x1b/);
});

test('nested: a failed minion is painted red, as with Salt _retcode', () => {
  const out = format('nested', { web1: { k: 'v' } }, { color: true, retcodes: { web1: 1 } });
  assert.equal(out, `${RED}web1${END}:\n    ${RED}----------${END}\n    ${RED}k${END}:\n        ${GREEN}v${END}\n`);
});

test('nested: minion text cannot drive the terminal (ESC becomes ?)', () => {
  assert.equal(format('nested', { web1: 'a\x1b[2Jb' }, off), 'web1:\n    a?[2Jb\n');
  assert.equal(format('txt', { web1: 'a\x1b[2Jb' }, off), 'web1: a?[2Jb\n');
  // a C1 CSI (0x9b) is a one-byte ESC[ on some terminals
  assert.equal(format('nested', { web1: 'a\x9b2Jb' }, off), 'web1:\n    a?2Jb\n');
  // the same list as printable(): BEL, DEL or a bidi override cannot act on or reorder what is
  // shown either; line feeds and tabs stay
  assert.equal(format('txt', { web1: 'ok\x07 \x7f \u202eevil' }, off), 'web1: ok? ? ?evil\n');
  assert.equal(format('nested', { web1: 'a\tb\nc' }, off), 'web1:\n    a\tb\n    c\n');
});

test('no-return marker: Salt wording, red when colour is on', () => {
  assert.equal(format('nested', { web1: noReturn('not_connected') }, off), 'web1:\n    Minion did not return. [Not connected]\n');
  assert.equal(format('nested', { web1: noReturn('no_response') }, off), 'web1:\n    Minion did not return. [No response]\n');
  assert.equal(
    format('nested', { web1: noReturn('no_response', 'To look up the return data later, run:\n\nbrine jobs lookup 20240101000000000000') }, off),
    'web1:\n    Minion did not return. [No response]\n    To look up the return data later, run:\n    \n    brine jobs lookup 20240101000000000000\n',
  );
  assert.equal(format('nested', { web1: noReturn('not_connected') }, on), `${CYAN}web1${END}:\n${RED}    Minion did not return. [Not connected]${END}\n`);
  // Other outputters print the text as the minion's value.
  assert.equal(format('json', { web1: noReturn('not_connected') }, off), '{\n    "web1": "Minion did not return. [Not connected]"\n}\n');
  assert.equal(format('raw', { web1: noReturn('no_response') }, off), "{'web1': 'Minion did not return. [No response]'}\n");
  assert.equal(format('txt', { web1: noReturn('no_response') }, off), 'web1: Minion did not return. [No response]\n');
  assert.equal(format('yaml', { web1: noReturn('no_response') }, off), 'web1: Minion did not return. [No response]\n');
});

test('json: one document per minion, indent 4 by default, ensure_ascii, --out-indent', () => {
  assert.equal(format('json', { web1: true, web2: { a: [1, 'x'] } }, off), '{\n    "web1": true\n}\n{\n    "web2": {\n        "a": [\n            1,\n            "x"\n        ]\n    }\n}\n');
  assert.equal(format('json', { web1: { a: [1, 'é'], b: {} } }, { color: false, indent: -1 }), '{"web1": {"a": [1, "\\u00e9"], "b": {}}}\n');
  assert.equal(format('json', { web1: [1] }, { color: false, indent: 2 }), '{\n  "web1": [\n    1\n  ]\n}\n');
  assert.equal(format('json', { web1: [1] }, { color: false, indent: 0 }), '{\n"web1": [\n1\n]\n}\n');
  for (const line of format('json', { a: 1, b: 'x' }, { color: false, indent: -1 }).trimEnd().split('\n')) assert.ok(JSON.parse(line));
});

test('yaml: a YAML document per minion', () => {
  assert.equal(format('yaml', { web1: { b: [1, 'two'], a: true } }, off), 'web1:\n  a: true\n  b:\n    - 1\n    - two\n');
  assert.equal(format('yaml', { web1: '123' }, off), "web1: '123'\n", 'a string that looks like a number stays a string');
  assert.equal(format('yaml', { web1: { a: [1] } }, { color: false, indent: -1 }), '{web1: {a: [1]}}\n');
});

test('txt: `id: line` per line, Python str() for other values', () => {
  assert.equal(format('txt', { web1: 'one\ntwo' }, off), 'web1: one\nweb1: two\n');
  assert.equal(format('txt', { web1: true, web2: { a: null } }, off), "web1: True\nweb2: {'a': None}\n");
});

test('raw: Python repr of {id: value}', () => {
  assert.equal(format('raw', { web1: { a: [1, true, null, "it's", 'x\ny'] } }, off), `{'web1': {'a': [1, True, None, "it's", 'x\\ny']}}\n`);
});

test('Python text forms', () => {
  assert.equal(pyRepr('a\'b"c\\\t\x01é'), `'a\\'b"c\\\\\\t\\x01é'`);
  assert.equal(pyNumber(1e-5), '1e-05');
  assert.equal(pyNumber(1.5e16), '15000000000000000');
  assert.equal(pyNumber(0.0001), '0.0001');
  assert.equal(pyNumber(1.25e17 + 0.5), '125000000000000000');
  assert.equal(pyNumber(NaN), 'nan');
  assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
  assert.deepEqual(splitLines(''), []);
  assert.deepEqual(splitLines('a\n\nb'), ['a', '', 'b']);
});

test('formatReturn gives one block; unknown outputters are USAGE errors', () => {
  assert.equal(formatReturn('nested', 'web1', true, off), 'web1:\n    True');
  assert.throws(
    () => format('pprint' as 'raw', { a: 1 }, off),
    (e: unknown) => isBrineError(e, 'USAGE'),
  );
  assert.throws(
    () => format('__proto__' as 'raw', { a: 1 }, off),
    (e: unknown) => isBrineError(e, 'USAGE'),
  );
});

test('exit codes follow the salt CLI', () => {
  assert.deepEqual(cliExit({ a: { return: true, retcode: 0 } }), { code: 0 });
  assert.deepEqual(cliExit({ a: { return: true, retcode: 0 }, b: { return: 'x', retcode: 3 } }), { code: 1, message: 'ERROR: Minions returned with non-zero exit code' });
  assert.deepEqual(cliExit({ a: { return: true }, b: { return: noReturn('no_response') } }).code, 1, 'a non-returning minion fails the run');
  assert.deepEqual(cliExit({ b: { return: noReturn('not_connected') } }).code, 1);
  assert.deepEqual(cliExit({}), { code: 2, message: 'ERROR: No return received' });
  assert.deepEqual(cliExit(new Map()), { code: 2, message: 'ERROR: No return received' });
  assert.equal(minionRetcode({ return: false }), 1, 'a bare False return counts as failure');
  assert.equal(minionRetcode({ return: {}, retcode: { a: 0, b: 5 } }), 5);
});

test('json: escapes and numbers exactly as Python json.dumps prints them', () => {
  const value = { s: ['plain', 'q"uote', 'back\\slash', 'tab\tnl\n', 'del\x7f', '\x00\x1f', 'é', '\u{1F600}', '~ !'], n: [0, 1.5, 0.0001, 0.00009999, 1e-5, 123.456, 1.2345e16, -0.5, 2 ** 53] };
  // from python3 -c 'import json; print(json.dumps(...))' (1.2345e16 is an integer in JS, printed as one)
  const expected =
    '{"web1": {"s": ["plain", "q\\"uote", "back\\\\slash", "tab\\tnl\\n", "del\\u007f", "\\u0000\\u001f", "\\u00e9", "\\ud83d\\ude00", "~ !"], "n": [0, 1.5, 0.0001, 9.999e-05, 1e-05, 123.456, 12345000000000000, -0.5, 9007199254740992]}}\n';
  assert.equal(format('json', { web1: value }, { color: false, indent: -1 }), expected);
});
