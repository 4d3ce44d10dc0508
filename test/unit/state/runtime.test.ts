// The runtime over real compiled runs: requisites (require, watch/mod_watch, onchanges, onfail,
// prereq, use), the global arguments (unless, onlyif, creates, check_cmd with real commands,
// retry on a fake sleep, failhard), test=True, and the shape and retcode of the return.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { byId, harness } from './harness.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-state-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sls = (text: string) => ({ base: { 's.sls': text } });

describe('return shape', () => {
  it('keys each state state_|-id_|-name_|-fun with name, result, changes, comment, __id__, __sls__, __run_num__, start_time, duration', async () => {
    const h = harness(sls('one:\n  test.succeed_with_changes:\n    - name: first\ntwo:\n  test.succeed_without_changes: []\n'));
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0);
    const ret = r.return as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(ret), ['test_|-one_|-first_|-succeed_with_changes', 'test_|-two_|-two_|-succeed_without_changes']);
    const one = ret['test_|-one_|-first_|-succeed_with_changes']!;
    assert.deepEqual(Object.keys(one).sort(), ['__id__', '__run_num__', '__sls__', 'changes', 'comment', 'duration', 'name', 'result', 'start_time']);
    assert.equal(one.name, 'first');
    assert.equal(one.result, true);
    assert.deepEqual(one.changes, { testing: { old: 'Unchanged', new: 'Something pretended to change' } });
    assert.equal(one.__sls__, 's');
    assert.equal(one.__run_num__, 0);
    assert.equal(ret['test_|-two_|-two_|-succeed_without_changes']!.__run_num__, 1);
    assert.match(one.start_time as string, /^\d\d:\d\d:\d\d(\.\d{6})?$/);
    assert.equal(typeof one.duration, 'number');
  });

  it('a failed state makes the retcode 2; independent states still run, dependants say why they did not', async () => {
    const h = harness(sls('bad:\n  rec.state:\n    - fail: true\nfree:\n  rec.state: []\ndep:\n  rec.state:\n    - require:\n      - bad\ndep2:\n  rec.state:\n    - require:\n      - dep\n'));
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 2);
    assert.equal(r.success, false);
    const ids = byId(r.return);
    assert.equal(ids.bad!.result, false);
    assert.equal(ids.free!.result, true);
    assert.equal(ids.dep!.result, false);
    assert.equal(ids.dep!.comment, 'One or more requisite failed: s.bad');
    assert.equal(ids.dep2!.comment, 'One or more requisite failed: s.dep');
    assert.deepEqual(h.log, ['run:bad', 'run:free']);
  });

  it('a state function that throws fails that state only', async () => {
    const h = harness(sls('boom:\n  test.configurable_test_state:\n    - result: maybe\nok:\n  rec.state: []\n'));
    const r = await h.call('state.sls', ['s']);
    const ids = byId(r.return);
    assert.equal(ids.boom!.result, false);
    assert.match(ids.boom!.comment, /An exception occurred in this state: .*must be True, False or Random/);
    assert.equal(ids.ok!.result, true);
  });
});

