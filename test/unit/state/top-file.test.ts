// The top file: every matcher brine has, evaluated against the minion's own ID and grains, and
// Salt's environment rules (base's top file first and authoritative, another top file only for
// its own section, saltenv= limits the run to one environment's top); the strategies are top-merge.test.ts's.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { byId, harness } from './harness.js';

const grainsData = { id: 'web1', os: 'Debian', roles: ['web', 'cache'], ipv4: ['10.1.2.3', '127.0.0.1'] };

async function top(tree: Record<string, Record<string, string>>, kwarg: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
  const h = harness(tree, config);
  const r = await h.call('state.show_top', [], kwarg, { minionId: 'web1', grainsData } as never);
  return r;
}

describe('top.sls matching', () => {
  it('glob (default), grain, grain_pcre, pcre, list, compound, ipcidr and nodegroup targets', async () => {
    const text = [
      'base:',
      "  '*':\n    - all",
      "  'db*':\n    - nope_glob",
      "  'os:Debian':\n    - match: grain\n    - grain",
      "  'roles:cach.':\n    - match: grain_pcre\n    - grain_pcre",
      "  'web\\d':\n    - match: pcre\n    - pcre",
      "  'db1,web1':\n    - match: list\n    - list",
      "  'G@os:Debian and not web2':\n    - match: compound\n    - compound",
      "  '10.1.0.0/16':\n    - match: ipcidr\n    - ipcidr",
      "  'webs':\n    - match: nodegroup\n    - nodegroup",
      "  'os:RedHat':\n    - match: grain\n    - nope_grain",
      '',
    ].join('\n');
    const r = await top({ base: { 'top.sls': text } }, {}, { nodegroups: { webs: 'web*' } });
    assert.equal(r.success, true, JSON.stringify(r.return));
    assert.deepEqual(r.return, { base: ['all', 'grain', 'grain_pcre', 'pcre', 'list', 'compound', 'ipcidr', 'nodegroup'] });
  });

  it('an environment name that is not letters, digits, _ and - is an error', async () => {
    const r = await top({ base: { 'top.sls': "bad env:\n  '*':\n    - a\n" } });
    assert.equal(r.error?.code, 'STATE_COMPILE_FAILED');
    assert.match(String((r.return as string[])[0]), /names the environment "bad env"/);
    // a section called __proto__ is an ordinary (empty) environment, never the object's prototype
    const proto = await top({ base: { 'top.sls': "__proto__:\n  '*':\n    - a\n" } });
    assert.equal(proto.success, true, JSON.stringify(proto.return));
    assert.deepEqual(Object.keys(proto.return as object), ['__proto__']);
    assert.equal(Object.getPrototypeOf(proto.return), Object.prototype);
  });

  it('an unsupported match type is a compile error naming the target', async () => {
    const r = await top({ base: { 'top.sls': "base:\n  'x':\n    - match: pillar\n    - a\n" } });
    assert.equal(r.error?.code, 'STATE_COMPILE_FAILED');
    assert.match(String((r.return as string[])[0]), /target 'x' uses match type 'pillar'/);
  });
});

describe('environments', () => {
  const tree = {
    base: { 'top.sls': "base:\n  '*':\n    - core\ndev:\n  '*':\n    - from_base_top\n", 'core.sls': 'core:\n  rec.state: []\n' },
    dev: { 'top.sls': "dev:\n  '*':\n    - ignored\nqa:\n  '*':\n    - qa_from_dev\n", 'from_base_top.sls': 'devstate:\n  rec.state:\n    - show_env: true\n' },
    qa: { 'top.sls': "qa:\n  '*':\n    - also_ignored\n", 'also_ignored.sls': 'qastate:\n  rec.state: []\n' },
  };

  it("merge: base's top file decides every section it has; another top file counts only for its own section (Salt's _merge_tops_merge)", async () => {
    const r = await top(tree);
    // dev's qa section is ignored (not dev's own); qa's own top file gives qa
    assert.deepEqual(r.return, { base: ['core'], dev: ['from_base_top'], qa: ['also_ignored'] });
  });

  it('saltenv= uses only that environment own top file and section', async () => {
    const r = await top(tree, { saltenv: 'dev' });
    assert.deepEqual(r.return, { dev: ['ignored'] });
  });

  it('a highstate applies the SLS of every environment from its own environment, each state running in its saltenv', async () => {
    const h = harness(tree);
    const r = await h.call('state.highstate');
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:core', 'saltenv:devstate:dev', 'run:devstate', 'run:qastate']);
    const ids = byId(r.return) as Record<string, { __sls__?: string }>;
    assert.equal(ids.devstate!.__sls__, 'from_base_top');
    const apply = harness(tree);
    await apply.call('state.apply');
    assert.deepEqual(apply.log, ['run:core', 'saltenv:devstate:dev', 'run:devstate', 'run:qastate']);
  });

  it('no matching top: Salt result with result False and retcode 2', async () => {
    const h = harness({ base: { 'top.sls': "base:\n  'nomatch':\n    - core\n" } });
    const r = await h.call('state.apply');
    assert.equal(r.retcode, 2);
    const only = Object.values(r.return as Record<string, { result: boolean; comment: string }>)[0]!;
    assert.equal(only.result, false);
    assert.match(only.comment, /No Top file or master_tops data matches found/);
    // issue 26: what the top file gave this minion, not a pointer to a master log that says nothing
    assert.match(only.comment, /The top file \(base\) has no target that matches minion '[^']+'; its targets: 'nomatch'\./);
  });

  it('no top file at all: says so, naming the environments searched', async () => {
    const h = harness({ base: { 'core.sls': 'a:\n  test.nop: []\n' } });
    const r = await h.call('state.apply');
    assert.equal(r.retcode, 2);
    const only = Object.values(r.return as Record<string, { comment: string }>)[0]!;
    assert.match(only.comment, /^No Top file or master_tops data matches found\. No top file \(top\.sls\) was found in the environments searched: base\./);
  });
});

describe('state.top (issue 25: salt.state top: in orchestration)', () => {
  const tree = {
    base: {
      'top.sls': "base:\n  '*':\n    - core\n",
      'tops/web.sls': "base:\n  '*':\n    - webonly\n",
      'core.sls': 'core:\n  rec.state: []\n',
      'webonly.sls': 'webonly:\n  rec.state: []\n',
    },
  };

  it("runs the highstate of the top file it names (salt:// or a path), not top.sls's", async () => {
    for (const topfn of ['salt://tops/web.sls', 'tops/web.sls']) {
      const h = harness(tree);
      const r = await h.call('state.top', [topfn]);
      assert.equal(r.retcode, 0, JSON.stringify(r.return));
      assert.deepEqual(h.log, ['run:webonly']);
    }
  });

  it('a path outside the environment, or none, is a coded error saying what to give', async () => {
    for (const topfn of ['../etc/top.sls', 'salt://', 'a/./b.sls']) {
      const r = await harness(tree).call('state.top', [topfn]);
      assert.equal(r.error?.code, 'BAD_ARGUMENTS', topfn);
      assert.match(r.error?.message ?? '', /give one like top_web\.sls/);
    }
  });
});
