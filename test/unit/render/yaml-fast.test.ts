// The YAML fast path against the full parser (the `yaml` package with Salt's 1.1 tags): on every
// text of a corpus (hand-written edge cases and generated combinations) the fast path either
// bails or returns exactly what the full parser returns; and it does take the common SLS shapes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BAIL, fastLoadYaml } from '../../../src/util/yaml-fast.js';
import { parseDocument } from 'yaml';
import { loadYaml, plainParseOptions } from '../../../src/render/yaml-load.js';
import { resolvePlainScalar, UNSURE } from '../../../src/util/yaml-scalars.js';

// a makeFloat that keeps numbers as they are: the same tags as plain loading, but never the fast path
const fullOnly = (n: number): number => n;

function full(text: string): { value: unknown } | { error: string } {
  try {
    return { value: loadYaml(text, fullOnly) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function agree(text: string): boolean {
  const fast = fastLoadYaml(text);
  if (fast === BAIL) return false;
  const slow = full(text);
  assert.ok('value' in slow, `fast path accepted what the full parser refuses (${'error' in slow ? slow.error : ''}):\n${text}`);
  assert.deepStrictEqual(fast, slow.value, `fast path differs on:\n${text}`);
  return true;
}

const SLS = `
# a comment
bench-file-0:
  file.managed:
    - name: /srv/out/files/f0.conf
    - source: salt://bench/app.conf.j2
    - template: jinja
    - makedirs: True
    - mode: 0644
    - context:
        name: f0
        index: 0
bench-cmd-0:
  cmd.run:
    - name: touch /srv/out/markers/m0   # trailing comment
    - unless: test -e /srv/out/markers/m0
    - require:
      - file: bench-markers
    - env:
      - LANG: C
'quoted id':
  pkg.installed:
    - pkgs:
      - 'it''s'
      - "double"
      - plain value with#hash, a:b and a tail # comment
    - refresh: no
    - empty:
    - version: 1.10
    - other: ~
`;

// shapes the fast path must take (else it gives nothing)
const TAKEN = [
  SLS,
  'a: 1\nb: yes\nc: off\nd: 0755\ne: 1e3\nf: 1.5\ng: .inf\nh: -.inf\ni: .nan\nj: 0x1f\nk: 0b101\nl: 1_000\nm: 190:20:30\nn: 2001-12-14\no: null\np: NULL\nq: Yes\nr: +12\ns: -0\nt: 12:30\n',
  'top:\n- a\n- b\nnext:\n  - c\n',
  '- a: 1\n  b: 2\n- c\n-\n  - x\n- d: \n    e: f\n',
  '  indented: map\n  second: 2\n',
  'key: \'a: b # not a comment\'\nother: "x: y"\n',
  'url: http://example.com/a#frag\ncolon: a:b\nneg: -1\ndash: -x\n',
  '# only a comment\n\n   \n',
  'a:\n  b:\n    c:\n      d: deep\n  e: back\nf: top\n',
  'k: [not flow at start]x\n'.replace('[', 'v['),
];

// shapes the fast path must leave to the full parser (an error, or something it does not read)
const LEFT = [
  'a: 1\na: 2\n', // duplicate key: an error
  'a:\n  b: 1\n  b: 2\n',
  '80: http\n', // non-string key
  'yes: 1\n',
  'a: [1, 2]\n',
  'a: {b: 1}\n',
  'a: &x 1\nb: *x\n',
  'a: !!str 1\n',
  'a: |\n  text\n',
  'a: >\n  text\n',
  'a: multi\n  line\n',
  '<<: {a: 1}\n',
  'a: "esc\\n"\n',
  "a: 'open\n  close'\n",
  '---\na: 1\n',
  'a: b: c\n',
  'a:\tb\n',
  'a: 1\r\nb: 2\r\n',
  '- - a\n',
  'a: 1\n - b\n',
  'a: 1\n  b: 2\n',
  '- a\nb: 1\n',
  'a\n',
  'a: 1\n b: 2\n',
  '? a\n: b\n',
  '__proto__: x\n',
  'a: b #c: d\nx:y #e: 1\n',
  'a: - b\n',
  'a: 1\n   # deeper comment is fine\nb:\n    - x\n   - y\n',
];

/** Every combination of a few structures and scalar spellings, for the differential check. */
function generated(): string[] {
  const scalars = [
    'x',
    'True',
    'no',
    'ON',
    '0',
    '007',
    '08',
    '0o7',
    '-1',
    '+1',
    '1.',
    '.5',
    '1.0e+3',
    '1e3',
    '0x_1',
    '1:2',
    '1:60',
    '~',
    'null',
    'Null',
    '',
    "'q'",
    '"dq"',
    "'a''b'",
    'a #c',
    'a#c',
    'a:b',
    '-',
    '-a',
    '12:30:45',
    '2020-01-01',
    'y',
    'n',
    '=',
    '<<',
    '.',
    '..',
    '...x',
    'a b  ',
    '9007199254740993',
    '0b2',
    '0xG',
    '1_0',
    '_1',
    '+.inf',
    '-.NaN',
  ];
  const out: string[] = [];
  for (const s of scalars) {
    out.push(`k: ${s}\n`, `- ${s}\n`, `k:\n  - ${s}\n  - z\n`, `${s}: v\n`, `- ${s}: v\n  w: ${s}\n`, `a:\n  ${s}: 1\nb: ${s}\n`, `k:\n- ${s}\n`);
  }
  return out;
}

/** A small seeded PRNG, so that a failure can be reproduced. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

/** Random block YAML: nested maps and sequences, varied indentation, comments and blank lines. */
function randomDocument(seed: number): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const scalars = ['v', 'True', 'off', '12', '0644', '1.5', '~', "'s q'", '"d q"', 'a b', 'x#y', 'p:q', '-n', 'salt://a/b.j2', ''];
  const lines: string[] = [];
  const node = (indent: number, depth: number, inSeqSameIndent: boolean): void => {
    const step = 1 + Math.floor(r() * 4);
    const isSeq = r() < 0.4;
    const n = 1 + Math.floor(r() * 4);
    for (let k = 0; k < n; k++) {
      if (r() < 0.1) lines.push(r() < 0.5 ? '' : `${' '.repeat(Math.floor(r() * 6))}# note`);
      const pad = ' '.repeat(indent);
      const leaf = depth > 3 || r() < 0.5;
      if (isSeq) {
        if (leaf) lines.push(`${pad}- ${pick(scalars)}`.trimEnd());
        else if (r() < 0.5) {
          lines.push(`${pad}- k${k}: ${pick(scalars)}`.trimEnd());
          lines.push(`${' '.repeat(indent + 2)}m${k}: ${pick(scalars)}`.trimEnd());
        } else {
          lines.push(`${pad}-`);
          node(indent + step, depth + 1, false);
        }
      } else if (leaf) lines.push(`${pad}key${k}: ${pick(scalars)}${r() < 0.2 ? '  # c' : ''}`.trimEnd());
      else {
        lines.push(`${pad}key${k}:`);
        node(r() < 0.3 && !inSeqSameIndent ? indent : indent + step, depth + 1, true);
      }
    }
  };
  node(0, 0, false);
  return `${lines.join('\n')}\n`;
}

describe('YAML fast path', () => {
  test('takes the common SLS shapes and returns what the full parser returns', () => {
    for (const text of TAKEN) assert.ok(agree(text), `the fast path bailed on:\n${text}`);
  });

  test('leaves errors and everything beyond plain block YAML to the full parser', () => {
    for (const text of LEFT) assert.equal(fastLoadYaml(text), BAIL, `the fast path took:\n${text}`);
  });

  test('agrees with the full parser on every generated combination it takes', () => {
    const texts = generated();
    const taken = texts.filter(agree).length;
    // most of the combinations are plain enough to be taken (the check above is not vacuous)
    assert.ok(taken > texts.length / 2, `only ${taken} of ${texts.length} taken`);
  });

  test('agrees with the full parser on random nested documents', () => {
    let taken = 0;
    for (let seed = 1; seed <= 400; seed++) if (agree(randomDocument(seed))) taken++;
    assert.ok(taken > 100, `only ${taken} of 400 taken`);
  });

  test("plain scalars resolve as the full parser's schema resolves them", () => {
    // the schema loadYaml parses with, asked directly (as compose-scalar.js picks a tag)
    const doc = parseDocument('', plainParseOptions());
    const viaSchema = (text: string, atKey: boolean): unknown => {
      const tag = doc.schema.tags.find((t) => (t.default === true || (atKey && t.default === 'key')) && !t.collection && (t as { test?: RegExp }).test?.test(text));
      if (!tag) return text;
      const v = (tag as unknown as { resolve: (s: string, e: () => void, o: unknown) => unknown }).resolve(text, () => undefined, doc.options);
      return v !== null && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v;
    };
    const parts = [
      '',
      '0',
      '1',
      '7',
      '8',
      '9',
      '_',
      '.',
      ':',
      'b',
      'x',
      'e',
      'E',
      '+',
      '-',
      'a',
      'f',
      'F',
      '5',
      '59',
      '60',
      'inf',
      'nan',
      'NaN',
      'Inf',
      'null',
      'Null',
      'NULL',
      '~',
      'yes',
      'No',
      'ON',
      'off',
      'True',
      'y',
      '<<',
      '2001',
      '12',
      '14',
      'T',
    ];
    let n = 0;
    for (const a of parts)
      for (const b of parts)
        for (const c of ['', '0', ':30', '.5', 'e+3', '_1', 'x']) {
          const text = a + b + c;
          for (const atKey of [false, true]) {
            const own = resolvePlainScalar(text, atKey);
            if (own === UNSURE) continue;
            assert.deepStrictEqual(own, viaSchema(text, atKey), `resolving ${JSON.stringify(text)}${atKey ? ' as a key' : ''}`);
            n++;
          }
        }
    assert.ok(n > 10000);
  });

  test('loadYaml still reports errors (with position) for what the fast path leaves', () => {
    assert.throws(() => loadYaml('a: 1\nb: 2\na: 3\n', undefined, { stringIds: true }), /duplicate key/);
    assert.throws(() => loadYaml('80: x\n', undefined, { stringIds: true }), /ID '80' is not formed as a string/);
    assert.deepEqual(loadYaml('a: [1, {b: yes}]\n'), { a: [1, { b: true }] });
  });

  test('a 500-state SLS takes the fast path with the same result', () => {
    let text = '';
    for (let i = 0; i < 500; i++)
      text += `id-${i}:\n  file.managed:\n    - name: /tmp/f${i}\n    - mode: '0644'\n    - context:\n        index: ${i}\n    - require:\n      - file: id-${Math.max(0, i - 1)}\n`;
    assert.ok(agree(text));
  });
});
