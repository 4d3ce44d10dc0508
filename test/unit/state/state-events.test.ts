// Salt's state_events in the runtime (issue 26): each finished state is reported in run order
// with its __run_num__, the run's chunk count and its key, as the job's return has it; the call's
// state_events= wins over the minion's option; off by default, as in Salt.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StateProgressReport } from '../../../src/modules/index.js';
import { harness } from './harness.js';

const tree = { base: { 's.sls': 'one:\n  test.succeed_without_changes: []\ntwo:\n  rec.state:\n    - changes: true\nsvc:\n  rec.state:\n    - listen:\n      - two\n' } };

describe('state_events', () => {
  it('state_events=True: one report per state as it finishes, in order, the same data as the return (listeners too)', async () => {
    const h = harness(tree);
    const got: StateProgressReport[] = [];
    const r = await h.call('state.sls', ['s'], { state_events: true }, { stateProgress: (p: StateProgressReport) => got.push(p) });
    assert.equal(r.retcode, 0);
    const ret = r.return as Record<string, Record<string, unknown>>;
    assert.deepEqual(
      got.map((p) => [p.n, p.tag]),
      [
        [0, 'test_|-one_|-one_|-succeed_without_changes'],
        [1, 'rec_|-two_|-two_|-state'],
        [2, 'rec_|-svc_|-svc_|-state'],
        [3, 'rec_|-listener_svc_|-svc_|-mod_watch'],
      ],
    );
    assert.ok(
      got.every((p) => p.len === 3),
      'len is the number of chunks, as Salt sends len(chunks)',
    );
    for (const p of got) assert.deepEqual(p.ret, ret[p.tag]);
  });

  it("off by default; the minion's state_events option turns it on; the call's state_events=False wins", async () => {
    const count = async (config: Record<string, unknown>, kwarg: Record<string, unknown>): Promise<number> => {
      let n = 0;
      await harness(tree, config).call('state.apply', ['s'], kwarg, { stateProgress: () => void n++ });
      return n;
    };
    assert.equal(await count({}, {}), 0);
    assert.equal(await count({ state_events: true }, {}), 4);
    assert.equal(await count({ state_events: true }, { state_events: false }), 0);
    assert.equal(await count({}, { state_events: true }), 4);
  });
});
