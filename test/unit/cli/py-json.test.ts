// pyJsonDumps must print what Python's json.dumps prints (Salt's json outputter), whichever of its
// two paths runs: the native JSON.stringify fast path for plain ASCII data, or the encoder.
// Checked against python3 itself on generated values.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { pyJsonDumps } from '../../../src/cli/output/py-json.js';

const PY = `
import json, sys
values = json.loads(sys.stdin.read())
print(json.dumps([json.dumps(v, indent=4) for v in values]))
`;

function pythonMissing(): string | false {
  const probe = spawnSync('python3', ['-c', 'import json'], { encoding: 'utf8' });
  return probe.error || probe.status !== 0 ? 'python3 is not installed' : false;
}

// JSON-representable values: ASCII-only ones (the fast path) and any unicode (the encoder).
// Integral doubles from 1e21 are left out: JSON.stringify writes them as 1e+21, which Python
// reads as a float, while brine (like any JS) cannot tell 1e21 from an int and prints an int.
const double = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !(Number.isInteger(d) && Math.abs(d) >= 1e21));
const number = fc.oneof(fc.integer(), double, fc.constantFrom(0.0001, 0.00001, 1e15 + 0.5, 1e16, 123.456, -0));
const key = fc.oneof(fc.string(), fc.string({ unit: 'binary' }));
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), number, fc.string(), fc.string({ unit: 'binary' }), tie('list'), tie('dict')),
  list: fc.array(tie('any'), { maxLength: 4 }),
  dict: fc.dictionary(key, tie('any'), { maxKeys: 4 }),
})).any;

test('pyJsonDumps(value, 4) equals Python json.dumps(value, indent=4), on ASCII and unicode data alike', (t) => {
  const missing = pythonMissing();
  if (missing) return t.skip(missing);
  const values = fc.sample(value, { numRuns: 400, seed: 42 });
  // state-return-like data: the shape the fast path exists for
  values.push({
    'file_|-a_|-/etc/x_|-managed': { name: '/etc/x', result: true, changes: {}, comment: 'File /etc/x is in the correct state', __run_num__: 0, duration: 0.512, start_time: '10:00:00.000000' },
  });
  const wire = JSON.stringify(values);
  const res = spawnSync('python3', ['-c', PY], { input: wire, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(res.status, 0, res.stderr);
  const expected = JSON.parse(res.stdout) as string[];
  const roundTripped = JSON.parse(wire) as unknown[];
  for (const [i, v] of roundTripped.entries()) assert.equal(pyJsonDumps(v, 4), expected[i], `value ${i}: ${JSON.stringify(v)}`);
});

test('pyJsonDumps: the fast path does not swallow what only the encoder prints (non-ASCII, NaN, big numbers, toJSON)', () => {
  assert.equal(pyJsonDumps({ a: 'é' }, 4), '{\n    "a": "\\u00e9"\n}');
  assert.equal(pyJsonDumps({ ü: 1 }, 4), '{\n    "\\u00fc": 1\n}');
  assert.equal(pyJsonDumps([Number.NaN, Infinity], 4), '[\n    NaN,\n    Infinity\n]');
  assert.equal(pyJsonDumps([1e21, 1e-5], 4), '[\n    1000000000000000000000,\n    1e-05\n]');
  assert.equal(pyJsonDumps({ toJSON: () => 'x', b: 1 }, 4), '"x"');
});
