// The compiler stages over in-memory SLS trees: the declaration forms Salt accepts, include
// (absolute and relative), extend, names, exclude, requisite forms, ordering, and every compile
// error (each reported with all the states it affects, and no state run).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { byId, harness } from './harness.js';

type Chunk = Record<string, unknown> & { __id__: string; name: string; order: number };

async function lowstate(tree: Record<string, string>, mods: string, kwarg: Record<string, unknown> = {}): Promise<Chunk[]> {
  const h = harness({ base: tree });
  // show_lowstate is the highstate's; compile the mods through a top file naming them
  const top = `base:\n  '*':\n${mods
    .split(',')
    .map((m) => `    - ${m}`)
    .join('\n')}\n`;
  const r = await harness({ base: { ...tree, 'top.sls': top } }).call('state.show_lowstate', [], kwarg);
  void h;
  assert.equal(r.success, true, JSON.stringify(r.return));
  return r.return as Chunk[];
}

async function compileErrors(tree: Record<string, string>, mods: string, kwarg: Record<string, unknown> = {}): Promise<{ messages: string[]; log: string[] }> {
  const h = harness({ base: tree });
  const r = await h.call('state.sls', [mods], kwarg);
  assert.equal(r.success, false);
  assert.equal(r.retcode, 1);
  assert.equal(r.error?.code, 'STATE_COMPILE_FAILED');
  assert.ok(Array.isArray(r.return), 'Salt returns compile errors as a list of strings');
  return { messages: r.return as string[], log: h.log };
}

describe('state declaration forms', () => {
  it('pkg.fun: [args], pkg: [fun, args] and the short "id: pkg.fun" compile to the same chunks', async () => {
    const chunks = await lowstate(
      {
        'a.sls': 'one:\n  rec.state:\n    - name: n1\n    - changes: true\ntwo:\n  rec:\n    - state\n    - port: 80\nthree: rec.state\nfour:\n  rec.state: []\n',
      },
      'a',
    );
    assert.deepEqual(
      chunks.map((c) => [c.__id__, c.state, c.fun, c.name, c.__sls__, c.__env__]),
      [
        ['one', 'rec', 'state', 'n1', 'a', 'base'],
        ['two', 'rec', 'state', 'two', 'a', 'base'],
        ['three', 'rec', 'state', 'three', 'a', 'base'],
        ['four', 'rec', 'state', 'four', 'a', 'base'],
      ],
    );
    assert.equal(chunks[0]!.changes, true);
    assert.equal(chunks[1]!.port, 80);
  });

  it('reports every malformed declaration of a file, naming the ID, and runs nothing', async () => {
    const { messages, log } = await compileErrors(
      {
        'bad.sls':
          'ok:\n  rec.state: []\nnolist:\n  rec.state: {name: x}\ntwofuns:\n  rec:\n    - state\n    - other\nnofun:\n  rec:\n    - name: y\nmulti:\n  rec.state:\n    - require: [ok]\n      port: 1\nnotmap: 5\n',
      },
      'bad',
    );
    assert.equal(messages.length, 5, messages.join('\n'));
    for (const id of ['nolist', 'twofuns', 'nofun', 'multi', 'notmap'])
      assert.ok(
        messages.some((m) => m.includes(`'${id}'`)),
        `${id} named in ${messages.join('\n')}`,
      );
    // Salt's _verify_high wording for these two
    assert.ok(messages.includes("Too many functions declared in state 'twofuns' in SLS 'bad'. Please choose one of the following: state, other"), messages.join('\n'));
    assert.ok(messages.includes("No function declared in state 'nofun' in SLS 'bad'"), messages.join('\n'));
    assert.deepEqual(log, []);
  });

  it("a requisite written beside the state module (Whyrl35's `require:` under the ID) and names that is not a list: Salt's errors", async () => {
    const { messages } = await compileErrors({ 'w.sls': 'dep:\n  rec.state: []\nrepo:\n  rec.state: []\n  require:\n    - rec: dep\npeers:\n  rec.state:\n    - names:\n' }, 'w');
    assert.deepEqual(messages, ["No function declared in state 'repo' in SLS 'w'", "The 'names' argument in state 'peers' in SLS 'w' needs to be formed as a list"]);
  });

  it('an SLS that renders to a list is an error naming the SLS', async () => {
    const { messages } = await compileErrors({ 'l.sls': '- a\n- b\n' }, 'l');
    assert.match(messages[0]!, /SLS 'l' does not render to a dictionary/);
  });
});

