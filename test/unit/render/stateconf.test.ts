// Salt's #!stateconf renderer (salt/renderers/stateconf.py, 3007): every expectation below is the
// high data Salt's render() returns for the same text and SLS name, worked out from that file's
// functions (named in each test).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newStateconfMemory, renderSls } from '../../../src/render/index.js';
import type { RenderEnv } from '../../../src/render/types.js';
import { BrineError } from '../../../src/util/errors.js';

function env(sls: string, over: Partial<RenderEnv> = {}): RenderEnv {
  return {
    source: `salt://${sls.replace(/\./g, '/')}.sls`,
    saltenv: 'base',
    context: { grains: { id: 'web01' }, pillar: {}, opts: {}, sls },
    callFunction: () => {
      throw new BrineError('UNKNOWN_FUNCTION', 'no functions here');
    },
    loadFile: () => undefined,
    ...over,
  };
}

async function fails(p: Promise<unknown>): Promise<BrineError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof BrineError, String(err));
    return err;
  }
  assert.fail('expected an error');
}

describe('#!stateconf: IDs, names and the goal state', () => {
  test('a dot ID becomes <sls>::id with a name, and .goal requires every state (rename_state_ids, add_goal_state)', async () => {
    const data = await renderSls('#!stateconf yaml . jinja\n.vim:\n  pkg.installed\n', env('some.file'));
    assert.deepEqual(data, {
      'some.file::vim': { 'pkg.installed': [{ name: 'vim' }] },
      'some.file::goal': { 'stateconf.set': [{ require: [{ pkg: 'some.file::vim' }] }] },
    });
  });

  test('renamed IDs move after the others, a given name is kept, dot requisites are rewritten, plain IDs stay', async () => {
    const text = [
      '#!stateconf',
      '.conf:',
      '  file.managed:',
      '    - name: /etc/app.conf',
      'app:',
      '  service.running:',
      '    - watch:',
      '      - file: .conf',
      '      - pkg: other.sls::pkgs',
      '      - file: ..base::f',
    ].join('\n');
    const data = (await renderSls(text, env('a.b.c'))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), ['app', 'a.b.c::conf', 'a.b.c::goal']);
    assert.deepEqual(data['a.b.c::conf'], { 'file.managed': [{ name: '/etc/app.conf' }] });
    // _local_to_abs_sid: '.conf' -> 'a.b.c::conf'; '..base::f' (with ::) is relative to the package: 'a.base::f'
    assert.deepEqual(data.app, { 'service.running': [{ watch: [{ file: 'a.b.c::conf' }, { pkg: 'other.sls::pkgs' }, { file: 'a.base::f' }] }] });
    assert.deepEqual(data['a.b.c::goal'], { 'stateconf.set': [{ require: [{ file: 'a.b.c::conf' }, { service: 'app' }] }] });
  });

  test('a file that renders empty still has its goal state, requiring nothing', async () => {
    assert.deepEqual(await renderSls('#!stateconf\n{% if false %}\nx:\n  pkg.installed: []\n{% endif %}\n', env('empty')), {
      'empty::goal': { 'stateconf.set': [{ require: [] }] },
    });
  });

  test('-G makes no goal state; a stateconf.set state gets no name', async () => {
    const data = await renderSls('#!stateconf -G yaml . jinja\n.params:\n  stateconf.set:\n    - port: 80\n', env('web'));
    assert.deepEqual(data, { 'web::params': { 'stateconf.set': [{ port: 80 }] } });
  });

  test('an ID that would collide with a renamed one is refused', async () => {
    const err = await fails(renderSls('#!stateconf\n.x:\n  pkg.installed: []\nweb::x:\n  pkg.installed: []\n', env('web')));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /Can't rename state id\(\.x\) into web::x because the later already exists!/);
  });
});

