// show_lowstate as Salt 3007 prints it (issue 22): chunk fields and their order, `order` values,
// `names` expansion, `__sls_included_from__`, the prereq flags, and the list order of Salt's
// DependencyGraph. The expected list is derived by hand from Salt's code, not recorded from a
// run: salt/state.py HighState.render_state (includes: each state an include rendered gets the
// including SLS appended to __sls_included_from__; an SLS already rendered is not rendered
// again), _handle_iorder (auto order from 10000, included files first, none for a state with its
// own `order`), Compiler.compile_high_data (field order: state, name, __sls__, __env__,
// __sls_included_from__, __id__, the arguments, fun) and salt/utils/requisite.py
// (DependencyGraph._get_chunk_order, aggregate_and_order_chunks: lexicographical topological
// sort keyed by (order lowered to the dependents' order, own order, state+name+fun); a prereq
// target is listed at its check node's place too).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './harness.js';

const TREE = {
  'top.sls': "base:\n  '*':\n    - web\n",
  'web/init.sls': [
    'include:',
    '  - .common',
    '  - db',
    'pkgs:',
    '  rec.state:',
    '    - names:',
    '      - vim',
    '      - git:',
    '        - port: 22',
    '    - order: first',
    'app:',
    '  rec.state:',
    '    - port: 8080',
    '    - require:',
    '      - sls: db',
    'finish:',
    '  rec.state:',
    '    - order: last',
    'stopper:',
    '  rec.state:',
    '    - prereq:',
    '      - rec: app',
    '',
  ].join('\n'),
  'web/common.sls': 'include:\n  - db\ncommon:\n  rec.state: []\n',
  'db.sls': 'dbsvc:\n  rec.state:\n    - watch:\n      - rec: dbconf\ndbconf:\n  rec.state: []\n',
};

const base = { state: 'rec' };
// requisite_in gives a prereq target `prerequired` (after its arguments), and order_chunks the flags
const APP = {
  ...base,
  name: 'app',
  __sls__: 'web',
  __env__: 'base',
  __id__: 'app',
  port: 8080,
  require: [{ sls: 'db' }],
  order: 10003,
  prerequired: [{ rec: 'stopper' }],
  fun: 'state',
  __prereq__: true,
};
const EXPECTED = [
  // names: one chunk per name, order first = 0 plus name_order/10000; per-name arguments after order
  { ...base, name: 'vim', __sls__: 'web', __env__: 'base', __id__: 'pkgs', order: 0.0001, fun: 'state' },
  { ...base, name: 'git', __sls__: 'web', __env__: 'base', __id__: 'pkgs', order: 0.0002, port: 22, fun: 'state' },
  // dbconf is pulled down to its watcher dbsvc's order (10000): it comes before common (10002)
  { ...base, name: 'dbconf', __sls__: 'db', __env__: 'base', __sls_included_from__: ['web.common', 'web'], __id__: 'dbconf', order: 10001, fun: 'state' },
  { ...base, name: 'dbsvc', __sls__: 'db', __env__: 'base', __sls_included_from__: ['web.common', 'web'], __id__: 'dbsvc', watch: [{ rec: 'dbconf' }], order: 10000, fun: 'state' },
  { ...base, name: 'common', __sls__: 'web.common', __env__: 'base', __sls_included_from__: ['web'], __id__: 'common', order: 10002, fun: 'state' },
  // app's prereq check (run in test mode), then the state declaring the prereq, then app itself
  APP,
  { ...base, name: 'stopper', __sls__: 'web', __env__: 'base', __id__: 'stopper', prereq: [{ rec: 'app' }], order: 10004, fun: 'state', __prerequiring__: true },
  APP,
  // last = cap + 1000000, cap = the first integer order met (10003, app) + 100
  { ...base, name: 'finish', __sls__: 'web', __env__: 'base', __id__: 'finish', order: 1010103, fun: 'state' },
];