describe('requisites at run time', () => {
  it('watch: mod_watch runs when the watched state changed, not otherwise', async () => {
    const h = harness(sls('conf:\n  rec.state:\n    - changes: true\nsame:\n  rec.state: []\nsvc:\n  rec.state:\n    - watch:\n      - conf\nsvc2:\n  rec.state:\n    - watch:\n      - same\n'));
    const r = await h.call('state.sls', ['s']);
    assert.deepEqual(h.log, ['run:conf', 'run:same', 'run:svc', 'watch:svc', 'run:svc2']);
    const ids = byId(r.return);
    assert.deepEqual(ids.svc!.changes, { restarted: true });
    assert.deepEqual(ids.svc2!.changes, {});
  });

  it('watch on a failed state fails the watcher like require', async () => {
    const h = harness(sls('conf:\n  rec.state:\n    - fail: true\nsvc:\n  rec.state:\n    - watch:\n      - conf\n'));
    const r = await h.call('state.sls', ['s']);
    assert.equal(byId(r.return).svc!.comment, 'One or more requisite failed: s.conf');
    assert.deepEqual(h.log, ['run:conf']);
  });

  it('onchanges: runs only if a named state changed (any of several)', async () => {
    const h = harness(
      sls(
        'c:\n  rec.state:\n    - changes: true\nu:\n  rec.state: []\nfires:\n  rec.state:\n    - onchanges:\n      - u\n      - c\nidle:\n  rec.state:\n    - onchanges:\n      - u\nyes_in:\n  rec.state: []\nc2:\n  rec.state:\n    - changes: true\n    - onchanges_in:\n      - yes_in\n',
      ),
    );
    const r = await h.call('state.sls', ['s']);
    const ids = byId(r.return);
    assert.equal(ids.idle!.result, true);
    assert.equal(ids.idle!.comment, 'State was not run because none of the onchanges reqs changed');
    assert.ok(h.log.includes('run:fires'));
    assert.ok(!h.log.includes('run:idle'));
    assert.ok(h.log.indexOf('run:yes_in') > h.log.indexOf('run:c2'));
  });

  it('onfail: runs only when a named state failed; the run still reports the failure', async () => {
    const h = harness(sls('bad:\n  rec.state:\n    - fail: true\ngood:\n  rec.state: []\nrescue:\n  rec.state:\n    - onfail:\n      - bad\nidle:\n  rec.state:\n    - onfail:\n      - good\n'));
    const r = await h.call('state.sls', ['s']);
    const ids = byId(r.return);
    assert.ok(h.log.includes('run:rescue'));
    assert.ok(!h.log.includes('run:idle'));
    assert.equal(ids.idle!.comment, 'State was not run because onfail req did not change');
    assert.equal(ids.idle!.result, true);
    assert.equal(r.retcode, 2);
  });

  it('prereq: the target is tried in test mode first; the prereq state runs before it only if it would change', async () => {
    const h = harness(sls('site:\n  rec.state:\n    - changes: true\nstop:\n  rec.state:\n    - prereq:\n      - site\nquiet:\n  rec.state: []\nnever:\n  rec.state:\n    - prereq:\n      - quiet\n'));
    const r = await h.call('state.sls', ['s']);
    assert.deepEqual(h.log, ['test:site', 'run:stop', 'run:site', 'test:quiet', 'run:quiet']);
    const ids = byId(r.return);
    assert.equal(ids.never!.comment, 'No changes detected');
    assert.equal(ids.never!.result, true);
  });

  it('prereq_in: declared from the target side', async () => {
    const h = harness(sls('site:\n  rec.state:\n    - changes: true\n    - prereq_in:\n      - stop\nstop:\n  rec.state: []\n'));
    await h.call('state.sls', ['s']);
    assert.deepEqual(h.log, ['test:site', 'run:stop', 'run:site']);
  });

  it('prereq: when the prereq state fails, the target does not run', async () => {
    const h = harness(sls('site:\n  rec.state:\n    - changes: true\nstop:\n  rec.state:\n    - fail: true\n    - prereq:\n      - site\n'));
    const r = await h.call('state.sls', ['s']);
    assert.deepEqual(h.log, ['test:site', 'run:stop']);
    assert.equal(byId(r.return).site!.comment, 'One or more requisite failed: s.stop');
  });

  it('listen: does not order; mod_watch runs once at the end of the run, reported as listener_<id>', async () => {
    const h = harness(
      sls(
        'svc:\n  rec.state:\n    - listen:\n      - conf\n      - conf2\nconf:\n  rec.state:\n    - changes: true\nconf2:\n  rec.state:\n    - changes: true\n    - listen_in:\n      - svc2\nsvc2:\n  rec.state: []\nquiet:\n  rec.state:\n    - listen:\n      - svc2\n',
      ),
    );
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:svc', 'run:conf', 'run:conf2', 'run:svc2', 'run:quiet', 'watch:svc', 'watch:svc2']);
    const ret = r.return as Record<string, { __id__: string; __run_num__: number; changes: object }>;
    const listener = ret['rec_|-listener_svc_|-svc_|-mod_watch'];
    assert.ok(listener, Object.keys(ret).join(' '));
    assert.equal(listener.__id__, 'listener_svc');
    assert.equal(listener.__run_num__, 5);
    assert.deepEqual(listener.changes, { restarted: true });
    assert.ok(ret['rec_|-listener_svc2_|-svc2_|-mod_watch']);
    assert.equal(ret['rec_|-listener_quiet_|-quiet_|-mod_watch'], undefined);
  });

  it('listen on a state function without mod_watch is a compile error', async () => {
    const h = harness(sls('c:\n  rec.state:\n    - changes: true\nn:\n  test.show_notification:\n    - listen:\n      - c\n'));
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.error?.code, 'STATE_COMPILE_FAILED');
    assert.match((r.return as string[])[0]!, /test\.show_notification has no mod_watch/);
    assert.deepEqual(h.log, []);
  });

  it('use and use_in copy the arguments a state does not set (never name or requisites)', async () => {
    const h = harness(
      sls(
        'tmpl:\n  rec.state:\n    - port: 8080\n    - extra: shared\n    - require:\n      - other\nother:\n  rec.state: []\ncopy:\n  rec.state:\n    - port: 1\n    - use:\n      - tmpl\ngiven:\n  rec.state: []\nsrc:\n  rec.state:\n    - extra: pushed\n    - use_in:\n      - given\n',
      ),
    );
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.ok(h.log.includes('run:copy:1:shared'), h.log.join(' '));
    assert.ok(h.log.includes('run:given:pushed'), h.log.join(' '));
  });
});

