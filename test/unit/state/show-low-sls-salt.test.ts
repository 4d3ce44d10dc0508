// state.show_low_sls as Salt 3007 prints it (issue 22, bench:salt-lowchunks): Salt's
// modules/state.py show_low_sls compiles render_highstate's output directly, so neither `extend`
// nor requisite_in nor `exclude` is applied; the `_in` arguments stay in the declaring chunk and
// only the forward requisites order the list. The expected list is what Salt (master 66e5b97785,
// version 3007.0, run from its source with salt-call --local) printed for this tree, with
// `version` quoted (Salt's YAML reads 1.0 as a float, which JSON prints as 1.0 and brine as 1).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './harness.js';

const TREE = {
  'syn/init.sls': [
    'include:',
    '  - syn.other',
    'pkgs:',
    '  pkg.installed:',
    '    - names:',
    '      - curl',
    '      - wget:',
    "        - version: '1.0'",
    '      - curl',
    '    - require_in:',
    '      - file: conf',
    'conf:',
    '  file.managed:',
    '    - name: /tmp/x.conf',
    '    - contents: hi',
    '    - listen_in:',
    '      - cmd: reload',
    '    - order: 5',
    'reload:',
    '  cmd.run:',
    '    - name: echo reload',
    '    - prereq:',
    '      - file: conf',
    '    - watch_in:',
    '      - service: svc',
    'first:',
    '  cmd.run:',
    '    - name: echo first',
    '    - order: first',
    'svc:',
    '  service.running:',
    '    - name: ssh',
    '    - require:',
    '      - sls: syn.other',
    '      - pkg: curl',
    'extend:',
    '  other-file:',
    '    file:',
    "      - mode: '0644'",
    '      - require:',
    '        - cmd: first',
    '',
  ].join('\n'),
  'syn/other.sls': ['other-file:', '  file.directory:', '    - name: /tmp/d', '    - onchanges_in:', '      - cmd: first', 'last:', '  test.nop:', '    - order: last', ''].join('\n'),
};

const base = (sls: string, id: string, from?: string[]) => ({ __sls__: sls, __env__: 'base', ...(from ? { __sls_included_from__: from } : {}), __id__: id });
const conf = { state: 'file', name: '/tmp/x.conf', ...base('syn', 'conf'), contents: 'hi', listen_in: [{ cmd: 'reload' }], order: 5, fun: 'managed', __prereq__: true };
const SALT = [
  { state: 'cmd', name: 'echo first', ...base('syn', 'first'), order: 0, fun: 'run' },
  conf,
  { state: 'cmd', name: 'echo reload', ...base('syn', 'reload'), prereq: [{ file: 'conf' }], watch_in: [{ service: 'svc' }], order: 10002, fun: 'run', __prerequiring__: true },
  conf,
  { state: 'file', name: '/tmp/d', ...base('syn.other', 'other-file', ['syn']), onchanges_in: [{ cmd: 'first' }], order: 10000, fun: 'directory' },
  { state: 'pkg', name: 'curl', ...base('syn', 'pkgs'), require_in: [{ file: 'conf' }], order: 10001.0001, fun: 'installed' },
  { state: 'pkg', name: 'wget', ...base('syn', 'pkgs'), require_in: [{ file: 'conf' }], order: 10001.0002, version: '1.0', fun: 'installed' },
  { state: 'test', name: 'last', ...base('syn.other', 'last', ['syn']), order: 1010101, fun: 'nop' },
  { state: 'service', name: 'ssh', ...base('syn', 'svc'), require: [{ sls: 'syn.other' }, { pkg: 'curl' }], order: 10003, fun: 'running' },
];

describe("state.show_low_sls in Salt 3007's shape", () => {
  it('lists the rendered high data as compiled: no extend, no requisite_in, forward requisites order it (chunks and key order as Salt printed)', async () => {
    const r = await harness({ base: TREE }).call('state.show_low_sls', ['syn']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    // JSON text: the key order inside each chunk is Salt's too
    assert.equal(JSON.stringify(r.return, null, 1), JSON.stringify(SALT, null, 1));
  });

  it('a run of the same tree still applies extend and the _in requisites (the extend here makes a cycle Salt reports too)', async () => {
    const r = await harness({ base: TREE }).call('state.sls', ['syn'], { test: true });
    assert.equal(r.error?.code, 'STATE_COMPILE_FAILED');
    assert.match(JSON.stringify(r.return), /Recursive requisites were found/);
  });

  it('an _in or listen naming no state is no error in show_low_sls (Salt checks them when it runs), a forward requisite is', async () => {
    const h = harness({
      base: { 'a.sls': 'a:\n  rec.state:\n    - require_in:\n      - rec: nowhere\n    - listen:\n      - rec: nowhere\n', 'b.sls': 'b:\n  rec.state:\n    - require:\n      - rec: nowhere\n' },
    });
    const a = await h.call('state.show_low_sls', ['a']);
    assert.equal(a.success, true, JSON.stringify(a.return));
    assert.deepEqual(a.return, [{ state: 'rec', name: 'a', ...base('a', 'a'), require_in: [{ rec: 'nowhere' }], listen: [{ rec: 'nowhere' }], order: 10000, fun: 'state' }]);
    assert.equal((await h.call('state.sls', ['a'])).error?.code, 'STATE_COMPILE_FAILED');
    const b = await h.call('state.show_low_sls', ['b']);
    assert.equal(b.error?.code, 'STATE_COMPILE_FAILED');
    assert.deepEqual(b.return, ['Referenced state does not exist for requisite [require: (rec: nowhere)] in state [b] in SLS [b]']);
  });
});

describe('state declaration items Salt passes over', () => {
  it('a bool, number or list item among the arguments is ignored, as Salt 3007 compiles it (nfs-formula: `- {{ persist }}` rendering False)', async () => {
    const h = harness({ base: { 'n.sls': '/mnt/x:\n  mount.unmounted:\n    - device: srv:/x\n    - False\n    - 3\n    - [a]\n' } });
    const r = await h.call('state.show_low_sls', ['n']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    // what Salt printed for the same declaration
    assert.deepEqual(r.return, [{ state: 'mount', name: '/mnt/x', __sls__: 'n', __env__: 'base', __id__: '/mnt/x', device: 'srv:/x', order: 10000, fun: 'unmounted' }]);
  });
});