describe('show_lowstate as Salt 3007', () => {
  it('lists the chunks, their fields in Salt order, and Salt order values', async () => {
    const r = await harness({ base: TREE }).call('state.show_lowstate');
    assert.equal(r.success, true, JSON.stringify(r.return));
    // JSON text, so that the order of each chunk's fields is compared too
    assert.equal(JSON.stringify(r.return, null, 1), JSON.stringify(EXPECTED, null, 1));
  });

  it('runs in the listed order, the prereq check in test mode first; show_states follows it', async () => {
    const h = harness({ base: TREE });
    const r = await h.call('state.apply');
    assert.equal(r.success, true, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:vim', 'run:git:22', 'run:dbconf', 'run:dbsvc', 'run:common', 'test:app', 'run:app:8080', 'run:finish']);
    assert.deepEqual((await h.call('state.show_states')).return, ['web', 'db', 'web.common']);
  });

  it('a watch_in shows as a watch on its target, after the target own arguments (requisite_in), as in ntp-formula', async () => {
    const tree = {
      'top.sls': "base:\n  '*':\n    - n\n",
      'n.sls': 'p:\n  rec.state: []\nsvc:\n  rec.needs:\n    - target: x\n    - require:\n      - rec: p\nconf:\n  rec.state:\n    - require:\n      - rec: p\n    - watch_in:\n      - rec: svc\n',
    };
    const low = (await harness({ base: tree }).call('state.show_lowstate')).return as Array<Record<string, unknown>>;
    assert.equal(
      JSON.stringify(low),
      JSON.stringify([
        { state: 'rec', name: 'p', __sls__: 'n', __env__: 'base', __id__: 'p', order: 10000, fun: 'state' },
        { state: 'rec', name: 'conf', __sls__: 'n', __env__: 'base', __id__: 'conf', require: [{ rec: 'p' }], watch_in: [{ rec: 'svc' }], order: 10002, fun: 'state' },
        { state: 'rec', name: 'svc', __sls__: 'n', __env__: 'base', __id__: 'svc', target: 'x', require: [{ rec: 'p' }], order: 10001, watch: [{ rec: 'conf' }], fun: 'needs' },
      ]),
    );
  });

  it('a chain of requires is ordered as Salt 3007 does: a state is pulled down only to its direct dependents', async () => {
    // a(10000) requires b(10003) requires c(10004); d(10001), e(10002) are free. Salt keys c by b's
    // order (10003), so d and e run first; the old depth-first order ran c, b, a, d, e
    const tree = {
      'top.sls': "base:\n  '*':\n    - s\n",
      's.sls': 'a:\n  rec.state:\n    - require:\n      - rec: b\nd:\n  rec.state: []\ne:\n  rec.state: []\nb:\n  rec.state:\n    - require:\n      - rec: c\nc:\n  rec.state: []\n',
    };
    const low = (await harness({ base: tree }).call('state.show_lowstate')).return as Array<{ __id__: string }>;
    assert.deepEqual(
      low.map((c) => c.__id__),
      ['d', 'e', 'c', 'b', 'a'],
    );
  });

  it('require: sls names the states an SLS brought in through its includes', async () => {
    const tree = {
      'top.sls': "base:\n  '*':\n    - main\n",
      'main.sls': 'include:\n  - only-include\nlast:\n  rec.state:\n    - require:\n      - sls: only-include\n',
      'only-include.sls': 'include:\n  - leaf\n',
      'leaf.sls': 'leafstate:\n  rec.state: []\n',
    };
    const h = harness({ base: tree });
    const r = await h.call('state.apply');
    // Salt's test_issue_65080: an SLS that only includes another can be required
    assert.equal(r.success, true, JSON.stringify(r.return));
    const low = (await h.call('state.show_lowstate')).return as Array<Record<string, unknown>>;
    assert.deepEqual(low[0]!.__sls_included_from__, ['only-include', 'main']);
  });
});