describe('global arguments', () => {
  it('onlyif and unless run real commands (lists too); skipped states report why and do not fire mod_watch', async () => {
    const h = harness(
      sls(
        [
          'a:\n  rec.state:\n    - onlyif: "true"\n',
          'b:\n  rec.state:\n    - onlyif:\n      - "true"\n      - "false"\n',
          'c:\n  rec.state:\n    - unless: "false"\n',
          'd:\n  rec.state:\n    - unless:\n      - "true"\n      - test 1 -eq 1\n',
          'e:\n  rec.state:\n    - unless:\n      - "true"\n      - "false"\n',
          'f:\n  rec.state:\n    - onlyif: test "$BRINE_X" = yes\n    - env:\n      - BRINE_X: "yes"\n',
          'ch:\n  rec.state:\n    - changes: true\n',
          'g:\n  rec.state:\n    - unless: "true"\n    - watch:\n      - ch\n',
        ].join(''),
      ),
    );
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    const ids = byId(r.return);
    assert.deepEqual(
      h.log.filter((l) => l !== 'run:ch'),
      ['run:a', 'run:c', 'run:e', 'run:f'],
    );
    assert.equal(ids.b!.comment, 'onlyif condition is false');
    assert.equal(ids.b!.result, true);
    assert.equal(ids.d!.comment, 'unless condition is true');
    assert.equal(ids.g!.comment, 'unless condition is true');
  });

  it('onlyif/unless also take Salt function checks {fun, args, get_return, kwargs}: a truthy return passes', async () => {
    const there = path.join(tmp, 'fun-there');
    fs.writeFileSync(there, '');
    const h = harness(
      sls(
        [
          `exists:\n  rec.state:\n    - onlyif:\n      - fun: file.file_exists\n        path: ${there}\n`,
          `missing:\n  rec.state:\n    - onlyif:\n      - fun: file.file_exists\n        path: ${there}.no\n`,
          'mixed:\n  rec.state:\n    - unless:\n      - "true"\n      - fun: test.false\n',
          'skipped:\n  rec.state:\n    - unless:\n      - fun: test.echo\n        args: [hello]\n',
          'traversed:\n  rec.state:\n    - onlyif:\n      - fun: test.arg\n        args: [a]\n        flag: ""\n        get_return: kwargs:flag\n',
          'traversed_yes:\n  rec.state:\n    - onlyif:\n      - fun: test.arg\n        flag: "x"\n        get_return: kwargs:flag\n',
        ].join(''),
      ),
    );
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:exists', 'run:mixed', 'run:traversed_yes']);
    assert.equal(byId(r.return).missing!.comment, 'onlyif condition is false');
    assert.equal(byId(r.return).skipped!.comment, 'unless condition is true');
    assert.equal(byId(r.return).traversed!.comment, 'onlyif condition is false');
  });

  it("onlyif/unless run in the state's cwd", async () => {
    const h = harness(sls(`here:\n  rec.state:\n    - cwd: ${tmp}\n    - onlyif: test "$(pwd)" = "${tmp}"\nthere:\n  rec.state:\n    - cwd: /\n    - onlyif: test "$(pwd)" = "${tmp}"\n`));
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:here']);
  });

  it('creates: skipped when every path exists', async () => {
    const there = path.join(tmp, 'there');
    fs.writeFileSync(there, '');
    const h = harness(sls(`a:\n  rec.state:\n    - creates: ${there}\nb:\n  rec.state:\n    - creates:\n      - ${there}\n      - ${path.join(tmp, 'missing')}\n`));
    const r = await h.call('state.sls', ['s']);
    assert.deepEqual(h.log, ['run:b']);
    assert.equal(byId(r.return).a!.comment, `${there} exists`);
  });

  it('check_cmd decides the result after the state ran', async () => {
    const h = harness(sls('a:\n  rec.state:\n    - check_cmd: "false"\nb:\n  rec.state:\n    - check_cmd:\n      - "true"\n'));
    const r = await h.call('state.sls', ['s']);
    const ids = byId(r.return);
    assert.equal(ids.a!.result, false);
    assert.equal(ids.a!.comment, 'check_cmd determined the state failed');
    assert.equal(ids.b!.result, true);
    assert.equal(r.retcode, 2);
  });

  it('retry: reruns until the result, waiting interval (+splay) between attempts; comments each attempt', async () => {
    const h = harness(sls('flaky:\n  rec.state:\n    - fail_times: 2\n    - retry:\n        attempts: 5\n        interval: 3\nhopeless:\n  rec.state:\n    - fail: true\n    - retry: true\n'));
    const r = await h.call('state.sls', ['s']);
    const ids = byId(r.return);
    assert.equal(h.attempts.get('flaky'), 3);
    assert.equal(ids.flaky!.result, true);
    assert.equal(
      ids.flaky!.comment,
      'Attempt 1: Returned a result of "False", with the following comment: "failed 1"\nAttempt 2: Returned a result of "False", with the following comment: "failed 2"\nok 3',
    );
    // retry: True is Salt's default: 2 attempts, 30 s apart
    assert.equal(h.attempts.get('hopeless'), 2);
    assert.equal(ids.hopeless!.result, false);
    assert.deepEqual(h.sleeps, [3000, 3000, 30000]);
  });

  it('failhard on a state stops the run after it fails; the failhard option does it for every state', async () => {
    const text = 'first:\n  rec.state: []\nbad:\n  rec.state:\n    - fail: true\n    - failhard: true\nlater:\n  rec.state: []\n';
    const h = harness(sls(text));
    const r = await h.call('state.sls', ['s']);
    assert.deepEqual(h.log, ['run:first', 'run:bad']);
    assert.deepEqual(Object.keys(byId(r.return)), ['first', 'bad']);
    assert.equal(r.retcode, 2);
    const h2 = harness(sls(text.replace('    - failhard: true\n', '')), { failhard: true });
    await h2.call('state.sls', ['s']);
    assert.deepEqual(h2.log, ['run:first', 'run:bad']);
    const h3 = harness(sls(text.replace('    - failhard: true\n', '')));
    await h3.call('state.sls', ['s']);
    assert.deepEqual(h3.log, ['run:first', 'run:bad', 'run:later']);
    // test=True never stops early (Salt's check_failhard)
    const h4 = harness(sls(text));
    const dry = await h4.call('state.sls', ['s'], { test: true });
    assert.equal(byId(dry.return).bad!.result, false);
    assert.deepEqual(Object.keys(byId(dry.return)), ['first', 'bad', 'later']);
  });
});

