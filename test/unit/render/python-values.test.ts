// The Python value model under the Jinja engine, checked without Python: what Jinja2 prints and
// computes for the values Salt templates handle most (the differential test checks the same
// against Python itself when python3-jinja2 is installed).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { percentFormat, strFormat } from '../../../src/render/jinja/py-format.js';
import { getattr, slice } from '../../../src/render/jinja/py-methods.js';
import { binop } from '../../../src/render/jinja/py-ops.js';
import { eq, floatRepr, mkFloat, PyError, repr, setStrictUndefined, str, truthy, tuple } from '../../../src/render/jinja/py-values.js';
import { filterBy, traverse } from '../../../src/render/jinja/salt-layer.js';
import { jsonDumps, yamlDquote } from '../../../src/render/jinja/serialize.js';
import { yamlDump } from '../../../src/render/jinja/yaml-emitter.js';
import { loadYaml } from '../../../src/render/yaml-load.js';

describe('printing', () => {
  test('str() and repr() as Python', () => {
    assert.equal(str(true), 'True');
    assert.equal(str(null), 'None');
    assert.equal(str([1, 'a', null, false]), "[1, 'a', None, False]");
    assert.equal(str({ a: [tuple(['x'])] }), "{'a': [('x',)]}");
    assert.equal(repr("it's"), '"it\'s"');
    assert.equal(str(mkFloat(2)), '2.0');
    assert.equal(floatRepr(1e16), '1e+16');
    assert.equal(floatRepr(1e-5), '1e-05');
    assert.equal(str([undefined]), '[Undefined]');
  });
});

describe('truthiness, equality, arithmetic', () => {
  test('empty containers and zero are false; containers compare by value', () => {
    for (const v of [[], {}, '', 0, mkFloat(0), null]) assert.equal(truthy(v), false, String(v));
    for (const v of [[0], { a: 1 }, ' ', mkFloat(1)]) assert.equal(truthy(v), true);
    assert.ok(eq([1, { a: 2 }], [1, { a: 2 }]));
    assert.ok(eq(1, mkFloat(1)) && eq(true, 1));
    assert.ok(!eq([1], tuple([1])));
  });

  test('/ is a float, // and % follow Python, str + int fails', () => {
    assert.equal(str(binop('/', 10, 5)), '2.0');
    assert.equal(binop('//', -7, 2), -4);
    assert.equal(binop('%', -7, 3), 2);
    assert.throws(() => binop('+', 'a', 1), PyError);
    assert.deepEqual(binop('+', [1], [2]), [1, 2]);
    assert.equal(binop('*', 'ab', 2), 'abab');
  });

  test('StrictUndefined refuses undefined; lenient mode prints empty', () => {
    const before = setStrictUndefined(true);
    try {
      assert.throws(() => str(undefined), PyError);
      setStrictUndefined(false);
      assert.equal(str(undefined), '');
      assert.equal(truthy(undefined), false);
    } finally {
      setStrictUndefined(before);
    }
  });
});

describe('formatting, lookups, slices', () => {
  test('% and str.format', () => {
    assert.equal(percentFormat('%s-%05d|%.2f|%-3s|%%', tuple(['a', 42, 1.23456, 'x'])), 'a-00042|1.23|x  |%');
    assert.equal(percentFormat('%(k)s', { k: 'v' }), 'v');
    assert.throws(() => percentFormat('%s %s', tuple(['one'])), PyError);
    assert.equal(strFormat('{}-{name}-{0:>4}', ['a'], { name: 'n' }), 'a-n-   a');
  });

  test('a.b tries the attribute first, a[b] the item first; undefined lookups fail', () => {
    const d = { items: 'value' };
    assert.equal(typeof getattr(d, 'items', false, 'd'), 'function');
    assert.equal(getattr(d, 'items', true, 'd'), 'value');
    assert.equal(getattr(d, 'missing', false, 'd'), undefined);
    assert.throws(() => getattr(undefined, 'x', false, 'nope'), /'nope' is undefined/);
    assert.equal(getattr(['a', 'b'], -1, true, 'l'), 'b');
  });

  test('slices', () => {
    assert.equal(slice('abcdef', 1, 3, null), 'bc');
    assert.equal(slice('abcdef', null, null, -1), 'fedcba');
    assert.deepEqual(slice([1, 2, 3, 4], -2, null, null), [3, 4]);
  });
});

describe("Salt's helpers", () => {
  test('traverse and filter_by', () => {
    const data = { a: { b: [{ c: 1 }, 'x'] } };
    assert.equal(traverse(data, 'a:b:c', 'd'), 1);
    assert.equal(traverse(data, 'a:b:1', 'd'), 'x');
    assert.equal(traverse(data, 'a:z', 'd'), 'd');
    const lookup = { Debian: { pkg: 'apache2' }, 'Red*': { pkg: 'httpd' }, default: { pkg: 'web', port: 80 } };
    assert.deepEqual(filterBy(lookup, 'RedHat', null, 'default', 'default'), { pkg: 'httpd', port: 80 });
    assert.deepEqual(filterBy(lookup, 'Arch', { port: 8080 }, 'default', null), { pkg: 'web', port: 8080 });
  });

  test('serializers', () => {
    assert.equal(jsonDumps({ b: 1, a: [mkFloat(1), null] }, { sortKeys: true, indent: null, ensureAscii: true }), '{"a": [1.0, null], "b": 1}');
    assert.equal(yamlDump({ b: 'yes', a: ['x y', 'a: b'] }, true), "{a: [x y, 'a: b'], b: 'yes'}");
    assert.equal(yamlDump({ b: [1, 2], a: { c: 'd' } }, false), 'a:\n  c: d\nb:\n- 1\n- 2');
    assert.equal(yamlDquote('tab\t"é'), '"tab\\t\\"\\xE9"');
    // PyYAML folds after the `,` that passes column 80 and indents the rest by 2 (yaml.safe_dump(list(range(40))))
    const folded = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,\n  23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]';
    assert.equal(
      yamlDump(
        Array.from({ length: 40 }, (_, i) => i),
        true,
      ),
      folded,
    );
    // and between words of a quoted scalar (yaml.safe_dump({'k': 'word ' * 30}, default_flow_style=False))
    assert.equal(yamlDump({ k: 'word '.repeat(30) }, false), `k: '${'word '.repeat(16).trim()}\n  ${'word '.repeat(14)}'`);
  });

  test("YAML loading as Salt's loader", () => {
    assert.deepEqual(loadYaml('a: yes\nb: y\nc: 0755\nd: 2024-01-01\ne: 1.0e+3\n'), { a: true, b: 'y', c: 755, d: '2024-01-01', e: 1000 });
    // salt.serializers.yaml is plain PyYAML: there 0755 is octal
    assert.deepEqual(loadYaml('c: 0755\n', undefined, { octal: 'pyyaml' }), { c: 493 });
    assert.throws(() => loadYaml('a: 1\na: 2\n'), /duplicate key/);
  });
});
