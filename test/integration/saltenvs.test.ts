// Several environments end to end (issue 23 point 6) with a real master and two real minions:
// file_roots base, dev and qa each with its own top.sls; the default merge strategy, saltenv= on
// a highstate and on named SLS, top_file_merging_strategy: same with env_order, and pillarenv=
// (plus pillarenv_from_saltenv) rendered by the master from pillar_roots base and dev. The
// expected tops follow Salt's _merge_tops_merge/_merge_tops_same (salt/state.py).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type CliResult, type Proc } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const nop = (id: string): string => `${id}:\n  test.nop: []\n`;

describe('several environments: top files, saltenv=, pillarenv=', () => {
  let cluster: Cluster;
  const minions: Proc[] = [];

  const run = (args: string[]): Promise<CliResult> => cluster.brine(['run', ...args, '--out', 'json', '-t', '60'], { timeoutMs: 90_000 });
  const json = (r: CliResult, id: string): unknown => {
    assert.ok(r.stdout.trim() !== '', `no output: ${r.stderr}`);
    return (JSON.parse(r.stdout) as Record<string, unknown>)[id];
  };
  /** The state IDs of a state run's return, sorted. */
  const ids = (r: CliResult, id: string): string[] => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return Object.values(json(r, id) as Record<string, { __id__: string; result: boolean }>)
      .map((s) => {
        assert.equal(s.result, true, JSON.stringify(s));
        return s.__id__;
      })
      .sort();
  };

  before(async () => {
    cluster = await Cluster.create();
    const srv = (env: string) => path.join(cluster.root, 'master', 'srv', `salt-${env}`);
    const pil = (env: string) => path.join(cluster.root, 'master', 'srv', `pillar-${env}`);
    // base's top file decides base and dev; dev's top file has its own dev section and a base
    // section (which merge and same ignore); qa's top file has only qa
    write(path.join(srv('base'), 'top.sls'), "base:\n  '*':\n    - core\ndev:\n  '*':\n    - from_base\n");
    write(path.join(srv('dev'), 'top.sls'), "dev:\n  '*':\n    - devapp\nbase:\n  '*':\n    - dev_in_base\n");
    write(path.join(srv('qa'), 'top.sls'), "qa:\n  '*':\n    - qaapp\n");
    write(path.join(srv('base'), 'core.sls'), nop('core-ran'));
    write(path.join(srv('base'), 'dev_in_base.sls'), nop('dev-in-base-ran'));
    write(path.join(srv('dev'), 'from_base.sls'), nop('from-base-ran'));
    write(path.join(srv('dev'), 'devapp.sls'), nop('devapp-ran'));
    write(path.join(srv('dev'), 'devonly.sls'), nop('devonly-{{ saltenv }}'));
    write(path.join(srv('qa'), 'qaapp.sls'), nop('qaapp-ran'));
    const pillarCheck = "tier-{{ pillar.get('tier', 'none') }}-dev-{{ pillar.get('dev_only', False) }}:\n  test.nop: []\n";
    write(path.join(srv('base'), 'pillarcheck.sls'), pillarCheck);
    write(path.join(srv('dev'), 'pillarcheck.sls'), pillarCheck);
    write(path.join(pil('base'), 'top.sls'), "base:\n  '*':\n    - common\n");
    write(path.join(pil('base'), 'common.sls'), 'tier: base-tier\n');
    write(path.join(pil('dev'), 'top.sls'), "dev:\n  '*':\n    - devpillar\n");
    write(path.join(pil('dev'), 'devpillar.sls'), 'dev_only: true\n');
    await cluster.startMaster({
      auto_accept: true,
      file_roots: { base: [srv('base')], dev: [srv('dev')], qa: [srv('qa')] },
      pillar_roots: { base: [pil('base')], dev: [pil('dev')] },
    });
    minions.push(cluster.startMinion('m-merge'), cluster.startMinion('m-same', { top_file_merging_strategy: 'same', env_order: ['dev', 'base'], pillarenv_from_saltenv: true }));
    await Promise.all(minions.map((m) => m.waitForOutput(/ready to receive requests/, 30_000)));
    await waitUntil(
      async () => {
        const r = await run(['m-merge', 'pillar.get', 'tier']);
        return r.code === 0 && json(r, 'm-merge') === 'base-tier';
      },
      30_000,
      'm-merge holds its pillar',
    );
  });
  after(() => cluster.cleanup());

  it('merge (the default): base decides base and dev, qa comes from its own top file; state.apply runs all three', async () => {
    const top = await run(['m-merge', 'state.show_top']);
    assert.equal(top.code, 0, top.stdout + top.stderr);
    assert.deepEqual(json(top, 'm-merge'), { base: ['core'], dev: ['from_base'], qa: ['qaapp'] });
    assert.deepEqual(ids(await run(['m-merge', 'state.apply']), 'm-merge'), ['core-ran', 'from-base-ran', 'qaapp-ran']);
  });

  it("saltenv=dev: only dev's own section of dev's top file; state.apply devonly saltenv=dev reads the SLS from dev", async () => {
    const top = await run(['m-merge', 'state.show_top', 'saltenv=dev']);
    assert.deepEqual(json(top, 'm-merge'), { dev: ['devapp'] });
    assert.deepEqual(ids(await run(['m-merge', 'state.apply', 'saltenv=dev']), 'm-merge'), ['devapp-ran']);
    assert.deepEqual(ids(await run(['m-merge', 'state.apply', 'devonly', 'saltenv=dev']), 'm-merge'), ['devonly-dev']);
    const missing = await run(['m-merge', 'state.apply', 'devonly']);
    assert.notEqual(missing.code, 0, 'devonly is not in base');
    assert.match(missing.stdout, /devonly/);
  });

  it('same with env_order [dev, base]: each environment from its own top file, qa not read, in env_order', async () => {
    const top = await run(['m-same', 'state.show_top']);
    assert.equal(top.code, 0, top.stdout + top.stderr);
    const got = json(top, 'm-same') as Record<string, string[]>;
    assert.deepEqual(got, { dev: ['devapp'], base: ['core'] });
    assert.deepEqual(Object.keys(got), ['dev', 'base']);
    assert.deepEqual(ids(await run(['m-same', 'state.apply']), 'm-same'), ['core-ran', 'devapp-ran']);
  });

  it("pillarenv=dev renders the run's pillar from dev only, and leaves the minion's pillar as it was", async () => {
    assert.deepEqual(json(await run(['m-merge', 'pillar.items']), 'm-merge'), { tier: 'base-tier', dev_only: true });
    assert.deepEqual(json(await run(['m-merge', 'pillar.items', 'pillarenv=dev']), 'm-merge'), { dev_only: true });
    assert.deepEqual(ids(await run(['m-merge', 'state.apply', 'pillarcheck', 'pillarenv=dev']), 'm-merge'), ['tier-none-dev-True']);
    assert.deepEqual(ids(await run(['m-merge', 'state.apply', 'pillarcheck', 'pillarenv=base']), 'm-merge'), ['tier-base-tier-dev-False']);
    assert.deepEqual(ids(await run(['m-merge', 'state.apply', 'pillarcheck']), 'm-merge'), ['tier-base-tier-dev-True']);
    assert.deepEqual(json(await run(['m-merge', 'pillar.items']), 'm-merge'), { tier: 'base-tier', dev_only: true });
  });

  it('pillarenv_from_saltenv: saltenv=dev also renders the pillar from dev', async () => {
    assert.deepEqual(ids(await run(['m-same', 'state.apply', 'pillarcheck', 'saltenv=dev']), 'm-same'), ['tier-none-dev-True']);
    // m-merge has no pillarenv_from_saltenv: its pillar stays the merged one
    assert.deepEqual(ids(await run(['m-merge', 'state.apply', 'pillarcheck', 'saltenv=dev']), 'm-merge'), ['tier-base-tier-dev-True']);
  });

  // the code itself (PILLARENV_UNKNOWN) is asserted on the master's reply in pillar-service.test.ts: brine run prints the message, as salt does
  it('a pillarenv the master does not have is refused naming the ones it has; nothing runs', async () => {
    for (const [args, shown] of [
      [['state.apply', 'pillarcheck', 'pillarenv=nope'], 'nope'],
      [['pillar.items', 'pillarenv=../x'], '../x'],
    ] as const) {
      const r = await run(['m-merge', ...args]);
      assert.notEqual(r.code, 0, r.stdout);
      const message = json(r, 'm-merge');
      assert.equal(typeof message, 'string', r.stdout);
      assert.ok((message as string).includes(`pillarenv "${shown}" is not an environment of the master's pillar_roots (base, dev)`), r.stdout);
    }
  });
});