describe('test=True', () => {
  it('every state runs in test mode: result None where changes would be made, nothing retried; the test option is the default', async () => {
    const text = 'would:\n  rec.state:\n    - changes: true\n    - retry: true\nfine:\n  rec.state: []\nw:\n  test.succeed_with_changes: []\n';
    const h = harness(sls(text));
    const r = await h.call('state.sls', ['s'], { test: true });
    const ids = byId(r.return);
    assert.deepEqual(h.log, ['test:would', 'test:fine']);
    assert.equal(ids.would!.result, null);
    assert.match(ids.would!.comment, /The state would be retried every 30 seconds/);
    assert.equal(ids.fine!.result, true);
    assert.equal(ids.w!.result, null);
    assert.equal(r.retcode, 0);
    const h2 = harness(sls(text), { test: true });
    await h2.call('state.apply', ['s']);
    assert.deepEqual(h2.log, ['test:would', 'test:fine']);
    const h3 = harness(sls(text), { test: true });
    await h3.call('state.apply', ['s'], { test: false });
    assert.deepEqual(h3.log, ['run:would', 'run:fine']);
  });
});

describe('state.single and state.sls_id', () => {
  it('state.single runs one state function with its kwargs; a bad argument is a compile error', async () => {
    const h = harness({});
    const r = await h.call('state.single', ['rec.state'], { name: 'x', port: 7 });
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:x:7']);
    assert.deepEqual(Object.keys(r.return as object), ['rec_|-x_|-x_|-state']);
    const bad = await h.call('state.single', ['rec.state'], { name: 'x', port: 'seven' });
    assert.equal(bad.error?.code, 'STATE_COMPILE_FAILED');
    const nofun = await h.call('state.single', ['nothing'], { name: 'x' });
    assert.equal(nofun.error?.code, 'BAD_ARGUMENTS');
  });

  it('state.sls_id runs one ID and what it requires, nothing else', async () => {
    const h = harness(sls('a:\n  rec.state:\n    - require:\n      - b\nb:\n  rec.state: []\nc:\n  rec.state: []\n'));
    const r = await h.call('state.sls_id', ['a', 's']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['run:b', 'run:a']);
    const missing = await h.call('state.sls_id', ['zz', 's']);
    assert.equal(missing.error?.code, 'BAD_ARGUMENTS');
    assert.match(String(missing.error?.message), /No matches for ID 'zz' found in SLS 's' within saltenv 'base'/);
  });
});

