// Anchor names end where PyYAML ends them (letters, digits, '-', '_'): vim-formula's pillar.example
// writes `lets:\n    &colorcolumn: join(...)`, which Salt loads as a mapping with a null key (so
// its template's `lets.get(...)` works) and the yaml package loaded as a string anchored
// "colorcolumn:" (issue 22). brine loads what PyYAML loads; its null key is '' (brine's JSON
// form of a None key everywhere).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { pyyamlAnchorNames } from '../../../src/render/yaml-anchor-names.js';
import { loadYaml } from '../../../src/render/yaml-load.js';

/** PyYAML's safe_load, with a None key written as '' as brine writes it. */
function pyyaml(text: string): unknown {
  const code = [
    'import json, sys, yaml',
    'def k(v):',
    '    if isinstance(v, dict): return {("" if a is None else a): k(b) for a, b in v.items()}',
    '    if isinstance(v, list): return [k(x) for x in v]',
    '    return v',
    'print(json.dumps(k(yaml.safe_load(sys.stdin.read()))))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', code], { input: text, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('anchor and alias names as PyYAML scans them', () => {
  it("vim-formula's `&colorcolumn: value` is a null key with an anchor, not an anchored string", () => {
    const text = 'vim:\n  lets:\n    &colorcolumn: join(range(121,121),",")\n  other: 1\n';
    assert.deepEqual(loadYaml(text), { vim: { lets: { '': 'join(range(121,121),",")' }, other: 1 } });
    assert.deepEqual(loadYaml(text), pyyaml(text));
  });

  it('a name ended by another indicator, an alias of a cut name, and anchors PyYAML reads whole', () => {
    for (const text of [
      'a: &b:c 1\n',
      'base: &base {x: 1}\nother: *base\n',
      'a: &x-y_1 [1, 2]\nb: *x-y_1\n',
      'list:\n  - &item\n    k: v\n  - *item\n',
      "q: 'text &notanchor: here'\nblock: |\n  &colorcolumn: stays text\n",
      'flow: {a: &n 1, b: *n}\n',
    ]) {
      assert.deepEqual(loadYaml(text), pyyaml(text), text);
    }
  });

  it('texts without such a name are returned as they are, without tokenizing', () => {
    const text = "top:\n  '*':\n    - web\nurl: http://x/?a=1&b=2\n";
    assert.equal(pyyamlAnchorNames(text), text);
    assert.equal(pyyamlAnchorNames('a: &ok 1\n'), 'a: &ok 1\n');
  });
});