describe('several environments masterless (brine call with file_client: local)', () => {
  let cluster: Cluster;
  let call: (args: string[]) => Promise<CliResult>;

  before(async () => {
    cluster = await Cluster.create();
    const srv = (env: string) => path.join(cluster.root, 'minions', 'solo', `salt-${env}`);
    const pil = (env: string) => path.join(cluster.root, 'minions', 'solo', `pillar-${env}`);
    write(path.join(srv('base'), 'top.sls'), "base:\n  '*':\n    - core\ndev:\n  '*':\n    - from_base\n");
    write(path.join(srv('dev'), 'top.sls'), "dev:\n  '*':\n    - devapp\nbase:\n  '*':\n    - dev_in_base\n");
    write(path.join(srv('base'), 'core.sls'), nop('core-ran'));
    write(path.join(srv('base'), 'dev_in_base.sls'), nop('dev-in-base-ran'));
    write(path.join(srv('dev'), 'devapp.sls'), nop('devapp-ran'));
    write(path.join(srv('dev'), 'pillarcheck.sls'), "tier-{{ pillar.get('tier', 'none') }}:\n  test.nop: []\n");
    write(path.join(pil('base'), 'top.sls'), "base:\n  '*':\n    - common\n");
    write(path.join(pil('base'), 'common.sls'), 'tier: base-tier\n');
    write(path.join(pil('dev'), 'top.sls'), "dev:\n  '*':\n    - devpillar\n");
    write(path.join(pil('dev'), 'devpillar.sls'), 'tier: dev-tier\n');
    // no master runs: everything comes from this machine's own trees
    cluster.writeMinionConfig('solo', {
      file_client: 'local',
      file_roots: { base: [srv('base')], dev: [srv('dev')] },
      pillar_roots: { base: [pil('base')], dev: [pil('dev')] },
      top_file_merging_strategy: 'merge_all',
    });
    call = (args) => runCli(['call', '-c', cluster.minionConfigDir('solo'), ...args, '--out', 'json']);
  });
  after(() => cluster.cleanup());

  const local = (r: CliResult): unknown => {
    assert.equal(r.code, 0, r.stdout + r.stderr);
    return (JSON.parse(r.stdout) as { local: unknown }).local;
  };

  it("merge_all from the minion's own config: every section of both top files, base's first", async () => {
    assert.deepEqual(local(await call(['state.show_top'])), { base: ['core', 'dev_in_base'], dev: ['from_base', 'devapp'] });
  });

  it('pillarenv=dev renders its own pillar_roots dev; an unknown one is PILLARENV_UNKNOWN naming its environments', async () => {
    assert.deepEqual(local(await call(['pillar.items', 'pillarenv=dev'])), { tier: 'dev-tier' });
    const run = local(await call(['state.sls', 'pillarcheck', 'saltenv=dev', 'pillarenv=dev'])) as Record<string, { __id__: string }>;
    assert.deepEqual(
      Object.values(run).map((s) => s.__id__),
      ['tier-dev-tier'],
    );
    const bad = await call(['state.sls', 'pillarcheck', 'saltenv=dev', 'pillarenv=qa']);
    assert.notEqual(bad.code, 0, bad.stdout);
    assert.match(bad.stderr, /^PILLARENV_UNKNOWN: pillarenv "qa" is not an environment of this minion's pillar_roots \(base, dev\)/m);
  });
});
