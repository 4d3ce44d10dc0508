// The renderer pipeline and its errors: shebang selection, Salt's YAML loader, and every render
// error naming the file, line and column and showing the line.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadYaml } from '../../../src/render/yaml-load.js';
import { renderSls, renderTemplate } from '../../../src/render/index.js';
import type { RenderEnv } from '../../../src/render/types.js';
import { BrineError } from '../../../src/util/errors.js';

function env(over: Partial<RenderEnv> & { files?: Record<string, string>; ctx?: Record<string, unknown> } = {}): RenderEnv {
  const files = over.files ?? {};
  return {
    source: over.source ?? 'salt://web/init.sls',
    saltenv: 'base',
    context: { grains: { id: 'web01', os_family: 'Debian' }, pillar: { port: 80 }, opts: {}, tpldir: 'web', ...(over.ctx ?? {}) },
    callFunction:
      over.callFunction ??
      ((fun, args) => {
        if (fun === 'test.echo') return args[0];
        throw new BrineError('UNKNOWN_FUNCTION', `'${fun}' is not available`);
      }),
    loadFile: (name) => files[name],
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

describe('shebang pipelines', () => {
  test('no shebang is jinja|yaml', async () => {
    assert.deepEqual(await renderSls('{{ grains.id }}:\n  test.nop: []\n', env()), { web01: { 'test.nop': [] } });
  });

  test('#!yaml does not evaluate Jinja', async () => {
    assert.deepEqual(await renderSls("#!yaml\na: '{{ grains.id }}'\n", env()), { a: '{{ grains.id }}' });
  });

  test('#!jinja|yaml (spaces allowed) renders, and line numbers stay those of the file', async () => {
    assert.deepEqual(await renderSls('#!jinja | yaml\nport: {{ pillar.port }}\n', env()), { port: 80 });
    const err = await fails(renderSls('#!jinja|yaml\nok: 1\n{{ nope }}\n', env()));
    assert.match(err.message, /salt:\/\/web\/init\.sls:3:/);
  });

  test('an unknown renderer is refused naming the file', async () => {
    for (const bang of ['#!mako|yaml', '#!gpg|yaml', '#!jinja|json', '#!yaml|stateconf', '#!stateconf -p']) {
      const err = await fails(renderSls(`${bang}\na: 1\n`, env()));
      assert.equal(err.code, 'RENDERER_UNSUPPORTED');
      assert.match(err.message, /salt:\/\/web\/init\.sls/);
      assert.ok(err.message.includes(bang.slice(2)), err.message);
    }
  });

  test("Salt's Python renderers inside a pipeline, and a tree's own renderer, are refused with RENDERER_UNSUPPORTED naming the file and what to do", async () => {
    for (const [bang, hint] of [
      ['#!objects', /not supported/],
      ['#!jinja|py', /use it alone on the first line, as '#!py'/],
      ['#!pyobjects|yaml', /use it alone/],
      ['#!pydsl|stateconf -ps', /use it alone on the first line, as '#!pydsl'/],
    ] as const) {
      const err = await fails(renderSls(`${bang}\ndef run():\n    return {}\n`, env()));
      assert.equal(err.code, 'RENDERER_UNSUPPORTED', bang);
      assert.ok(err.message.startsWith(`salt://web/init.sls: the renderer pipeline '${bang}'`), err.message);
      assert.match(err.message, hint);
    }
  });

  test('#!jinja alone renders text, which is not SLS data', async () => {
    const err = await fails(renderSls('#!jinja\na: 1\n', env()));
    assert.equal(err.code, 'RENDERER_UNSUPPORTED');
    assert.equal(await renderTemplate('#!jinja\nx', 'jinja', env()), '#!jinja\nx');
  });

  test('a template engine other than jinja is refused', async () => {
    assert.equal((await fails(renderTemplate('x', 'mako', env()))).code, 'RENDERER_UNSUPPORTED');
  });

  test('an empty SLS is an empty mapping', async () => {
    assert.deepEqual(await renderSls('{# nothing #}\n', env()), {});
  });
});

describe("YAML as Salt's loader reads it", () => {
  test('YAML 1.1 scalars as PyYAML resolves them, but 0644 is 644 as Salt strips its zeros; timestamps stay strings', async () => {
    const data = await renderSls('#!yaml\na: yes\nb: off\nc: 0644\nd: 2024-01-01\ne: 1e3\nf: y\ng: ~\nh: 1.5\ni: 0x1f\n', env());
    assert.deepEqual(data, { a: true, b: false, c: 644, d: '2024-01-01', e: '1e3', f: 'y', g: null, h: 1.5, i: 31 });
  });

  test('a | or > scalar that ends the text without a final newline has none, as in PyYAML (yaml.safe_load)', () => {
    // the yaml package clips to one newline; PyYAML's scanner adds a break only if the text has one
    assert.deepEqual(loadYaml('k: |\n  a\n  b'), { k: 'a\nb' });
    assert.deepEqual(loadYaml('k: >\n  a\n  b'), { k: 'a b' });
    assert.deepEqual(loadYaml('k: |\n  a\n  b\n'), { k: 'a\nb\n' });
    assert.deepEqual(loadYaml('a: |\n  x\nb: 1'), { a: 'x\n', b: 1 });
    assert.deepEqual(loadYaml('k: |-\n  a'), { k: 'a' });
  });

  test('a state ID that YAML reads as a bool or number is refused, as Salt does', async () => {
    for (const [id, type] of [
      ['yes', 'bool'],
      ['80', 'int'],
      ['~', 'NoneType'],
    ]) {
      const err = await fails(renderSls(`ok:\n  test.nop: []\n${id}:\n  test.nop: []\n`, env()));
      assert.equal(err.code, 'RENDER_FAILED');
      assert.match(err.message, new RegExp(`init\\.sls:3:1: .*is not formed as a string, but is a ${type}`));
    }
    assert.deepEqual(Object.keys((await renderSls("'yes':\n  test.nop: []\n", env())) as object), ['yes']);
    assert.deepEqual(await renderSls('80: web\n', { ...env(), pillar: true }), { 80: 'web' });
  });

  test('a duplicate key is an error, as in Salt', async () => {
    const err = await fails(renderSls('#!yaml\na: 1\nb: 2\na: 3\n', env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /duplicate key/);
    assert.match(err.message, /init\.sls:4:1/);
  });

  test('a YAML error names file, line and column and shows the line', async () => {
    const err = await fails(renderSls('#!yaml\nok: 1\nbad: [1, 2\nnext: 3\n', env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /^salt:\/\/web\/init\.sls:\d+:\d+: YAML error/);
    assert.deepEqual(Object.keys(err.details).sort(), ['col', 'file', 'line']);
  });

  test('a YAML error after Jinja shows the rendered line, labelled as such', async () => {
    const err = await fails(renderSls("a: 1\n{{ 'b: [' }}\n", env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /YAML error in the text rendered by Jinja/);
    assert.match(err.message, /rendered line \d+ \| /);
    assert.ok(!err.message.includes("{{ 'b: [' }}"), 'the rendered text, not the template, is shown');
  });

  test('integer keys of an SLS mapping keep the file order when a template iterates them (openQA links.sls)', async () => {
    const high = (await renderSls('f:\n  file.managed:\n    - links:\n        2: {url: two}\n        1: {url: one}\n', env())) as Record<string, Record<string, Array<Record<string, unknown>>>>;
    const links = high.f?.['file.managed']?.[0]?.links;
    const out = await renderTemplate('{% for k in links %}{{ k }}={{ links[k].url }};{% endfor %}', 'jinja', env({ ctx: { links } }));
    assert.equal(out, '2=two;1=one;', 'Python keeps insertion order; a JS object lists 1 first');
  });
});

describe('Jinja errors', () => {
  test('a syntax error names file and line and shows the template line', async () => {
    const err = await fails(renderTemplate('line1\n{% if x %}\nno endif\n', 'jinja', env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /^salt:\/\/web\/init\.sls:\d+/);
    const bad = await fails(renderTemplate('a\n{{ grains.id | }}\n', 'jinja', env()));
    assert.match(bad.message, /init\.sls:2:\d+: Jinja syntax error/);
    assert.match(bad.message, /2 \| \{\{ grains\.id \| \}\}/);
  });

  test('a tag left open at the end of the template is located at its opener, not at line 1', async () => {
    const err = await fails(renderSls("bad:\n  test.nop:\n    - name: {{ grains['id'] \n", env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /init\.sls:3:13: Jinja syntax error: '\{\{' is never closed with '\}\}'/);
    assert.match(err.message, /3 \| {5}- name: \{\{ grains\['id'\]/);
  });

  test("a block left open is Jinja2's 'Unexpected end of template' at the line of the block's tag, not line 1", async () => {
    // Whyrl35/saltstack wazuh/config/wazuh-indexer.sls: the file ends inside `{% if %}`
    const err = await fails(renderTemplate('a: 1\n{% for x in [1] %}\n{% if x %}\n{% endif %}\n{% if x == 2 %}\nb: 2\n{% else %}\n', 'jinja', env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(
      err.message,
      /init\.sls:5:1: Jinja syntax error: Unexpected end of template\. Jinja was looking for the following tags: 'endif'\. The innermost block that needs to be closed is 'if'\./,
    );
    assert.match(err.message, /5 \| \{% if x == 2 %\}/);
    // tags inside a raw block are text
    const raw = await fails(renderTemplate('x\n{% for a in [1] %}{% raw %}{% endfor %}{% endraw %}\n', 'jinja', env()));
    assert.match(raw.message, /init\.sls:2:1: Jinja syntax error: Unexpected end of template\. Jinja was looking for the following tags: 'endfor' or 'else'\./);
  });

  test('a runtime error names the line and column of the expression', async () => {
    const err = await fails(renderTemplate("ok\n  {{ 'a' + 1 }}\n", 'jinja', env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /init\.sls:2:\d+: Jinja error: can only concatenate str \(not "int"\) to str/);
    assert.match(err.message, /2 \| {3}\{\{ 'a' \+ 1 \}\}/);
  });

  test('an error inside an included file names that file', async () => {
    const err = await fails(renderTemplate("{% include 'web/part.jinja' %}\n", 'jinja', env({ files: { 'web/part.jinja': 'x\ny {{ nope.deeper }}\n' } })));
    assert.match(err.message, /salt:\/\/web\/part\.jinja:2:\d+: Jinja error: 'nope' is undefined/);
    const unsupported = await fails(renderTemplate("{% include 'web/part.jinja' %}", 'jinja', env({ files: { 'web/part.jinja': "\n{{ 'x'|pprint }}" } })));
    assert.equal(unsupported.code, 'TEMPLATE_UNSUPPORTED');
    assert.match(unsupported.message, /salt:\/\/web\/part\.jinja:2:/);
  });

  test('a missing include is an error naming it', async () => {
    const err = await fails(renderTemplate("{% include 'web/none.jinja' %}", 'jinja', env()));
    assert.match(err.message, /web\/none\.jinja/);
  });

  test('the constructs nunjucks gets wrong are rendered as Jinja2 does or refused at compile time', async () => {
    const e = env();
    assert.equal(await renderTemplate('{% for x in [1, 2, 3] if x > 1 %}{{ x }}{% endfor %}', 'jinja', e), '23');
    assert.equal(await renderTemplate('{{ "%s-%s" % (1, 2) }}', 'jinja', e), '1-2');
    assert.equal(await renderTemplate('{{ "abc"[1:3] }}', 'jinja', e), 'bc');
    assert.equal(await renderTemplate("{{ ('a',) }}", 'jinja', e), "('a',)");
    assert.equal(await renderTemplate('{{ True }} {{ [None] }}', 'jinja', e), 'True [None]');
    for (const bad of ["{{ 'x'|pprint }}", '{% switch x %}{% endswitch %}', '{{ x is frobnicated }}']) {
      const err = await fails(renderTemplate(`line\n${bad}`, 'jinja', e));
      assert.equal(err.code, 'TEMPLATE_UNSUPPORTED', `${bad}: ${err.message}`);
      assert.match(err.message, /init\.sls:2:/);
    }
  });
});

describe('undefined values', () => {
  test('StrictUndefined by default, as Salt renders: printing or testing an undefined value fails naming it', async () => {
    const err = await fails(renderTemplate('{{ pillar.nope }}', 'jinja', env()));
    assert.match(err.message, /'pillar\.nope' is undefined/);
    await fails(renderTemplate('{% if nope %}x{% endif %}', 'jinja', env()));
    assert.equal(await renderTemplate("{{ nope is defined }} {{ nope|default('d') }}", 'jinja', env()), 'False d');
  });

  test("an undefined value used away from its lookup is named by Jinja2's message for that lookup, and a handled one is forgotten", async () => {
    // hakoerber/salt-states: `{% for zone in params.zones %}` named nothing before
    const loop = await fails(renderTemplate("{% set params = {'role': 'x'} %}\n{% for zone in params.zones %}{% endfor %}", 'jinja', env()));
    assert.match(loop.message, /init\.sls:2:\d+: Jinja error: 'dict object' has no attribute 'zones' \('params\.zones' is undefined\)/);
    // the Undefined an `is defined` test handled is not blamed for a later one brine cannot name
    const later = await fails(renderTemplate('{% macro m(a) %}{% for x in a %}{% endfor %}{% endmacro %}{% if pillar.gone is defined %}{% endif %}{{ m() }}', 'jinja', env()));
    assert.match(later.message.split('\n')[0] ?? '', /Jinja error: an undefined value was used/);
    // a later lookup that did not give Undefined does not hide the one being used
    const cmp = await fails(renderTemplate("{% if grains['saltversioninfo'] >= [grains.id] %}{% endif %}", 'jinja', env()));
    assert.match(cmp.message, /'dict object' has no attribute 'saltversioninfo' \('grains\["saltversioninfo"\]' is undefined\)/);
  });

  test("allow_undefined: Jinja2's Undefined prints empty and fails on an attribute of undefined", async () => {
    const e = env({ ctx: { opts: { allow_undefined: true } } });
    assert.equal(await renderTemplate('[{{ nope }}] [{{ pillar.nope }}] {{ nope|length }}', 'jinja', e), '[] [] 0');
    const err = await fails(renderTemplate('{{ nope.attr }}', 'jinja', e));
    assert.match(err.message, /'nope' is undefined/);
  });
});

describe('the salt variable and context data', () => {
  test('salt[...] and salt.mod.fun call the function with arguments and keywords', async () => {
    const calls: unknown[] = [];
    const e = env({
      callFunction: (fun, args, kwargs) => {
        calls.push([fun, args, kwargs]);
        return 'r';
      },
    });
    assert.equal(await renderTemplate("{{ salt['cmd.run']('ls', cwd='/') }} {{ salt.pkg.version('vim') }}", 'jinja', e), 'r r');
    assert.deepEqual(calls, [
      ['cmd.run', ['ls'], { cwd: '/' }],
      ['pkg.version', ['vim'], {}],
    ]);
  });

  test('grains.get, pillar.get, config.get and grains.filter_by come from the context, not from callFunction', async () => {
    const e = env({
      callFunction: () => {
        throw new Error('must not be called');
      },
    });
    const out = await renderTemplate(
      "{{ salt['grains.get']('id') }} {{ salt['pillar.get']('port') }} {{ salt['config.get']('os_family') }} {{ salt['grains.filter_by']({'Debian': 'd'}) }}",
      'jinja',
      e,
    );
    assert.equal(out, 'web01 80 Debian d');
  });

  test('a failing salt function is a render error carrying its cause', async () => {
    const err = await fails(renderTemplate("\n{{ salt['no.such']() }}", 'jinja', env()));
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /init\.sls:2:.*UNKNOWN_FUNCTION/);
    assert.ok(err.cause instanceof BrineError);
  });

  test('context data is never evaluated as a template (threats #37)', async () => {
    const e = env({ ctx: { grains: { evil: "{{ salt['cmd.run']('id') }}", evil2: '{% include "x" %}' } } });
    assert.equal(await renderTemplate('{{ grains.evil }} {{ grains.evil2 }}', 'jinja', e), "{{ salt['cmd.run']('id') }} {% include \"x\" %}");
  });

  test('one compiled template serves renders with different files and data', async () => {
    const text = "{% include './part.jinja' %} {{ grains.id }}";
    const a = await renderTemplate(text, 'jinja', env({ files: { 'web/part.jinja': 'A' } }));
    const b = await renderTemplate(text, 'jinja', env({ files: { 'web/part.jinja': 'B' }, ctx: { grains: { id: 'db01' } } }));
    assert.deepEqual([a, b], ['A web01', 'B db01']);
  });

  test('relative imports resolve against tpldir and may not leave the root', async () => {
    const files = { 'web/map.jinja': "{% set x = 'web' %}", 'common/c.jinja': "{% set y = 'common' %}" };
    assert.equal(await renderTemplate("{% from './map.jinja' import x %}{% from '../common/c.jinja' import y %}{{ x }} {{ y }}", 'jinja', env({ files })), 'web common');
    await fails(renderTemplate("{% include '../../etc/passwd' %}", 'jinja', env({ files })));
  });
});
