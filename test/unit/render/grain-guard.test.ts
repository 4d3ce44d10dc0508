// The grain guard (threats.md #45): a master-side template that reads a grain string holding a
// control character fails with GRAIN_UNSAFE naming the minion and the grain path, whichever way
// it reads it; grains it does not read, tabs and ordinary text render as before.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { guardGrains } from '../../../src/render/grain-guard.js';
import { renderSls } from '../../../src/render/index.js';
import type { RenderEnv } from '../../../src/render/types.js';
import { BrineError } from '../../../src/util/errors.js';

const GRAINS = {
  id: 'web2',
  role: 'web\n    - dbsecret',
  os: 'Debian',
  motd: 'two\nlines',
  tabbed: 'a\tb',
  net: { ifaces: [{ name: 'eth0' }, { name: 'eth1\r' }] },
  roles: ['web', 'db\u0085'],
  sep: 'x\u2028y',
  nul: 'a\u0000b',
};

function env(refused: string[] = [], grains: Record<string, unknown> = GRAINS): RenderEnv {
  return {
    source: 'pillar_roots base:top.sls',
    saltenv: 'base',
    untrustedGrains: { minion: 'web2', onRefused: (g) => refused.push(g) },
    context: { grains, pillar: {}, opts: { id: 'web2' } },
    callFunction: (fun) => {
      throw new BrineError('RENDER_FAILED', `${fun} is not available`);
    },
    loadFile: (name) => (name === 'map.jinja' ? "{% set r = grains['role'] %}" : undefined),
  };
}

async function refusal(text: string, grains?: Record<string, unknown>): Promise<{ err: BrineError; refused: string[] }> {
  const refused: string[] = [];
  try {
    await renderSls(text, env(refused, grains));
  } catch (err) {
    assert.ok(err instanceof BrineError, String(err));
    return { err, refused };
  }
  assert.fail(`expected GRAIN_UNSAFE from ${JSON.stringify(text)}`);
}

describe('guardGrains: grains read by a master-side template', () => {
  test("the issue's top file: `- roles.{{ grains.get('role') }}` with a newline in role is GRAIN_UNSAFE, not a second SLS", async () => {
    const { err, refused } = await refusal("base:\n  '*':\n    - roles.{{ grains.get('role') }}\n");
    assert.equal(err.code, 'GRAIN_UNSAFE');
    assert.match(err.message, /^pillar_roots base:top\.sls:3(:\d+)?: GRAIN_UNSAFE: minion web2: grain role contains a newline; grains rendered on the master may not contain control characters/);
    assert.match(err.message, /Fix the grain on minion web2/);
    assert.equal(err.details.minion, 'web2');
    assert.equal(err.details.grain, 'role');
    assert.deepEqual(refused, ['role']);
  });

  const READS: [string, string, string][] = [
    ['grains.role', '{{ grains.role }}', 'role'],
    ["grains['role']", "x: {{ grains['role'] }}", 'role'],
    ["salt['grains.get']", "x: {{ salt['grains.get']('role') }}", 'role'],
    ['salt.grains.get', "x: {{ salt.grains.get('role') }}", 'role'],
    ['config.get falling to grains', "x: {{ salt['config.get']('motd') }}", 'motd'],
    ['a nested path with salt grains.get', "x: {{ salt['grains.get']('net:ifaces:1:name') }}", 'net:ifaces:1:name'],
    ['a list item (NEL, a YAML 1.1 line break)', 'x: {{ grains.roles[1] }}', 'roles:1'],
    ['a loop over items()', '{% for k, v in grains.items() %}{{ k }}: 1\n{% endfor %}', 'role'],
    ['tojson of the whole mapping', 'x: {{ grains | tojson }}', 'role'],
    ['an import with context', "{% from 'map.jinja' import r with context %}x: {{ r }}", 'role'],
    ['U+2028', 'x: {{ grains.sep }}', 'sep'],
    ['NUL', 'x: {{ grains.nul }}', 'nul'],
    ['a carriage return at depth', "{% for i in grains['net']['ifaces'] %}- {{ i.name }}\n{% endfor %}", 'net:ifaces:1:name'],
  ];
  for (const [how, text, grain] of READS) {
    test(`read through ${how}: GRAIN_UNSAFE naming ${grain}`, async () => {
      const { err } = await refusal(text);
      assert.equal(err.code, 'GRAIN_UNSAFE', err.message);
      assert.equal(err.details.grain, grain);
    });
  }

  test('a key with a newline is refused when the mapping is listed', async () => {
    const { err } = await refusal('{% for k in grains %}{{ k }}: 1\n{% endfor %}', { id: 'web2', 'evil\n- x': 1 });
    assert.equal(err.code, 'GRAIN_UNSAFE');
    assert.match(err.message, /grain evil\\n- x has a key with a newline/);
  });

  test('grains the template does not read, tabs, comparisons of clean grains and matching render as before', async () => {
    const data = await renderSls(
      "os: {{ grains.os }}\ntab: \"{{ grains.tabbed }}\"\n{% if grains.get('os') == 'Debian' %}debian: true{% endif %}\nn: {{ grains.net.ifaces | length }}\nfirst: {{ grains.net.ifaces[0].name }}\nhas: {{ 'role' in grains }}\n",
      env(),
    );
    assert.deepEqual(data, { os: 'Debian', tab: 'a\tb', debian: true, n: 2, first: 'eth0', has: true });
  });

  test('the view is read-only: a template cannot change the cached grains', async () => {
    const grains = { id: 'web2', os: 'Debian', nested: { a: 1 } };
    const view = guardGrains(grains, { minion: 'web2' });
    // modules are strict: a refused write throws
    assert.throws(() => {
      view.os = 'x';
    }, TypeError);
    const nested = view.nested as Record<string, unknown>;
    assert.throws(() => {
      nested.a = 2;
    }, TypeError);
    assert.throws(() => delete view.os, TypeError);
    assert.deepEqual(grains, { id: 'web2', os: 'Debian', nested: { a: 1 } });
    assert.equal(view.nested, view.nested, 'one view per object');
  });

  test('a template that updates grains gets a render error saying they are read-only, and the grains do not change', async () => {
    const grains = { id: 'web2', os: 'Debian' };
    await assert.rejects(
      renderSls("{% do grains.update({'os': 'x'}) %}os: {{ grains.os }}\n", env([], grains)),
      (e: BrineError) => e.code === 'RENDER_FAILED' && /grains are read-only in templates the master renders \(minion web2\)/.test(e.message),
    );
    assert.deepEqual(grains, { id: 'web2', os: 'Debian' });
  });
});
