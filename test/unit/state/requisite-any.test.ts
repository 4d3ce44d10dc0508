// Salt's `_any`/`_all` requisites (salt/state.py check_requisite, salt/utils/requisite.py
// RequisiteType): require_any, watch_any, onchanges_any, onfail_any, onfail_all. The named states
// decide together; each test has a twin where the decision goes the other way.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { byId, harness } from './harness.js';

async function run(sls: string): Promise<{ e: ReturnType<typeof byId>; log: string[] }> {
  const h = harness({ base: { 'a.sls': sls } });
  const r = await h.call('state.sls', ['a']);
  assert.ok(r.retcode === 0 || r.retcode === 2, JSON.stringify(r.return));
  return { e: byId(r.return), log: h.log };
}

const two = (a: string, b: string): string => `a:\n  rec.state:\n${a}b:\n  rec.state:\n${b}`;
const FAIL = '    - fail: true\n';
const OK = '    - order: 1\n';
const CHANGE = '    - changes: true\n';

describe('_any and _all requisites', () => {
  it('require_any runs when one named state succeeded, fails only when all failed', async () => {
    const ok = await run(`${two(FAIL, OK)}x:\n  rec.state:\n    - require_any:\n      - a\n      - b\n`);
    assert.equal(ok.e.x!.result, true);
    assert.ok(ok.log.includes('run:x'));
    const bad = await run(`${two(FAIL, FAIL)}x:\n  rec.state:\n    - require_any:\n      - a\n      - b\n`);
    assert.equal(bad.e.x!.result, false);
    assert.match(bad.e.x!.comment, /^One or more requisite failed/);
    assert.ok(!bad.log.includes('run:x'));
  });

  it('watch_any runs mod_watch when any named state changed, and runs (without it) when none did', async () => {
    const changed = await run(`${two(FAIL, CHANGE)}x:\n  rec.state:\n    - watch_any:\n      - a\n      - b\n`);
    assert.deepEqual(changed.log.slice(-2), ['run:x', 'watch:x']);
    const quiet = await run(`${two(FAIL, OK)}x:\n  rec.state:\n    - watch_any:\n      - a\n      - b\n`);
    assert.equal(quiet.log.at(-1), 'run:x');
  });

  it('onchanges_any runs when any named state changed, else is skipped with the onchanges comment', async () => {
    const fired = await run(`${two(OK, CHANGE)}x:\n  rec.state:\n    - onchanges_any:\n      - a\n      - b\n`);
    assert.ok(fired.log.includes('run:x'));
    const idle = await run(`${two(OK, OK)}x:\n  rec.state:\n    - onchanges_any:\n      - a\n      - b\n`);
    assert.equal(idle.e.x!.result, true);
    assert.equal(idle.e.x!.comment, 'State was not run because none of the onchanges reqs changed');
    assert.ok(!idle.log.includes('run:x'));
  });

  it('onfail_any runs when any named state failed; onfail_all only when all did', async () => {
    const sls = (a: string, b: string, kind: string): string => `${two(a, b)}x:\n  rec.state:\n    - ${kind}:\n      - a\n      - b\n`;
    assert.ok((await run(sls(FAIL, OK, 'onfail_any'))).log.includes('run:x'));
    const none = await run(sls(OK, OK, 'onfail_any'));
    assert.equal(none.e.x!.comment, 'State was not run because onfail req did not change');
    assert.ok(!(await run(sls(FAIL, OK, 'onfail_all'))).log.includes('run:x'));
    assert.ok((await run(sls(FAIL, FAIL, 'onfail_all'))).log.includes('run:x'));
  });

  it('orders like the plain requisite: the named states run first', async () => {
    const h = harness({ base: { 'a.sls': 'x:\n  rec.state:\n    - order: 1\n    - require_any:\n      - later\nlater:\n  rec.state: []\n' } });
    await h.call('state.sls', ['a']);
    assert.deepEqual(h.log, ['run:later', 'run:x']);
  });
});
