// Salt 3007's _reconcile_watch_req (issue 22, bench:salt-lowchunks: consul-formula's
// `file.rename` with `watch`): a state module without mod_watch has its `watch` compiled as
// `require` (`watch_any` as `require_any`), appended to its own list or written after `fun`,
// and ordered with require's weight. The expected chunks are what Salt (master 66e5b97785,
// version 3007.0, from its source with salt-call --local) printed for this tree.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './harness.js';

const TREE = {
  'w/init.sls': [
    'a:',
    '  cmd.run:',
    '    - name: echo a',
    'b:',
    '  file.managed:',
    '    - name: /tmp/b',
    '    - watch:',
    '      - cmd: a',
    '    - order: 3',
    'c:',
    '  file.managed:',
    '    - name: /tmp/c',
    '    - require:',
    '      - cmd: a',
    '    - watch_any:',
    '      - cmd: a',
    'd:',
    '  cmd.run:',
    '    - name: echo d',
    '    - watch:',
    '      - file: b',
    'e:',
    '  pkg.installed:',
    '    - name: curl',
    '    - watch:',
    '      - cmd: a',
    '    - prereq:',
    '      - cmd: d',
    '',
  ].join('\n'),
};

const at = (id: string) => ({ __sls__: 'w', __env__: 'base', __id__: id });
const d = { state: 'cmd', name: 'echo d', ...at('d'), watch: [{ file: 'b' }], order: 10002, fun: 'run', __prereq__: true };
const SALT = [
  { state: 'cmd', name: 'echo a', ...at('a'), order: 10000, fun: 'run' },
  { state: 'file', name: '/tmp/b', ...at('b'), order: 3, fun: 'managed', require: [{ cmd: 'a' }] },
  { state: 'file', name: '/tmp/c', ...at('c'), require: [{ cmd: 'a' }], order: 10001, fun: 'managed', require_any: [{ cmd: 'a' }] },
  d,
  { state: 'pkg', name: 'curl', ...at('e'), watch: [{ cmd: 'a' }], prereq: [{ cmd: 'd' }], order: 10003, fun: 'installed', __prerequiring__: true },
  d,
];

describe("watch on a module without mod_watch, as Salt's order_chunks compiles it", () => {
  it('becomes require (appended, or a new key after fun); cmd and pkg keep theirs (chunks and key order as Salt printed)', async () => {
    const r = await harness({ base: TREE }).call('state.show_low_sls', ['w']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    assert.equal(JSON.stringify(r.return, null, 1), JSON.stringify(SALT, null, 1));
  });

  it('a file state watching a failed state does not run (a require)', async () => {
    const tree = { 'f.sls': 'bad:\n  rec.state:\n    - fail: true\nx:\n  file.managed:\n    - name: /nonexistent/brine-watch-require\n    - contents: x\n    - watch:\n      - rec: bad\n' };
    const r = await harness({ base: tree }).call('state.sls', ['f'], { test: true });
    const ret = r.return as Record<string, { result: unknown; comment: string }>;
    const x = ret['file_|-x_|-/nonexistent/brine-watch-require_|-managed']!;
    assert.equal(x.result, false);
    assert.match(x.comment, /One or more requisite failed/);
  });
});
