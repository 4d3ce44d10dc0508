// ext_pillar: the option checked at start (planExtPillar), cmd_json / cmd_yaml with real
// commands, Salt's order and merge (SLS then ext_pillar, or ext_pillar_first), each source seeing
// the pillar so far, and a source that fails: its error (EXT_PILLAR_FAILED, never the output) is
// one of the pillar's errors while the others still merge.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SERVED_EXT_PILLARS } from '../../../src/config/salt-unimplemented.js';
import { runExtPillars } from '../../../src/pillar/ext/index.js';
import { compilePillar, EXT_PILLAR_KINDS, memoryPillarSource, planExtPillar } from '../../../src/pillar/index.js';
import { BrineError } from '../../../src/util/errors.js';

const setup = { pillarenv: null, pillarenvRoots: undefined, cmdTimeoutMs: 10_000 };
const web = { id: 'web1', grains: { id: 'web1' } };
const tree = memoryPillarSource({
  base: {
    'top.sls': "base:\n  '*':\n    - common\n",
    'common.sls': "app:\n  x: sls\n  y: sls\nseen_y: {{ salt['pillar.get']('app:y', 'none') }}\nlist: [sls]\n",
  },
});

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof BrineError, String(e));
    return `${e.code}: ${e.message}`;
  }
  return 'no error';
};

describe('ext_pillar option checked at start', () => {
  test('brine registers exactly the kinds config warns it serves', () => {
    assert.deepEqual([...EXT_PILLAR_KINDS].sort(), [...SERVED_EXT_PILLARS].sort());
  });
  test('malformed entries are CONFIG_VALUE naming the entry; unknown kinds are listed, not run', () => {
    assert.match(
      codeOf(() => planExtPillar({ cmd_json: 'x' }, setup)),
      /^CONFIG_VALUE: ext_pillar must be a list/,
    );
    assert.match(
      codeOf(() => planExtPillar([{ cmd_json: 'a', cmd_yaml: 'b' }], setup)),
      /^CONFIG_VALUE: ext_pillar entry #1 must be a mapping with one key/,
    );
    assert.match(
      codeOf(() => planExtPillar(['cmd_json'], setup)),
      /^CONFIG_VALUE: ext_pillar entry #1/,
    );
    assert.match(
      codeOf(() => planExtPillar([{ mongo: {} }, { cmd_json: 42 }], setup)),
      /^CONFIG_VALUE: ext_pillar #2 \(cmd_json\): cmd_json takes the command as a string/,
    );
    assert.match(
      codeOf(() => planExtPillar([{ cmd_json: "/bin/echo 'open" }], setup)),
      /^BAD_ARGUMENTS: /,
    );
    assert.match(
      codeOf(() => planExtPillar([{ file_tree: { root_dir: 'rel' } }], setup)),
      /^CONFIG_VALUE: ext_pillar #1 \(file_tree\): file_tree root_dir 'rel' is relative, which needs pillarenv/,
    );
    assert.match(
      codeOf(() => planExtPillar([{ file_tree: { root_dir: '/x', keep_newlines: true } }], setup)),
      /has no option 'keep_newlines'/,
    );
    assert.match(
      codeOf(() => planExtPillar([{ file_tree: { root_dir: '/x', keep_newline: 'yes' } }], setup)),
      /keep_newline must be True\/False or a list of file globs/,
    );
    assert.match(
      codeOf(() => planExtPillar([{ file_tree: {} }], setup)),
      /file_tree needs root_dir/,
    );
    const plan = planExtPillar([{ vault: 'path=secret/salt' }, { mongo: {} }, { vault: 'x' }, { cmd_json: '/bin/true' }], setup);
    assert.deepEqual(plan.unsupported, ['vault', 'mongo']);
    assert.equal(plan.sources.length, 1);
    assert.equal(plan.sources[0]!.label, 'ext_pillar #4 (cmd_json)');
    assert.equal(plan.sources[0]!.stamp(), undefined, 'a command may change at any time');
    assert.deepEqual(planExtPillar(undefined, setup), { sources: [], unsupported: [] });
  });
  test('relative file_tree root_dir is under each pillar_roots directory of pillarenv', () => {
    const plan = planExtPillar([{ file_tree: { root_dir: 'ext' } }], { ...setup, pillarenv: 'base', pillarenvRoots: ['/srv/a', '/srv/b'] });
    assert.equal(plan.sources.length, 1);
  });
});

