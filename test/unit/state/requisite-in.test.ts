// The `_in` requisites found as Salt 3007's HighState.requisite_in finds them, and the argument
// shapes Salt's compile_high_data takes (issue 22, corpus: prometheus-formula, nginx-formula,
// php-formula, samba-formula, SnapServ). Smallest trees reproducing each corpus failure.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { byId, harness } from './harness.js';

describe('_in requisites as Salt finds them', () => {
  it('require_in: - sls: x names the states of x itself, not what x includes (prometheus-formula: no false cycle)', async () => {
    // prometheus-formula's shape: the package requires the repo SLS and is required_in by the
    // service SLS, which includes (through config) the repo SLS. Salt's find_sls_ids matches
    // __sls__ exactly, so the repo state is not made to require the package: no cycle.
    const tree = {
      'svc.sls': 'include:\n  - conf\nservice_x:\n  rec.state: []\n',
      'conf.sls': 'include:\n  - repo\nconf_x:\n  rec.state: []\n',
      'repo.sls': 'repo_x:\n  rec.state: []\n',
      'pkg.sls': 'include:\n  - svc\n  - repo\npkg_x:\n  rec.state:\n    - require:\n      - sls: repo\n    - require_in:\n      - sls: svc\n',
    };
    const h = harness({ base: tree });
    const r = await h.call('state.sls', ['pkg']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    // repo first (pkg requires it), then pkg, then svc's own state (it requires pkg); conf_x,
    // which svc merely includes, is not ordered after pkg by the require_in
    const order = h.log.map((l) => l.slice('run:'.length));
    assert.ok(order.indexOf('repo_x') < order.indexOf('pkg_x'), order.join());
    assert.ok(order.indexOf('pkg_x') < order.indexOf('service_x'), order.join());
    assert.ok(order.indexOf('conf_x') < order.indexOf('pkg_x'), `conf_x keeps its own place: ${order.join()}`);
  });

  it('an _in sls naming no state is nothing; an _in naming no state is Salt\'s "Cannot extend ID" error', async () => {
    const h = harness({ base: { 'a.sls': 'a:\n  rec.state:\n    - require_in:\n      - sls: not.in.run\n' } });
    const r = await h.call('state.sls', ['a']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    const bad = await harness({ base: { 'b.sls': 'b:\n  rec.state:\n    - require_in:\n      - rec: nginx_config\n' } }).call('state.sls', ['b']);
    assert.equal(bad.error?.code, 'STATE_COMPILE_FAILED');
    assert.deepEqual(bad.return, [
      "Cannot extend ID 'nginx_config' in 'base:b'. It is not part of the high state.\nThis is likely due to a missing include statement or an incorrectly typed ID.\nEnsure that a state with an ID of 'nginx_config' is available\nin environment 'base' and to SLS 'b'",
    ]);
  });

  it('an _in by name finds the one state whose name it is (find_name), and adds the requisite to it', async () => {
    const h = harness({ base: { 'a.sls': 'late:\n  rec.state:\n    - name: /etc/late\n    - order: 1\nearly:\n  rec.state:\n    - watch_in:\n      - rec: /etc/late\n' } });
    const r = await h.call('state.sls', ['a']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    // order 1 would run late first; the watch_in makes it wait for early
    assert.deepEqual(h.log, ['run:early', 'run:/etc/late']);
  });
});

describe('argument shapes Salt compiles', () => {
  it("`__env__` as an argument (php-formula) compiles; a text names the state's environment, fun/state are dropped", async () => {
    const tree = {
      'a.sls':
        'php_ppa:\n  rec.state:\n    - __env__:\n      - LC_ALL: C.UTF-8\n    - show_env: true\nother:\n  rec.state:\n    - __env__: dev\n    - show_env: true\n    - state: file\n    - fun: managed\n',
    };
    const h = harness({ base: tree, dev: {} });
    const r = await h.call('state.sls', ['a']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    assert.deepEqual(h.log, ['saltenv:php_ppa:base', 'run:php_ppa', 'saltenv:other:dev', 'run:other']);
  });

  it('an empty mapping for an optional list argument is not set (SnapServ: pkg.installed sources: {})', async () => {
    const h = harness({ base: { 'a.sls': 'p:\n  pkg.installed:\n    - sources: {}\n' } });
    const low = await h.call('state.show_low_sls', ['a']);
    assert.equal(low.success, true, JSON.stringify(low.return));
    // a non-empty mapping is still the wrong type
    const bad = await harness({ base: { 'a.sls': 'p:\n  pkg.installed:\n    - sources: {a: b}\n' } }).call('state.show_low_sls', ['a']);
    assert.equal(bad.error?.code, 'STATE_COMPILE_FAILED');
  });

  it('a boolean in an onlyif list ends the checks and the state runs, as Salt\'s "bad type passed" (samba-formula)', async () => {
    const h = harness({ base: { 'a.sls': 'runs:\n  rec.state:\n    - onlyif:\n      - "true"\n      - False\nskipped:\n  rec.state:\n    - onlyif:\n      - "false"\n      - True\n' } });
    const r = await h.call('state.sls', ['a']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    const e = byId(r.return);
    assert.equal(e.skipped!.comment, 'onlyif condition is false');
    assert.deepEqual(h.log, ['run:runs']);
  });
});