describe('state.test, show_states, sls_exists', () => {
  it('state.test runs in test mode; show_states lists SLS names with includes; sls_exists checks files', async () => {
    const tree = { base: { 'a.sls': 'include: [b]\na:\n  rec.state: []\n', 'b/init.sls': 'b:\n  rec.state: []\n', 'top.sls': "base:\n  '*':\n    - a\n" } };
    const h = harness(tree);
    const r = await h.call('state.test', ['a']);
    assert.equal(r.retcode, 0);
    assert.deepEqual(h.log, ['test:b', 'test:a']);
    assert.deepEqual((await h.call('state.show_states')).return, ['b', 'a']);
    assert.equal((await h.call('state.sls_exists', ['a,b'])).return, true);
    assert.equal((await h.call('state.sls_exists', ['a,c'])).return, false);
    assert.deepEqual((await h.call('state.running')).return, []);
  });
});

describe('no file server', () => {
  it('state.apply without a file client fails with FILESERVER_UNAVAILABLE', async () => {
    const { createMinionRegistry } = await import('../../../src/state/index.js');
    const { makeCtx } = await import('../modules/context.js');
    const r = await createMinionRegistry().call('state.apply', ['x'], {}, makeCtx());
    assert.equal(r.error?.code, 'FILESERVER_UNAVAILABLE');
  });
});
