// The execution functions templates answer themselves (src/render/salt-functions): slsutil.*,
// defaults.*, log.*, the file path helpers and grains.equals/has_value, rendered through the
// real Jinja engine as formulas call them. Where Python decides the answer (posixpath, PyYAML,
// json.dumps) the expected text comes from Debian's python3 + python3-yaml on this machine.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { renderTemplate } from '../../../src/render/index.js';
import type { RenderEnv } from '../../../src/render/types.js';
import { BrineError } from '../../../src/util/errors.js';

type Logged = Array<[string, string]>;

function env(logged?: Logged, files: Record<string, string> = {}): RenderEnv {
  return {
    source: 'salt://formula/init.sls',
    saltenv: 'base',
    context: { grains: { id: 'web01', os_family: 'Debian', osrelease: '12', nested: { a: [1, { b: 'x' }] }, flag: false }, pillar: {}, opts: {}, tpldir: 'formula' },
    callFunction: (fun) => {
      throw new BrineError('UNKNOWN_FUNCTION', `'${fun}' is not available`);
    },
    loadFile: (name) => files[name],
    ...(logged ? { log: (level: string, message: string) => void logged.push([level, message]) } : {}),
  };
}

const render = (text: string, e: RenderEnv = env()): Promise<string> => renderTemplate(text, 'jinja', e);

function python(script: string, input: unknown): unknown {
  return JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(input), encoding: 'utf8' }));
}