describe('#!stateconf: stateconf.set arguments as template variables', () => {
  test("the state config above the end marker is a template variable of the whole file (Salt's sls_params example)", async () => {
    const text = [
      '#!stateconf',
      'sls_params:',
      '  stateconf.set:',
      '    - name1: value1',
      '    - name3: [a, b, c]',
      '    - require_in:',
      '      - cmd: output',
      '# --- end of state config ---',
      'output:',
      '  cmd.run:',
      '    - name: echo {{ sls_params.name1 }} {{ sls_params.name3[1] }} {{ sls_dir }}',
    ].join('\n');
    const data = (await renderSls(text, env('some.where'))) as Record<string, Record<string, unknown[]>>;
    assert.deepEqual(data.output, { 'cmd.run': [{ name: 'echo value1 b some' }] });
    assert.deepEqual(data.sls_params, { 'stateconf.set': [{ name1: 'value1' }, { name3: ['a', 'b', 'c'] }, { require_in: [{ cmd: 'output' }] }] });
  });

  test('a dot-ID stateconf.set is reachable without its <sls>:: prefix', async () => {
    const text = '#!stateconf\n.params:\n  stateconf.set:\n    - port: 8080\n# --- end of state config ---\nlisten:\n  cmd.run:\n    - name: echo {{ params.port }}\n';
    const data = (await renderSls(text, env('web.conf'))) as Record<string, unknown>;
    assert.deepEqual(data.listen, { 'cmd.run': [{ name: 'echo 8080' }] });
    assert.ok('web.conf::params' in data);
  });

  test("an including file's extend of the included file's stateconf.set reaches that file's template (extract_state_confs)", async () => {
    const mem = newStateconfMemory();
    const includer = '#!stateconf\ninclude:\n  - .file\nextend:\n  .file::sls_params:\n    stateconf.set:\n      - name1: something\n';
    const top = (await renderSls(includer, env('some.other_file', { stateconf: mem }))) as Record<string, unknown>;
    assert.deepEqual(top.include, [{ base: 'some.file' }]);
    assert.deepEqual(top.extend, { 'some.file::sls_params': { 'stateconf.set': [{ name1: 'something' }] } });
    const included =
      '#!stateconf\n.sls_params:\n  stateconf.set:\n    - name1: default\n    - name2: kept\n# --- end of state config ---\nout:\n  cmd.run:\n    - name: echo {{ sls_params.name1 }} {{ sls_params.name2 }}\n';
    const data = (await renderSls(included, env('some.file', { stateconf: mem }))) as Record<string, unknown>;
    assert.deepEqual(data.out, { 'cmd.run': [{ name: 'echo something kept' }] });
    // without the run's shared memory the file sees its own defaults
    const alone = (await renderSls(included, env('some.file'))) as Record<string, unknown>;
    assert.deepEqual(alone.out, { 'cmd.run': [{ name: 'echo default kept' }] });
  });
});

