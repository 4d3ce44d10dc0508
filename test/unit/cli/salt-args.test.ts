import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSaltArgs, yamlifyArg, MAX_ARG_DEPTH } from '../../../src/cli/salt-args.js';
import { isBrineError } from '../../../src/util/errors.js';

// [word, typed value]; expectations checked against PyYAML SafeLoader with Salt's loader tweaks.
const POSITIONAL: Array<[string, unknown]> = [
  ['hello', 'hello'],
  ['Hello World', 'Hello World'],
  ['1', 1],
  ['-1', -1],
  ['45.67', 45.67],
  ['.5', 0.5],
  ['1.0e+3', 1000],
  ['1e3', '1e3'], // YAML 1.1 floats need a dot
  ['010', 10], // Salt strips leading zeros: file modes like 0644 arrive as 644
  ['0644', 644],
  ['08', '08'],
  ['0x1F', 31],
  ['0b11', 3],
  ['0o17', '0o17'], // not an int in YAML 1.1
  ['1_000', '1_000'], // Salt keeps digit/underscore words as given
  ['-1_000', -1000],
  ['12345678901234567890', '12345678901234567890'], // beyond 2^53: would lose digits
  ['True', true],
  ['true', true],
  ['TRUE', true],
  ['False', false],
  // Salt's loader is YAML 1.1 (PyYAML), where yes/no/on/off are booleans; brine matches it.
  ['yes', true],
  ['Yes', true],
  ['no', false],
  ['on', true],
  ['OFF', false],
  ['y', 'y'],
  ['n', 'n'],
  ['None', null],
  ['null', null],
  ['~', null],
  ['none', 'none'],
  ['2024-01-01', '2024-01-01'], // Salt's loader keeps timestamps as strings
  ['2024-01-01 10:00:00', '2024-01-01 10:00:00'],
  ['12:30', '12:30'], // PyYAML would make this 750 (base 60); brine keeps the text
  ['[1, 2]', [1, 2]],
  ['[yes, No, ~, 0x10, 2024-01-01]', [true, false, null, 16, '2024-01-01']],
  ['{a: b}', { a: 'b' }],
  ['{a: 1, b: [x, "2"]}', { a: 1, b: ['x', '2'] }],
  ['{a}', { a: null }],
  ['"quoted"', 'quoted'],
  ["'1'", '1'],
  ['a: b', 'a: b'], // maps need braces
  ['- a', '- a'], // lists need brackets
  ['--foo', '--foo'],
  ['--', '--'],
  ['-', '-'],
  ['--foo=bar', '--foo=bar'], // not an identifier, so not a kwarg
  ['a==b', 'a==b'],
  ['=x', '=x'],
  ['|', '|'],
  ['>', '>'],
  ['!', '!'],
  ['#', '#'],
  ['# hash at beginning', '# hash at beginning'],
  ['Hello world! # hash elsewhere', 'Hello world! # hash elsewhere'],
  ['["foo", "bar", "###"]', ['foo', 'bar', '###']],
  ['{"foo": "###"}', { foo: '###' }],
  ['---', '---'],
  ['...', '...'],
  ['', ''],
  ['   ', '   '],
  [' 1', ' 1'], // leading/trailing spaces: kept as given
  ['x ', 'x '],
  ['foo\t\nbar', 'foo\t\nbar'],
  ['[1, 2', '[1, 2'], // not valid YAML: the word itself
  ['{a: 1, a: 2}', '{a: 1, a: 2}'], // duplicate keys: Salt's loader refuses them
  ['{[1]: 2}', '{[1]: 2}'],
];

test('positional words are typed like Salt yamlify_arg', () => {
  for (const [word, expected] of POSITIONAL) {
    assert.deepEqual(parseSaltArgs([word]), { arg: [expected], kwarg: {} }, `word ${JSON.stringify(word)}`);
  }
});

test('tags and aliases are never evaluated: the word stays a string', () => {
  for (const word of ['!!str 1', '!foo bar', '!!binary aGVsbG8=', '!!python/object:os.system ls', '[!!int 1]', '{a: !!set {x}}', '[1, &a 2, *a]', '!!js/function "x"']) {
    assert.deepEqual(parseSaltArgs([word]).arg, [word], word);
  }
});

test('key=value words become kwargs with typed values', () => {
  assert.deepEqual(parseSaltArgs(['a=1']), { arg: [], kwarg: { a: 1 } });
  assert.deepEqual(parseSaltArgs(['x=y z']), { arg: [], kwarg: { x: 'y z' } });
  assert.deepEqual(parseSaltArgs(['a=b=c']), { arg: [], kwarg: { a: 'b=c' } });
  assert.deepEqual(parseSaltArgs(['pip=1.1']), { arg: [], kwarg: { pip: 1.1 } });
  assert.deepEqual(parseSaltArgs(['a.b-c=3', '_x=no', 'é=[1]']), { arg: [], kwarg: { 'a.b-c': 3, _x: false, é: [1] } });
  assert.deepEqual(parseSaltArgs(['a=']), { arg: [], kwarg: { a: '' } });
  assert.deepEqual(parseSaltArgs(['1a=2']), { arg: ['1a=2'], kwarg: {} }, 'a name cannot start with a digit');
  assert.deepEqual(parseSaltArgs(['a=x\ny']), { arg: ['a=x\ny'], kwarg: {} }, 'a value with a newline stays positional');
  assert.deepEqual(parseSaltArgs(['a=1', 'a=2']), { arg: [], kwarg: { a: 2 } }, 'the last one wins');
});

test('args keep their order and mix with kwargs', () => {
  assert.deepEqual(parseSaltArgs(['ls -l', 'cwd=/tmp', '3', 'runas=root']), { arg: ['ls -l', 3], kwarg: { cwd: '/tmp', runas: 'root' } });
  assert.deepEqual(parseSaltArgs([]), { arg: [], kwarg: {} });
});

test('__proto__ is data, never a prototype', () => {
  const { arg, kwarg } = parseSaltArgs(['__proto__={polluted: 1}', '{__proto__: {polluted: 2}}']);
  assert.equal(Object.getPrototypeOf(kwarg), Object.prototype);
  assert.deepEqual(Object.keys(kwarg), ['__proto__']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const map = arg[0] as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(map), Object.prototype);
  assert.ok(Object.hasOwn(map, '__proto__'));
});

test('absurdly deep input is refused with USAGE before parsing', () => {
  const deep = '['.repeat(MAX_ARG_DEPTH + 1) + ']'.repeat(MAX_ARG_DEPTH + 1);
  assert.throws(
    () => parseSaltArgs([deep]),
    (e: unknown) => isBrineError(e, 'USAGE'),
  );
  assert.throws(
    () => parseSaltArgs([`x=${'{a: '.repeat(10_000)}1`]),
    (e: unknown) => isBrineError(e, 'USAGE'),
  );
  const ok = '['.repeat(MAX_ARG_DEPTH) + ']'.repeat(MAX_ARG_DEPTH);
  let v: unknown = yamlifyArg(ok);
  for (let i = 0; i < MAX_ARG_DEPTH - 1; i++) v = (v as unknown[])[0];
  assert.deepEqual(v, []);
  // Brackets inside quotes do not count.
  assert.deepEqual(yamlifyArg(`["${'['.repeat(200)}"]`), ['['.repeat(200)]);
});
