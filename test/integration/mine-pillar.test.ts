// Issue 10 items 1 and 3 together: mine_functions given by pillar (not the minion config) are
// sent by the minion once its pillar arrives and follow the pillar when it changes
// (saltutil.refresh_pillar); mine.get targets by pillar (tgt_type=pillar), from the master's
// pillar cache, with mine_get_pillar_targets on (mine.test.ts checks it is refused by default).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitUntil, type Proc } from '../helpers/cluster.js';
import { RawPeerFixture } from '../helpers/raw-peer.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const mineSls = (value: string) => `role: web\nmine_functions:\n  from_pillar:\n    - mine_function: test.echo\n    - ${value}\n`;

describe('mine_functions from pillar, and mine.get by pillar target', () => {
  let fx: RawPeerFixture;
  let pillarRoot: string;
  const minions: Proc[] = [];

  const runJson = async (tgt: string, args: string[]): Promise<Record<string, unknown>> => {
    const r = await fx.cluster.brine(['run', '--static', tgt, ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.ok(r.stdout.trim() !== '', `no output from ${tgt} ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  before(async () => {
    // pillar targets in mine.get are Salt's behaviour, opted into (off by default: docs/mine.md)
    fx = await RawPeerFixture.start({ auto_accept: true, mine_get_pillar_targets: true }, { goodMinion: false });
    pillarRoot = path.join(fx.cluster.root, 'master', 'srv', 'pillar');
    write(path.join(pillarRoot, 'top.sls'), "base:\n  'web1':\n    - web\n  'db1':\n    - db\n");
    write(path.join(pillarRoot, 'web.sls'), mineSls('first-value'));
    write(path.join(pillarRoot, 'db.sls'), 'role: db\n');
    // no mine_functions in either minion's config: web1's come from its pillar only
    for (const id of ['web1', 'db1']) minions.push(fx.cluster.startMinion(id));
    await Promise.all(minions.map((m) => m.waitForOutput(/ready to receive requests/)));
  });
  after(() => fx.close());

  it('a minion sends the mine_functions its pillar gives, and follows a pillar change', async () => {
    const got = await waitUntil(
      async () => {
        const r = await runJson('db1', ['mine.get', 'web1', 'from_pillar']);
        const mine = r.db1 as Record<string, unknown> | undefined;
        return mine?.web1 === 'first-value' ? mine : undefined;
      },
      30_000,
      "web1's pillar mine_functions in the master's mine",
    );
    assert.deepEqual(got, { web1: 'first-value' });
    // db1's pillar has no mine_functions and its config none: nothing of db1 in the mine
    assert.deepEqual((await runJson('web1', ['mine.get', 'db1', 'from_pillar'])).web1, {});

    write(path.join(pillarRoot, 'web.sls'), mineSls('second-value'));
    const refreshed = await runJson('web1', ['saltutil.refresh_pillar']);
    assert.equal(refreshed.web1, true);
    await waitUntil(
      async () => {
        const r = await runJson('db1', ['mine.get', 'web1', 'from_pillar']);
        return (r.db1 as Record<string, unknown> | undefined)?.web1 === 'second-value' ? true : undefined;
      },
      30_000,
      'the mine to follow the changed pillar',
    );
  });

  it('mine.get tgt_type=pillar selects minions by their pillar in the master cache', async () => {
    await waitUntil(
      async () => ((await runJson('db1', ['mine.get', 'web1', 'from_pillar'])).db1 as Record<string, unknown> | undefined)?.web1 !== undefined || undefined,
      30_000,
      'web1 has mine data',
    );
    const byPillar = await runJson('db1', ['mine.get', 'role:web', 'from_pillar', 'tgt_type=pillar']);
    assert.deepEqual(Object.keys(byPillar.db1 as object), ['web1']);
    const none = await runJson('db1', ['mine.get', 'role:nosuch', 'from_pillar', 'tgt_type=pillar']);
    assert.deepEqual(none.db1, {});
  });
});
