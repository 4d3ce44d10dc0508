// Salt's leniency in the state compiler (issue 22 point 4): an argument the state function does
// not take is ignored with a warning in that state's return, a state function that does not exist
// fails that state alone when the run reaches it, and a multi-key mapping is refused only where
// its first key is a requisite. Shapes are Salt's (salt/state.py State.verify_data and
// _verify_high; salt/utils/args.py format_call).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './harness.js';

type Ret = Record<string, { result: boolean | null; comment: string; changes: Record<string, unknown>; name: string; __id__: string; __run_num__: number; warnings?: string[] }>;

function entries(ret: unknown): Ret {
  return Object.fromEntries(Object.values(ret as Ret).map((v) => [v.__id__, v]));
}

describe("Salt's leniency", () => {
  it('an unknown argument is ignored and named in the state return warnings; the state runs with the others', async () => {
    const h = harness({ base: { 'a.sls': 'one:\n  rec.state:\n    - port: 80\n    - colour: red\ntwo:\n  rec.state:\n    - colour: red\n    - shade: dark\n    - size: 3\n' } });
    const r = await h.call('state.sls', ['a']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    const e = entries(r.return);
    assert.equal(e.one!.result, true);
    assert.equal(e.one!.comment, 'ok 1');
    // format_call's wording: one argument, then several ("'a', 'b' and 'c' are ...")
    assert.deepEqual(e.one!.warnings, ["'colour' is an invalid keyword argument for 'rec.state'"]);
    assert.deepEqual(e.two!.warnings, ["'colour', 'shade' and 'size' are invalid keyword arguments for 'rec.state'"]);
    assert.deepEqual(h.log, ['run:one:80', 'run:two']);
    // a state without unknown arguments carries no warnings key at all
    const clean = await harness({ base: { 'b.sls': 'ok:\n  rec.state: []\n' } }).call('state.sls', ['b']);
    assert.equal('warnings' in Object.values(clean.return as Ret)[0]!, false);
  });

  it('a state function that does not exist fails that state only, with Salt comment, and its dependants fail their requisite', async () => {
    const h = harness({
      base: { 'a.sls': 'before:\n  rec.state: []\nmissing:\n  nosuch.thing:\n    - colour: red\nafter:\n  rec.state:\n    - require:\n      - nosuch: missing\nother:\n  rec.state: []\n' },
    });
    const r = await h.call('state.sls', ['a']);
    const e = entries(r.return);
    // State.verify_data: each error followed by a newline; result False, no changes
    assert.equal(e.missing!.result, false);
    assert.equal(e.missing!.comment, "State 'nosuch.thing' was not found in SLS 'a'\nReason: 'nosuch.thing' is not available.\n");
    assert.deepEqual(e.missing!.changes, {});
    assert.equal(e.missing!.name, 'missing');
    assert.equal(e.after!.result, false);
    assert.match(e.after!.comment, /^One or more requisite failed/);
    assert.equal(e.before!.result, true);
    assert.equal(e.other!.result, true);
    assert.deepEqual(h.log, ['run:before', 'run:other']);
    assert.equal(r.retcode, 2, 'a failed state makes the run fail, as in Salt');
    // test=True answers the same for the missing function and runs the others in test mode
    const t = entries((await h.call('state.sls', ['a'], { test: true })).return);
    assert.equal(t.missing!.result, false);
    assert.equal(t.other!.result, true);
  });

  it('a multi-key mapping is several arguments unless its first key is a requisite', async () => {
    const h = harness({ base: { 'a.sls': 'one:\n  rec.state:\n    - port: 81\n      extra: x\n' } });
    const r = await h.call('state.sls', ['a']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:one:81:x']);
    const bad = await harness({ base: { 'a.sls': 'ok:\n  rec.state: []\nmulti:\n  rec.state:\n    - require: [ok]\n      port: 1\n' } }).call('state.sls', ['a']);
    assert.equal(bad.error?.code, 'STATE_COMPILE_FAILED');
    // _verify_high's message, then how to fix it
    assert.match((bad.return as string[])[0]!, /^Multiple dictionaries defined in argument of state 'multi' in SLS 'a'/);
  });

  it('a boolean given as 0/1 and an optional text argument given as False read as Python reads them; other mismatched types stay errors', async () => {
    const h = harness({ base: { 'a.sls': 'one:\n  rec.state:\n    - changes: 1\n    - extra: False\ntwo:\n  rec.state:\n    - fail: 0\n' } });
    const r = await h.call('state.sls', ['a']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    const e = entries(r.return);
    assert.equal(e.one!.result, true);
    assert.notDeepEqual(e.one!.changes, {}, 'changes: 1 is true');
    assert.equal(e.two!.result, true, 'fail: 0 is false');
    const bad = await harness({ base: { 'b.sls': 'x:\n  rec.state:\n    - changes: 2\n' } }).call('state.sls', ['b']);
    assert.equal(bad.success, false);
    assert.match(JSON.stringify(bad.return), /'changes' must be a boolean/);
  });
});