describe('include', () => {
  it('includes absolute and relative SLS files; included states run first (state_auto_order)', async () => {
    const h = harness({
      base: {
        'web/init.sls': 'include:\n  - .conf\n  - common\nweb:\n  rec.state: []\n',
        'web/conf.sls': 'include:\n  - ..common\n  - .sub.deep\nconf:\n  rec.state: []\n',
        'web/sub/deep.sls': 'include:\n  - ..conf\ndeep:\n  rec.state: []\n',
        'common.sls': 'common:\n  rec.state: []\n',
      },
    });
    const r = await h.call('state.sls', ['web']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    // web/conf includes ..common (web/conf.sls is not an init.sls: '..' leaves the web package)
    assert.deepEqual(h.log, ['run:common', 'run:deep', 'run:conf', 'run:web']);
    const ids = byId(r.return);
    assert.equal(Object.keys(ids).length, 4);
  });

  it('a missing include and a relative include beyond the top are errors naming the including SLS', async () => {
    const { messages, log } = await compileErrors({ 'a.sls': 'include:\n  - nothere\n  - ..up\na:\n  rec.state: []\n' }, 'a');
    assert.equal(messages.length, 2, messages.join('\n'));
    assert.match(messages.join('\n'), /Specified SLS 'nothere' in saltenv 'base' is not available.*included by SLS 'a'/);
    assert.match(messages.join('\n'), /relative include of '\.\.up' within SLS 'base:a' goes beyond top level package/);
    assert.deepEqual(log, []);
  });

  it('sls names a missing file: an error, nothing runs', async () => {
    const { messages } = await compileErrors({ 'a.sls': 'a:\n  rec.state: []\n' }, 'a,missing');
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /'missing'/);
  });

  it('a file included twice (and include loops) is compiled once', async () => {
    const h = harness({ base: { 'a.sls': 'include: [b]\na:\n  rec.state: []\n', 'b.sls': 'include: [a]\nb:\n  rec.state: []\n' } });
    const r = await h.call('state.sls', ['a,b']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:b', 'run:a']);
  });
});

describe('unique IDs', () => {
  it('two SLS files defining one ID: an error naming both, nothing runs', async () => {
    const { messages, log } = await compileErrors({ 'a.sls': 'dup:\n  rec.state: []\nother:\n  rec.state: []\n', 'b.sls': 'dup:\n  rec.state: []\n' }, 'a,b');
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /conflicting ID is 'dup' and is found in SLS 'base:a' and SLS 'base:b'/);
    assert.deepEqual(log, []);
  });
});

describe('extend', () => {
  it('replaces arguments and appends requisites of an included ID', async () => {
    const chunks = await lowstate(
      {
        'base.sls': 'svc:\n  rec.state:\n    - port: 80\n    - require:\n      - first\nfirst:\n  rec.state: []\nsecond:\n  rec.state: []\n',
        'site.sls': 'include: [base]\nextend:\n  svc:\n    rec.state:\n      - port: 8080\n      - require:\n        - second\n',
      },
      'site',
    );
    const svc = chunks.find((c) => c.__id__ === 'svc')!;
    assert.equal(svc.port, 8080);
    assert.deepEqual(svc.require, ['first', 'second']);
  });

  it('extending an ID that is not in the run is an error', async () => {
    const { messages } = await compileErrors({ 'site.sls': 'extend:\n  ghost:\n    rec.state:\n      - port: 1\n' }, 'site');
    assert.match(messages[0]!, /Cannot extend ID 'ghost' in 'base:site'/);
  });
});

