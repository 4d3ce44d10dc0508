// Salt's _get_pillar_errors: while the minion's latest pillar render failed (its pillar holds
// `_errors`), state.apply / sls / highstate / sls_id / test (and the show_* functions) refuse with
// PILLAR_RENDER_FAILED and Salt's list of messages, unless force=True (issue 10, bad input).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './harness.js';

const tree = { base: { 'top.sls': "base:\n  '*':\n    - app\n", 'app.sls': "app:\n  rec.state:\n    - extra: {{ pillar['v'] }}\n" } };
const broken = {
  v: 'last-good',
  _errors: ["Rendering SLS 'db' failed: pillar_roots base:db.sls:2:8: YAML error: unexpected end\n  2 | password: hunter2 ["],
};

describe('state runs on a pillar that did not render', () => {
  for (const [fun, arg, kwarg] of [
    ['state.apply', ['app'], {}],
    ['state.apply', [], {}],
    ['state.sls', ['app'], {}],
    ['state.highstate', [], {}],
    ['state.test', ['app'], {}],
    ['state.sls_id', ['app', 'app'], {}],
  ] as const) {
    it(`${fun} ${arg.join(' ')} is refused with PILLAR_RENDER_FAILED and no state runs`, async () => {
      const h = harness(tree);
      const r = await h.call(fun, [...arg], { ...kwarg }, { pillar: () => broken });
      assert.equal(r.success, false);
      assert.equal(r.error?.code, 'PILLAR_RENDER_FAILED');
      assert.equal(r.retcode, 5, "Salt's EX_PILLAR_FAILURE");
      assert.match(r.error?.message ?? '', /db\.sls:2:8/);
      assert.ok(!(r.error?.message ?? '').includes('hunter2'), 'the coded message names the place, not the quoted line');
      assert.deepEqual(r.return, ['Pillar failed to render with the following messages:', broken._errors[0]]);
      assert.deepEqual(h.log, []);
    });
  }

  it('force=True runs on the last good pillar', async () => {
    const h = harness(tree);
    const r = await h.call('state.apply', ['app'], { force: true }, { pillar: () => broken });
    assert.equal(r.success, true, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:app:last-good']);
  });

  it('a pillar without _errors (or with an empty list) runs as usual', async () => {
    for (const pillar of [{ v: 'fine' }, { v: 'fine', _errors: [] }]) {
      const h = harness(tree);
      const r = await h.call('state.apply', ['app'], {}, { pillar: () => pillar });
      assert.equal(r.success, true, JSON.stringify(r.return));
      assert.deepEqual(h.log, ['run:app:fine']);
    }
  });
});

// Salt 3007's show_sls, show_low_sls, show_highstate and show_lowstate check _get_pillar_errors
// too (bench:salt-lowchunks: ntp-formula's pillar.example repeats a top-level key, so Salt
// answers "Pillar failed to render" for every ntp file where brine showed the chunks)
describe('show functions on a pillar that did not render', () => {
  for (const [fun, arg] of [
    ['state.show_sls', ['app']],
    ['state.show_low_sls', ['app']],
    ['state.show_highstate', []],
    ['state.show_lowstate', []],
  ] as const) {
    it(`${fun} is refused with PILLAR_RENDER_FAILED; force=True shows the last good pillar's`, async () => {
      const h = harness(tree);
      const r = await h.call(fun, [...arg], {}, { pillar: () => broken });
      assert.equal(r.error?.code, 'PILLAR_RENDER_FAILED');
      assert.equal(r.retcode, 5);
      assert.deepEqual(r.return, ['Pillar failed to render with the following messages:', broken._errors[0]]);
      const forced = await h.call(fun, [...arg], { force: true }, { pillar: () => broken });
      assert.equal(forced.success, true, JSON.stringify(forced.return));
      assert.match(JSON.stringify(forced.return), /last-good/);
    });
  }
});