describe('defaults.* (salt/modules/defaults.py)', () => {
  test('defaults.merge merges in place, as salt-formula map.jinja relies on with {% do %}', async () => {
    // salt-formula's map.jinja: {% do salt['defaults.merge'](defaults['salt'], osfamily_map) %}
    const out = await render(
      "{% set defaults = {'salt': {'pkgs': {'master': 'salt-master'}, 'opts': [1]}} %}" +
        "{% do salt['defaults.merge'](defaults['salt'], {'pkgs': {'minion': 'salt-minion'}, 'opts': [2]}) %}" +
        '{{ defaults | json }}',
    );
    assert.deepEqual(JSON.parse(out), { salt: { pkgs: { master: 'salt-master', minion: 'salt-minion' }, opts: [2] } });
  });

  test('merge_lists=True appends the new items; in_place=False leaves dest alone', async () => {
    const out = await render("{% set d = {'l': [1, 2]} %}{% set m = salt.defaults.merge(d, {'l': [2, 3]}, merge_lists=True, in_place=False) %}{{ [d, m] | json }}");
    assert.deepEqual(JSON.parse(out), [{ l: [1, 2] }, { l: [1, 2, 3] }]);
  });

  test('convert_none: a None src merges nothing; None dest in place is a TypeError', async () => {
    assert.equal(await render("{{ salt['defaults.merge']({'a': 1}, None) | json }}"), '{"a": 1}');
    await assert.rejects(render("{{ salt['defaults.merge'](None, {'a': 1}) }}"), /Can't perform in-place merge into NoneType/);
  });

  test('defaults.update merges the defaults into every node (its docstring example)', async () => {
    const out = await render(
      "{% set g = {'defaults': {'enabled': True, 'extra': ['test', 'stage']}, 'nodes': {'host01': {'index': 'foo', 'upstream': 'bar'}, 'host02': {'index': 'foo2', 'upstream': 'bar2'}}} %}" +
        "{% do salt['defaults.update'](g.nodes, g.defaults) %}{{ g.nodes | json }}",
    );
    assert.deepEqual(JSON.parse(out), {
      host01: { enabled: true, extra: ['test', 'stage'], index: 'foo', upstream: 'bar' },
      host02: { enabled: true, extra: ['test', 'stage'], index: 'foo2', upstream: 'bar2' },
    });
  });

  test('defaults.deepcopy gives an independent copy', async () => {
    assert.equal(await render("{% set a = {'x': {'y': 1}} %}{% set b = salt.defaults.deepcopy(a) %}{% do b.x.update({'y': 2}) %}{{ a.x.y }} {{ b.x.y }}"), '1 2');
  });
});

describe('slsutil.* (salt/modules/slsutil.py, salt/utils/dictupdate.py)', () => {
  test('merge: smart is recurse for the yaml renderer and returns a new object', async () => {
    const out = await render("{% set a = {'x': {'y': 1, 'l': [1]}} %}{% set m = salt['slsutil.merge'](a, {'x': {'z': 2, 'l': [2]}}) %}{{ [a, m] | json }}");
    assert.deepEqual(JSON.parse(out), [{ x: { y: 1, l: [1] } }, { x: { y: 1, z: 2, l: [2] } }]);
  });

  test('merge strategies: list pairs the values, overwrite replaces whole top-level keys, merge_lists extends', async () => {
    assert.deepEqual(JSON.parse(await render("{{ salt.slsutil.merge({'a': 1, 'b': 2}, {'a': 3}, strategy='list') | json }}")), { a: [1, 3], b: 2 });
    assert.deepEqual(JSON.parse(await render("{{ salt.slsutil.merge({'a': {'x': 1, 'y': 2}}, {'a': {'x': 3}}, strategy='overwrite') | json }}")), { a: { x: 3 } });
    assert.deepEqual(JSON.parse(await render("{{ salt.slsutil.merge({'a': [1]}, {'a': [1, 2]}, merge_lists=True) | json }}")), { a: [1, 2] });
  });

  test('merge_all merges a list in order; update changes dest in place', async () => {
    assert.equal(await render("{{ salt['slsutil.merge_all']([{'foo': 'Foo'}, {'foo': 'Bar'}]) | json }}"), '{"foo": "Bar"}');
    assert.equal(await render("{% set d = {'a': {'b': 1}} %}{% do salt.slsutil.update(d, {'a': {'c': 2}}) %}{{ d | json }}"), '{"a": {"b": 1, "c": 2}}');
  });

  test('boolstr', async () => {
    assert.equal(await render("{{ salt['slsutil.boolstr'](grains.flag, 'yes', 'no') }} {{ salt.slsutil.boolstr(1) }}"), 'no true');
  });

  test("banner: the default banner is the one in Salt's docstring", async () => {
    const expected = [
      '########################################################################',
      '#                                                                      #',
      '#              THIS FILE IS MANAGED BY SALT - DO NOT EDIT              #',
      '#                                                                      #',
      '# The contents of this file are managed by Salt. Any changes to this   #',
      '# file may be overwritten automatically and without warning.           #',
      '########################################################################',
    ].join('\n');
    assert.equal(await render("{{ salt['slsutil.banner']() }}"), expected);
    // Example 2 of the docstring: a Javadoc-style banner
    const javadoc = [
      '/**',
      ' ***********************************************************************',
      ' *                                                                     *',
      ' *              THIS FILE IS MANAGED BY SALT - DO NOT EDIT             *',
      ' *                                                                     *',
      ' * The contents of this file are managed by Salt. Any changes to this  *',
      ' * file may be overwritten automatically and without warning.          *',
      ' ***********************************************************************',
      ' */',
    ].join('\n');
    assert.equal(await render("{{ salt['slsutil.banner'](commentchar=' *', borderchar='*', blockstart='/**', blockend=' */') }}"), javadoc);
  });

  const DATA = { pkgs: ['nginx', 'curl'], service: { name: 'nginx', enable: true, ports: [80, 443], opts: { workers: 4 } }, empty: {}, ver: '1.0', tags: [{ a: 1 }, ['x', 'y'], 'plain'] };

  test('serialize yaml: default_flow_style None and False as PyYAML SafeDumper writes them', async () => {
    const pyDump =
      "import json,sys,yaml\nd=json.load(sys.stdin)\nout=[]\nfor s in (None, False):\n  r=yaml.dump(d['v'], Dumper=yaml.SafeDumper, default_flow_style=s, allow_unicode=True)\n  out.append(r[:-5] if r.endswith('\\n...\\n') else r[:-1] if r.endswith('\\n') else r)\nprint(json.dumps(out))";
    const [mixed, block] = python(pyDump, { v: DATA }) as [string, string];
    const e = env();
    e.context.data = DATA;
    assert.equal(await render("{{ salt['slsutil.serialize']('yaml', data, allow_unicode=True) }}", e), mixed);
    assert.equal(await render("{{ salt['slsutil.serialize']('yaml', data, default_flow_style=False, allow_unicode=True) }}", e), block);
  });

  test('serialize json: json.dumps with its options; deserialize reads json and yaml', async () => {
    const expected = python('import json,sys\nd=json.load(sys.stdin)\nprint(json.dumps([json.dumps(d, ensure_ascii=False), json.dumps(d, indent=4, sort_keys=True, ensure_ascii=False)]))', DATA) as [
      string,
      string,
    ];
    const e = env();
    e.context.data = DATA;
    assert.equal(await render("{{ salt.slsutil.serialize('json', data) }}", e), expected[0]);
    assert.equal(await render("{{ salt.slsutil.serialize('json', data, indent=4, sort_keys=True) }}", e), expected[1]);
    assert.equal(await render('{{ salt.slsutil.deserialize(\'json\', \'{"foo": "Foo!"}\').foo }}'), 'Foo!');
    assert.equal(await render("{{ salt.slsutil.deserialize('yaml', 'a: yes\\nb: [1, 2]') | json }}"), '{"a": true, "b": [1, 2]}');
  });

  test("an unknown serializer is Salt's CommandExecutionError", async () => {
    await assert.rejects(render("{{ salt.slsutil.serialize('nosuch', {}) }}"), /Serializer 'nosuch' not found\./);
  });
});

describe('file path helpers (salt/modules/file.py: os.path)', () => {
  const PATHS = ['/a/b/c', '/a/b/', 'a', '', '/', '//a/b', '///a//b/../c/.', 'a/../../b', './x', '/..', 'a//b'];

  test('dirname, basename and normpath answer as Python posixpath', async () => {
    const expected = python('import json,sys,posixpath\nps=json.load(sys.stdin)\nprint(json.dumps([[posixpath.dirname(p), posixpath.basename(p), posixpath.normpath(p)] for p in ps]))', PATHS);
    const e = env();
    e.context.paths = PATHS;
    const got = await render("{% set out = [] %}{% for p in paths %}{% do out.append([salt['file.dirname'](p), salt.file.basename(p), salt['file.normpath'](p)]) %}{% endfor %}{{ out | json }}", e);
    assert.deepEqual(JSON.parse(got), expected);
  });

  test('join restarts at an absolute component, as os.path.join', async () => {
    const cases = [
      ['/usr/bin', 'psql'],
      ['/a/', 'b', 'c'],
      ['a', '/b', 'c'],
      ['', 'x'],
      ['a', ''],
    ];
    const expected = python('import json,sys,posixpath\nprint(json.dumps([posixpath.join(*c) for c in json.load(sys.stdin)]))', cases);
    const e = env();
    e.context.cases = cases;
    assert.deepEqual(
      JSON.parse(
        await render(
          "{% set out = [] %}{% for c in cases %}{% do out.append(salt['file.join'](c[0], c[1]) if c | length == 2 else salt['file.join'](c[0], c[1], c[2])) %}{% endfor %}{{ out | json }}",
          e,
        ),
      ),
      expected,
    );
  });

  test('a string marked safe is still a str', async () => {
    assert.equal(await render("{{ salt['file.basename']('/etc/motd' | safe) }}"), 'motd');
  });

  test('the map.jinja import idiom: salt.file.dirname(tpldir)', async () => {
    const e = env(undefined, { 'map.jinja': "{% set mysql = {'server': 'mysql-server'} %}" });
    assert.equal(await render('{%- from salt.file.dirname(tpldir) ~ "/map.jinja" import mysql with context %}{{ mysql.server }}', e), 'mysql-server');
  });
});

describe('log.* (salt/modules/logmod.py) and grains predicates', () => {
  test('each level reaches the log with the message, and returns True', async () => {
    const logged: Logged = [];
    const out = await render("{% for l in ['debug', 'info', 'warning', 'error', 'critical', 'exception'] %}{{ salt['log.' ~ l]('m-' ~ l) }} {% endfor %}{% do salt.log.debug(42) %}", env(logged));
    assert.equal(out.trim(), 'True True True True True True');
    assert.deepEqual(logged, [
      ['debug', 'm-debug'],
      ['info', 'm-info'],
      ['warning', 'm-warning'],
      ['error', 'm-error'],
      ['critical', 'm-critical'],
      ['error', 'm-exception'],
      ['debug', '42'],
    ]);
  });

  test('grains.equals compares str() of both sides; grains.has_value tells a missing grain from a false one', async () => {
    assert.equal(await render("{{ salt['grains.equals']('osrelease', 12) }} {{ salt.grains.equals('os_family', 'RedHat') }} {{ salt.grains.equals('nested:a:1:b', 'x') }}"), 'True False True');
    assert.equal(await render("{{ salt['grains.has_value']('flag') }} {{ salt.grains.has_value('nope') }}"), 'True False');
  });

  test("Python's binding: an unknown keyword or a missing argument is a TypeError", async () => {
    await assert.rejects(render("{{ salt['file.dirname'](path='/a', bogus=1) }}"), /unexpected keyword argument 'bogus'/);
    await assert.rejects(render("{{ salt['defaults.merge']({}) }}"), /missing 1 required positional argument: 'src'/);
  });
});

describe('status.time (salt/modules/status.py time_)', () => {
  test("strftime answers as Python's time.strftime for the same instant and zone", async () => {
    const { strftime } = await import('../../../src/render/salt-functions/time-functions.js');
    const formats = ['%A, %d. %B %Y %I:%M%p', '%y-%m-%d_%H:%M:%S', '%a %b %e %j %w %u %%', '%c|%x|%X|%F %T|%D %R', '%I%p %z'];
    const instants = [0, 1_700_000_000, 1_719_792_000, 1_735_689_599];
    const expected = python('import json,sys,time\nd=json.load(sys.stdin)\nprint(json.dumps([[time.strftime(f, time.localtime(t)) for f in d["f"]] for t in d["t"]]))', { f: formats, t: instants });
    assert.deepEqual(
      instants.map((t) => formats.map((f) => strftime(f, new Date(t * 1000)))),
      expected,
    );
  });

  test("postgres-formula's pillar idiom: is callable, then a timestamped name", async () => {
    const out = await render("{%- if salt['status.time']|default(none) is callable %}{{ salt['status.time']('%y-%m-%d_%H:%M:%S') }}{% endif %}");
    assert.match(out, /^\d\d-\d\d-\d\d_\d\d:\d\d:\d\d$/);
  });
});