describe('#!stateconf: include, exclude and the -o / -s options', () => {
  test('relative include and exclude become absolute {saltenv: sls} (rewrite_sls_includes_excludes)', async () => {
    const data = await renderSls('#!stateconf -G\ninclude:\n  - .apache\n  - .db.mysql\n  - dev: ..common\n  - other.abs\nexclude:\n  - sls: .users\n  - id: keep\n', env('a.where'));
    assert.deepEqual(data, { include: [{ base: 'a.apache' }, { base: 'a.db.mysql' }, { dev: 'common' }, 'other.abs'], exclude: [{ sls: 'a.users' }, { id: 'keep' }] });
    const err = await fails(renderSls('#!stateconf\ninclude:\n  - ...far\n', env('a.b')));
    assert.match(err.message, /Attempted relative include goes beyond top level package/);
  });

  test('-o: each state requires the one before it, in file order (add_implicit_requires)', async () => {
    const text = '#!stateconf -o -G\nfirst:\n  pkg.installed: []\n.second:\n  file.managed:\n    - require:\n      - pkg: first\nthird:\n  cmd.run:\n    - name: true\n';
    const data = await renderSls(text, env('app'));
    assert.deepEqual(data, {
      first: { 'pkg.installed': [] },
      third: { 'cmd.run': [{ name: true }, { require: [{ file: 'app::second' }] }] },
      'app::second': { 'file.managed': [{ name: 'second' }, { require: [{ pkg: 'first' }, { pkg: 'first' }] }] },
    });
  });

  test('-o refuses a require of a later state, a require_in of an earlier one and names', async () => {
    const later = await fails(renderSls('#!stateconf -o\na:\n  cmd.run:\n    - require:\n      - cmd: b\nb:\n  cmd.run: []\n', env('x')));
    assert.match(later.message, /State\(a:cmd\) can't require\/watch\/listen a state\(b:cmd\) defined after it!/);
    const earlier = await fails(renderSls('#!stateconf -o\na:\n  cmd.run: []\nb:\n  cmd.run:\n    - require_in:\n      - cmd: a\n', env('x')));
    assert.match(earlier.message, /State\(b:cmd\) can't require_in\/watch_in\/listen_in a state\(a:cmd\) defined before it!/);
    const names = await fails(renderSls('#!stateconf -o\npkgs:\n  pkg.installed:\n    - names: [a, b]\n', env('x')));
    assert.match(names.message, /'names' declaration\(found in state id: pkgs\) is not supported with implicitly ordered states!/);
  });

  test('-s: a .start state require_in the first state (add_start_state), renamed like the others', async () => {
    const data = await renderSls('#!stateconf -sG\nfirst:\n  pkg.installed: []\n', env('app.web'));
    assert.deepEqual(data, { first: { 'pkg.installed': [] }, 'app.web::start': { 'stateconf.set': [{ require_in: [{ pkg: 'first' }] }] } });
  });
});

describe('#!stateconf and the stateconf_* config options', () => {
  test('stateconf_end_marker, stateconf_goal_state and stateconf_start_state from the config (opts) replace the defaults', async () => {
    const opts = { stateconf_end_marker: '## config ends', stateconf_goal_state: '.done', stateconf_start_state: 'begin' };
    const text = '#!stateconf -s\nconf:\n  stateconf.set:\n    - v: 7\n## config ends\nrun:\n  cmd.run:\n    - name: echo {{ conf.v }}\n';
    const base = env('app');
    const data = (await renderSls(text, { ...base, context: { ...base.context, opts } })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), ['conf', 'run', 'begin', 'app::done']);
    assert.deepEqual(data.run, { 'cmd.run': [{ name: 'echo 7' }] });
    assert.deepEqual(data.begin, { 'stateconf.set': [{ require_in: [{ stateconf: 'conf' }] }] });
    // the default marker is no marker now: without the first pass `conf` is undefined
    const plain = text.replace('## config ends', '# --- end of state config ---');
    const err = await fails(renderSls(plain, { ...base, context: { ...base.context, opts } }));
    assert.equal(err.code, 'RENDER_FAILED');
  });
});

describe('#!stateconf in a pipeline and its options', () => {
  test('#!jinja|stateconf renders Jinja twice: first as text, then as stateconf', async () => {
    const data = await renderSls('#!jinja | stateconf -G\nx:\n  cmd.run:\n    - name: "{% raw %}{{ sls_dir }}{% endraw %}"\n', env('a.b.c'));
    assert.deepEqual(data, { x: { 'cmd.run': [{ name: 'a/b' }] } });
  });

  test('#!jinja|yaml|stateconf -p rewrites high data without a template pass', async () => {
    const data = await renderSls('#!jinja|yaml|stateconf -p -G\n.x:\n  cmd.run:\n    - cwd: \'{{ "/" }}{% raw %}{{ sls_dir }}{% endraw %}\'\n', env('a'));
    assert.deepEqual(data, { 'a::x': { 'cmd.run': [{ name: 'x' }, { cwd: '/{{ sls_dir }}' }] } });
  });

  test('an unknown option, a missing template renderer or another renderer is refused naming the file', async () => {
    const opt = await fails(renderSls('#!stateconf -x\na: {}\n', env('a')));
    assert.equal(opt.code, 'RENDER_FAILED');
    assert.match(opt.message, /^salt:\/\/a\.sls: stateconf: option -x not recognized/);
    const usage = await fails(renderSls('#!stateconf yaml\na: {}\n', env('a')));
    assert.match(usage.message, /Invalid use of stateconf renderer!/);
    const mako = await fails(renderSls('#!stateconf yaml . mako\na: {}\n', env('a')));
    assert.equal(mako.code, 'RENDERER_UNSUPPORTED');
    assert.match(mako.message, /'mako'/);
  });
});