describe('cmd_json / cmd_yaml with real commands, in Salt order', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-extp-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const script = (name: string, body: string): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return p;
  };
  const compile = (ext: unknown[], more: { extFirst?: boolean; strategy?: 'smart' | 'overwrite'; mergeLists?: boolean } = {}) =>
    compilePillar(tree, web, { strategy: more.strategy ?? 'smart', mergeLists: more.mergeLists ?? false, ext: planExtPillar(ext, setup).sources, extFirst: more.extFirst ?? false });

  test('SLS first, then each ext_pillar merged over it in order, %s being the minion ID (every occurrence)', async () => {
    const r = await compile([{ cmd_json: `/bin/echo '{"app": {"y": "json"}, "who": "%s", "list": ["json"]}'` }, { cmd_yaml: `printf 'app:\\n  z: yaml-%s\\nwho2: %s\\n' | cat` }]);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.pillar, { app: { x: 'sls', y: 'json', z: 'yaml-web1' }, seen_y: 'none', list: ['json'], who: 'web1', who2: 'web1' });
  });

  test('ext_pillar_first: the SLS files see the ext data as pillar and win over it', async () => {
    const r = await compile([{ cmd_json: `/bin/echo '{"app": {"y": "json", "w": "json"}}'` }], { extFirst: true });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.pillar, { app: { x: 'sls', y: 'sls', w: 'json' }, seen_y: 'json', list: ['sls'] });
  });

  test('pillar_merge_lists and overwrite apply to ext_pillar data too', async () => {
    const lists = await compile([{ cmd_json: `/bin/echo '{"list": ["json", "sls"]}'` }], { mergeLists: true });
    assert.deepEqual(lists.pillar.list, ['sls', 'json']);
    const over = await compile([{ cmd_json: `/bin/echo '{"app": {"y": "json"}}'` }], { strategy: 'overwrite' });
    assert.deepEqual(over.pillar.app, { y: 'json' });
  });

  test('the command gets the minion ID as an argument word without a shell (cmd_json)', async () => {
    const args = script('args.sh', `printf '{"n": %d, "first": "%s"}' "$#" "$1"`);
    const r = await compile([{ cmd_json: `${args} '%s;echo' two` }]);
    assert.deepEqual(r.errors, []);
    assert.equal(r.pillar.n, 2);
    assert.equal(r.pillar.first, 'web1;echo');
  });

  test('a command that fails, prints bad JSON or YAML, a list, or runs too long: a coded error without its output; the others still merge', async () => {
    const secretOut = 'TOPSECRET-OUTPUT-123';
    const fails = script('fails.sh', `echo '${secretOut}'; exit 3`);
    const bad = script('bad.sh', `echo '{"x": ${secretOut}'`);
    const slow = script('slow.sh', 'exec sleep 30');
    const plan = planExtPillar(
      [
        { cmd_json: fails },
        { cmd_json: bad },
        { cmd_json: `/bin/echo '[1, 2]'` },
        { cmd_yaml: `echo '${secretOut}: [unclosed'` },
        { cmd_json: `/bin/echo '{"ok": 1}'` },
        { cmd_json: '/nonexistent/prog %s' },
        { cmd_json: slow },
      ],
      { ...setup, cmdTimeoutMs: 300 },
    );
    const r = await compilePillar(tree, web, { strategy: 'smart', mergeLists: false, ext: plan.sources });
    assert.equal(r.pillar.ok, 1, 'the good source merged');
    assert.deepEqual(r.errors, [
      `Failed to load ext_pillar #1 (cmd_json): the command (${fails}) for minion web1 exited with status 3; run it by hand on the master to see its output`,
      `Failed to load ext_pillar #2 (cmd_json): the command (${bad}) for minion web1 did not print valid JSON on its standard output; run it by hand on the master to see its output`,
      'Failed to load ext_pillar #3 (cmd_json): the command (/bin/echo) for minion web1 printed JSON that is a list, not a mapping of pillar keys; run it by hand on the master to see its output',
      'Failed to load ext_pillar #4 (cmd_yaml): the command (/bin/sh) for minion web1 did not print valid YAML on its standard output; run it by hand on the master to see its output',
      'Failed to load ext_pillar #6 (cmd_json): the command (/nonexistent/prog) for minion web1 failed: the program /nonexistent/prog was not found; run it by hand on the master to see its output',
      `Failed to load ext_pillar #7 (cmd_json): the command (${slow}) for minion web1 failed: it did not finish within 0.3 s (ext_pillar_cmd_timeout); run it by hand on the master to see its output`,
    ]);
    assert.ok(!r.errors.join('\n').includes(secretOut));
  });
});

describe('runExtPillars', () => {
  test('each source gets the minion and the pillar merged so far (Salt passes it to ext_pillar), in order', async () => {
    const seen: unknown[] = [];
    const source = (label: string, data: Record<string, unknown>) => ({
      label,
      stamp: () => 'fixed',
      run: async (ctx: { minionId: string; pillar: Record<string, unknown> }) => {
        seen.push({ label, id: ctx.minionId, pillar: ctx.pillar });
        return data;
      },
    });
    const r = await runExtPillars([source('one', { a: { b: 1 } }), source('two', { a: { c: 2 } })], { minionId: 'web1', grains: {}, nodegroups: {} }, { sls: true }, 'smart', false);
    assert.deepEqual(r, { pillar: { sls: true, a: { b: 1, c: 2 } }, errors: [] });
    assert.deepEqual(seen, [
      { label: 'one', id: 'web1', pillar: { sls: true } },
      { label: 'two', id: 'web1', pillar: { sls: true, a: { b: 1 } } },
    ]);
  });
});