describe('names', () => {
  it('expands to one chunk per name, with per-name overrides, each requisite applying to all', async () => {
    const h = harness({
      base: { 'n.sls': 'pkgs:\n  rec.state:\n    - port: 1\n    - names:\n      - a\n      - b:\n        - port: 2\n      - c\nafter:\n  rec.state:\n    - require:\n      - pkgs\n' },
    });
    const r = await h.call('state.sls', ['n']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:a:1', 'run:b:2', 'run:c:1', 'run:after']);
    const keys = Object.keys(r.return as object);
    assert.ok(keys.includes('rec_|-pkgs_|-b_|-state'), keys.join(' '));
  });
});

describe('exclude', () => {
  it('exclude: - sls and - id in an SLS, and exclude= on state.sls', async () => {
    const tree = {
      'a.sls': 'include: [b, c]\nexclude:\n  - sls: b\n  - id: c2\na:\n  rec.state: []\n',
      'b.sls': 'b:\n  rec.state: []\n',
      'c.sls': 'c1:\n  rec.state: []\nc2:\n  rec.state: []\n',
    };
    const h = harness({ base: tree });
    await h.call('state.sls', ['a']);
    assert.deepEqual(h.log, ['run:c1', 'run:a']);
    const h2 = harness({ base: tree });
    await h2.call('state.sls', ['a'], { exclude: [{ id: 'c1' }] });
    assert.deepEqual(h2.log, ['run:a']);
    const h3 = harness({ base: { ...tree, 'a.sls': 'include: [b, c]\na:\n  rec.state: []\n' } });
    await h3.call('state.sls', ['a'], { exclude: 'c' });
    assert.deepEqual(h3.log, ['run:b', 'run:a']);
  });
});

describe('requisite forms', () => {
  it('matches by state and ID, state and name, bare ID or name, sls, id and glob; _in inverts', async () => {
    const h = harness({
      base: {
        'r.sls': [
          'z_last:\n  rec.state:\n    - require:\n      - rec: byid\n      - rec: /etc/named\n      - bare\n      - sls: other\n      - id: glob1\n      - rec: glob*\n',
          'byid:\n  rec.state: []\n',
          'named:\n  rec.state:\n    - name: /etc/named\n',
          'bare:\n  rec.state: []\n',
          'glob1:\n  rec.state: []\n',
          'glob2:\n  rec.state: []\n',
          'before_in:\n  rec.state:\n    - require_in:\n      - rec: target_in\n',
          'target_in:\n  rec.state:\n    - order: 1\n',
        ].join(''),
        'other.sls': 'o:\n  rec.state:\n    - order: last\n',
      },
    });
    const r = await h.call('state.sls', ['r,other']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    // target_in has order 1 (before every auto-ordered state) but require_in puts before_in first;
    // z_last runs after everything it names, including `o` (order: last) through `- sls: other`
    assert.deepEqual(h.log.slice(0, 2), ['run:before_in', 'run:target_in']);
    assert.equal(h.log.at(-1), 'run:z_last');
    assert.ok(h.log.indexOf('run:o') < h.log.indexOf('run:z_last'));
    assert.ok(h.log.indexOf('run:glob2') < h.log.indexOf('run:z_last'));
  });

  it('a requisite naming no state is an error for every state that names one; nothing runs', async () => {
    const { messages, log } = await compileErrors(
      {
        'r.sls':
          'a:\n  rec.state:\n    - require:\n      - rec: nope\nb:\n  rec.state:\n    - watch_in:\n      - pkg: nginx\nc:\n  rec.state:\n    - onchanges:\n      - sls: nosuch\nd:\n  rec.state:\n    - require: notalist\n',
      },
      'r',
    );
    assert.equal(messages.length, 4, messages.join('\n'));
    assert.match(messages[0]!, /Referenced state does not exist for requisite \[require: \(rec: nope\)\] in state \[a\] in SLS \[r\]/);
    // an _in naming no state is Salt's reconcile_extend error (HighState.requisite_in)
    assert.equal(
      messages[1],
      "Cannot extend ID 'nginx' in 'base:r'. It is not part of the high state.\nThis is likely due to a missing include statement or an incorrectly typed ID.\nEnsure that a state with an ID of 'nginx' is available\nin environment 'base' and to SLS 'r'",
    );
    assert.match(messages[2]!, /\[onchanges: \(sls: nosuch\)\] in state \[c\]/);
    assert.match(messages[3]!, /require statement in state 'd' .* needs to be formed as a list/);
    assert.deepEqual(log, []);
  });

  it("a requisite cycle is Salt's 'Recursive requisites were found' naming each edge; unrelated states do not run either", async () => {
    const { messages, log } = await compileErrors(
      {
        'c.sls':
          'a:\n  rec.state:\n    - require:\n      - b\n    - require_in:\n      - c\nb:\n  rec.state:\n    - watch:\n      - c\nc:\n  rec.state: []\nfree:\n  rec.state: []\nself:\n  rec.state: []\nx:\n  rec.state:\n    - prereq:\n      - self\n    - onchanges:\n      - self\nme:\n  rec.state:\n    - name: /srv/me\n    - require:\n      - rec: /srv/me\n',
      },
      'c',
    );
    // DependencyGraph.get_cycles_str: (state declaring the requisite, its type, the state named),
    // each state as {'SLS', 'ID'[, 'NAME']}; the prereq 'x' on 'self' puts x before self while x
    // waits on self's changes; a state requiring itself is a cycle in Salt's graph too
    assert.deepEqual(messages, [
      "Recursive requisites were found: ({'SLS': 'c', 'ID': 'a'}, 'require', {'SLS': 'c', 'ID': 'b'}), ({'SLS': 'c', 'ID': 'b'}, 'watch', {'SLS': 'c', 'ID': 'c'}), ({'SLS': 'c', 'ID': 'c'}, 'require', {'SLS': 'c', 'ID': 'a'})",
      "Recursive requisites were found: ({'SLS': 'c', 'ID': 'self'}, 'prereq', {'SLS': 'c', 'ID': 'x'}), ({'SLS': 'c', 'ID': 'x'}, 'onchanges', {'SLS': 'c', 'ID': 'self'})",
      "Recursive requisites were found: ({'SLS': 'c', 'ID': 'me', 'NAME': '/srv/me'}, 'require', {'SLS': 'c', 'ID': 'me', 'NAME': '/srv/me'})",
    ]);
    assert.deepEqual(log, []);
  });
});

describe('argument check', () => {
  it('wrong types and malformed global arguments: all reported, each naming its state; nothing runs', async () => {
    // unknown functions and unknown arguments are not compile errors (Salt's leniency, issue 22:
    // test/unit/state/leniency.test.ts); these are
    const { messages, log } = await compileErrors(
      {
        'a.sls':
          'good:\n  rec.state: []\ntypo:\n  rec.stat: []\nbadtype:\n  rec.state:\n    - port: eighty\nbadbool:\n  rec.state:\n    - fail: [1]\nunknownarg:\n  rec.state:\n    - colour: red\nbadretry:\n  rec.state:\n    - retry: {attempts: 0}\nbadorder:\n  rec.state:\n    - order: soon\n',
      },
      'a',
    );
    // a malformed retry is not among them: Salt uses its defaults for it (retry-policy.test.ts)
    assert.equal(messages.length, 3, messages.join('\n'));
    assert.match(messages.join('\n'), /ID 'badtype'.*argument 'port' must be an integer/);
    assert.match(messages.join('\n'), /ID 'badbool'.*argument 'fail' must be a boolean/);
    assert.doesNotMatch(messages.join('\n'), /badretry/);
    assert.match(messages.join('\n'), /state 'badorder'.*must be a number, 'first' or 'last'/);
    assert.deepEqual(log, []);
  });

  it('onfail_stop, the Salt requisite brine does not implement, is a compile error saying what to use', async () => {
    const { messages } = await compileErrors({ 'a.sls': 'a:\n  rec.state: []\nb:\n  rec.state:\n    - onfail_stop:\n      - a\n' }, 'a');
    assert.equal(messages.length, 1, messages.join('\n'));
    assert.match(messages[0]!, /ID 'b'.*uses the requisite 'onfail_stop', which brine does not support: use failhard/);
  });

  it('a missing required argument is reported for each state (each name of names) lacking it', async () => {
    const { messages, log } = await compileErrors(
      { 'a.sls': 'ok:\n  rec.needs:\n    - target: t\nx:\n  rec.needs:\n    - names:\n      - n1\n      - n2:\n        - target: fine\n      - n3\n' },
      'a',
    );
    assert.equal(messages.length, 2, messages.join('\n'));
    assert.match(messages[0]!, /State 'rec\.needs' \(ID 'x', name 'n1'\).*missing required argument 'target'/);
    assert.match(messages[1]!, /\(ID 'x', name 'n3'\)/);
    assert.deepEqual(log, []);
  });

  it('a wrong type for a built-in state function argument is reported', async () => {
    const { messages } = await compileErrors({ 'a.sls': 'x:\n  test.configurable_test_state:\n    - comment: [1]\n' }, 'a');
    assert.match(messages[0]!, /argument 'comment' must be a string/);
  });
});

describe('ordering', () => {
  it('order: first, numbers, definition order, last; names keep their order', async () => {
    const chunks = await lowstate(
      {
        'o.sls':
          'l:\n  rec.state:\n    - order: last\nd1:\n  rec.state: []\nn5:\n  rec.state:\n    - order: 5\nf:\n  rec.state:\n    - order: first\nd2:\n  rec.state: []\nn2:\n  rec.state:\n    - order: 2\n',
      },
      'o',
    );
    assert.deepEqual(
      chunks.map((c) => c.__id__),
      ['f', 'n2', 'n5', 'd1', 'd2', 'l'],
    );
  });

  it('state_auto_order off: states without order sort by state, name and function', async () => {
    const tree = { 'o.sls': 'zeta:\n  rec.state: []\nalpha:\n  rec.state: []\n', 'top.sls': "base:\n  '*':\n    - o\n" };
    const r = await harness({ base: tree }, { state_auto_order: false }).call('state.show_lowstate');
    assert.deepEqual(
      (r.return as Chunk[]).map((c) => c.__id__),
      ['alpha', 'zeta'],
    );
    const r2 = await harness({ base: tree }).call('state.show_lowstate');
    assert.deepEqual(
      (r2.return as Chunk[]).map((c) => c.__id__),
      ['zeta', 'alpha'],
    );
  });

  it('requisites override order: a state runs after what it requires even when ordered first', async () => {
    const h = harness({ base: { 'o.sls': 'a:\n  rec.state:\n    - order: first\n    - require:\n      - b\nb:\n  rec.state:\n    - order: last\nc:\n  rec.state: []\n' } });
    await h.call('state.sls', ['o']);
    assert.deepEqual(h.log, ['run:b', 'run:a', 'run:c']);
  });
});

describe('show functions', () => {
  it("show_sls gives Salt's high data shape; show_lowstate lists chunks with __id__, __sls__, __env__, order", async () => {
    const h = harness({ base: { 'a.sls': 'x:\n  rec.state:\n    - port: 1\n', 'top.sls': "base:\n  '*':\n    - a\n" } });
    const high = await h.call('state.show_sls', ['a']);
    assert.deepEqual(high.return, { x: { rec: ['state', { port: 1 }, { order: 10000 }], __sls__: 'a', __env__: 'base' } });
    const hs = await h.call('state.show_highstate');
    assert.deepEqual(hs.return, high.return);
    const low = await h.call('state.show_lowstate');
    assert.deepEqual(low.return, [{ __id__: 'x', __sls__: 'a', __env__: 'base', state: 'rec', fun: 'state', name: 'x', port: 1, order: 10000 }]);
    assert.deepEqual((await h.call('state.show_low_sls', ['a'])).return, low.return);
    assert.deepEqual(h.log, []);
  });
});
