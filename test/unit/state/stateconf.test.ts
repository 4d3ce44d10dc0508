// #!stateconf SLS files end to end through the state compiler and a run: an including file
// overrides an included file's stateconf.set (Salt's include + extend of sls_params), relative
// IDs and the generated .goal state compile to low chunks, and stateconf.set runs as Salt's no-op
// (salt/states/stateconf.py _no_op: result True, changes {}, comment '' in both modes).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './harness.js';

type Chunk = Record<string, unknown> & { __id__: string; name: string; state: string; fun: string };

const TREE = {
  'app/main.sls': [
    '#!stateconf yaml . jinja',
    'include:',
    '  - .conf',
    'extend:',
    '  .conf::params:',
    '    stateconf.set:',
    '      - port: 9090',
    '.after:',
    '  rec.state:',
    '    - require:',
    '      - stateconf: .conf::goal',
  ].join('\n'),
  'app/conf.sls': [
    '#!stateconf',
    '.params:',
    '  stateconf.set:',
    '    - port: 80',
    '    - host: localhost',
    '# --- end of state config ---',
    '.listen:',
    '  rec.state:',
    '    - name: listen {{ params.host }}:{{ params.port }} in {{ sls_dir }}',
  ].join('\n'),
};

describe('#!stateconf through the compiler', () => {
  it("compiles an include + extend of a stateconf.set to Salt's low chunks, the override reaching the included template", async () => {
    const h = harness({ base: TREE });
    const r = await h.call('state.show_low_sls', ['app.main']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    const chunks = r.return as Chunk[];
    const byId = new Map(chunks.map((c) => [c.__id__, c]));
    assert.deepEqual(
      chunks.map((c) => [c.__id__, c.state, c.fun, c.name, c.__sls__]),
      [
        ['app.conf::params', 'stateconf', 'set', 'app.conf::params', 'app.conf'],
        ['app.conf::listen', 'rec', 'state', 'listen localhost:9090 in app', 'app.conf'],
        ['app.conf::goal', 'stateconf', 'set', 'app.conf::goal', 'app.conf'],
        ['app.main::after', 'rec', 'state', 'after', 'app.main'],
        ['app.main::goal', 'stateconf', 'set', 'app.main::goal', 'app.main'],
      ],
    );
    // show_low_sls compiles the rendered data without applying `extend` (Salt's does the same);
    // the high data of a run has the extended argument
    assert.equal(byId.get('app.conf::params')!.port, 80, 'show_low_sls does not apply extend');
    const high = (await h.call('state.show_sls', ['app.main'])).return as Record<string, { stateconf: unknown[] }>;
    assert.ok(
      high['app.conf::params']!.stateconf.some((a) => JSON.stringify(a) === '{"port":9090}'),
      'the extend replaced the argument',
    );
    assert.deepEqual(byId.get('app.conf::goal')!.require, [{ stateconf: 'app.conf::params' }, { rec: 'app.conf::listen' }]);
    assert.deepEqual(byId.get('app.main::after')!.require, [{ stateconf: 'app.conf::goal' }]);
  });

  it('runs stateconf.set as a no-op in test and real mode, in requisite order', async () => {
    for (const testMode of [true, false]) {
      const h = harness({ base: TREE });
      const r = await h.call('state.sls', ['app.main'], testMode ? { test: true } : {});
      assert.equal(r.success, true, JSON.stringify(r.return));
      const ret = r.return as Record<string, { result: unknown; changes: unknown; comment: unknown; name: unknown }>;
      const goal = ret['stateconf_|-app.conf::goal_|-app.conf::goal_|-set']!;
      assert.deepEqual([goal.name, goal.result, goal.changes, goal.comment], ['app.conf::goal', true, {}, '']);
      const params = ret['stateconf_|-app.conf::params_|-app.conf::params_|-set']!;
      assert.deepEqual([params.result, params.changes, params.comment], [true, {}, '']);
      assert.deepEqual(h.log, testMode ? ['test:listen localhost:9090 in app', 'test:after'] : ['run:listen localhost:9090 in app', 'run:after']);
    }
  });

  it('an SLS that renders empty compiles to its goal state alone', async () => {
    const h = harness({ base: { 'empty.sls': '#!stateconf\n{# nothing for this host #}\n' } });
    const r = await h.call('state.show_low_sls', ['empty']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    assert.deepEqual(
      (r.return as Chunk[]).map((c) => [c.__id__, c.state, c.fun, c.require]),
      [['empty::goal', 'stateconf', 'set', []]],
    );
  });

  it('a #!py file that raises fails that SLS only, naming the file and the Python line', async () => {
    const h = harness({ base: { 'good.sls': 'ok:\n  rec.state: []\n', 'bad.sls': '#!py\ndef run():\n    raise ValueError("no data")\n' } });
    const r = await h.call('state.sls', ['good,bad']);
    assert.equal(r.success, false);
    assert.equal(r.error?.code, 'STATE_COMPILE_FAILED');
    const messages = r.return as string[];
    assert.equal(messages.length, 1, messages.join('\n'));
    assert.match(messages[0]!, /^Rendering SLS 'base:bad' failed: .*bad\.sls:3\b[\s\S]*ValueError: no data/);
    assert.deepEqual(h.log, [], 'nothing ran');
  });
});
