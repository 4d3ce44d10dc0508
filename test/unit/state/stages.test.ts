// The pure stages one by one: relative include resolution, Salt's SLS variables, order numbers,
// the ordered graph, the requisite decision and the retry policy.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveInclude } from '../../../src/state/compiler/assemble-high.js';
import type { LowChunk } from '../../../src/state/compiler/high-types.js';
import { assignOrder, orderChunks, rawOrders } from '../../../src/state/compiler/ordering.js';
import { parseSls } from '../../../src/state/compiler/parse-sls.js';
import type { Requisite } from '../../../src/state/compiler/requisites.js';
import { requisiteStatus } from '../../../src/state/runtime/requisite-status.js';
import { retryPolicy } from '../../../src/state/runtime/retry.js';
import { formatStartTime, microsNow } from '../../../src/state/runtime/runner.js';
import { slsVariables } from '../../../src/state/sls-render.js';
import type { StateResult } from '../../../src/state/index.js';

describe('resolveInclude', () => {
  it("resolves '.x' from a file to its package, from an init.sls to itself, and '..' one level further up", () => {
    assert.equal(resolveInclude('.conf', 'web.server', 'salt://web/server.sls'), 'web.conf');
    assert.equal(resolveInclude('.conf', 'web', 'salt://web/init.sls'), 'web.conf');
    assert.equal(resolveInclude('..common', 'web.server', 'salt://web/server.sls'), 'common');
    assert.equal(resolveInclude('..common', 'a.b.c', 'salt://a/b/c/init.sls'), 'a.b.common');
    assert.equal(resolveInclude('...x', 'web', 'salt://web.sls'), undefined);
    assert.equal(resolveInclude('plain.name', 'web', 'salt://web.sls'), 'plain.name');
  });
});

describe('slsVariables', () => {
  it('computes sls, slspath, tpldir, tplfile as Salt generate_sls_context does', () => {
    assert.deepEqual(slsVariables('web.nginx', 'web/nginx.sls'), {
      sls: 'web.nginx',
      slspath: 'web',
      slsdotpath: 'web',
      slscolonpath: 'web',
      sls_path: 'web',
      tpldir: 'web',
      tpldot: 'web',
      tplfile: 'web/nginx.sls',
      tplpath: 'web/nginx.sls',
    });
    assert.equal(slsVariables('a.b', 'a/b/init.sls').slspath, 'a/b');
    assert.equal(slsVariables('a.b', 'a/b/init.sls').sls_path, 'a_b');
    assert.equal(slsVariables('top', 'top.sls').tpldir, '.');
    assert.equal(slsVariables('top', 'top.sls').slspath, '');
  });
});

describe('parseSls', () => {
  it('keeps include, extend and exclude apart from the IDs, and skips __ keys', () => {
    const { parsed, errors } = parseSls(
      { include: ['a', { dev: 'b' }], exclude: ['c', { id: 'd' }], extend: { x: { 'pkg.installed': [{ version: 1 }] } }, __meta: 1, vim: 'pkg.installed' },
      's',
      'base',
      'salt://s.sls',
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(parsed.include, [{ sls: 'a' }, { sls: 'b', env: 'dev' }]);
    assert.deepEqual(parsed.exclude, [{ sls: 'c' }, { id: 'd' }]);
    assert.deepEqual(parsed.extend[0]!.decls, [{ state: 'pkg', fun: 'installed', args: [['version', 1]] }]);
    assert.deepEqual(
      parsed.ids.map((h) => [h.id, h.decls]),
      [['vim', [{ state: 'pkg', fun: 'installed', args: [] }]]],
    );
  });
});

function chunk(id: string, order?: unknown, extra: Record<string, unknown> = {}): LowChunk {
  return { __id__: id, __sls__: 's', __env__: 'base', state: 'test', fun: 'nop', name: id, ...(order === undefined ? {} : { order }), ...extra } as LowChunk;
}

describe('assignOrder', () => {
  it("numbers like Salt's order_chunks: first 0, no order = cap, last after cap, negative counts back from last", () => {
    const cs = [chunk('a', 'first'), chunk('b'), chunk('c', 5), chunk('d', 'last'), chunk('e', -1), chunk('f', 7, { name_order: 2 })];
    assert.deepEqual(assignOrder(cs), []);
    // cap: Salt raises it to n + 100 only for an order above the current cap - 1 (5 -> 105; 7 < 104)
    assert.deepEqual(
      cs.map((c) => c.order),
      [0, 105, 5, 1000105, 1000104, 7.0002],
    );
  });
});

describe('orderChunks', () => {
  it('sorts by order, then each state after everything it requires, depth first', () => {
    const cs = [chunk('a', 1), chunk('b', 2), chunk('c', 3), chunk('d', 4)];
    const reqs: Requisite[][] = [[{ kind: 'require', target: 3 }], [], [{ kind: 'watch', target: 1 }], []];
    assert.deepEqual(orderChunks(cs, reqs, rawOrders(cs)).order, [3, 0, 1, 2]);
  });

  it('prereq runs the prereq state before its target, after the target own requisites', () => {
    const cs = [chunk('stop', 1), chunk('site', 2), chunk('pkg', 3)];
    const reqs: Requisite[][] = [[{ kind: 'prereq', target: 1 }], [{ kind: 'require', target: 2 }], []];
    assert.deepEqual(orderChunks(cs, reqs, rawOrders(cs)).order, [2, 0, 1]);
  });

  it('reports each cycle once with all its states; use edges are not ordering edges', () => {
    const cs = [chunk('a', 1), chunk('b', 2), chunk('c', 3), chunk('u', 4)];
    const reqs: Requisite[][] = [[{ kind: 'require', target: 1 }], [{ kind: 'onchanges', target: 0 }], [{ kind: 'use', target: 3 }], [{ kind: 'use', target: 2 }]];
    const { errors } = orderChunks(cs, reqs, rawOrders(cs));
    assert.equal(errors.length, 1);
    assert.deepEqual(errors[0]!.states, ['s:a', 's:b']);
  });
});

const res = (result: boolean | null, changes: Record<string, unknown> = {}): StateResult => ({ name: 'x', result, changes, comment: '' });

describe('requisiteStatus', () => {
  const at = (m: Record<number, StateResult>) => (j: number) => m[j];
  it('fail wins over everything and lists every failed requisite', () => {
    const reqs: Requisite[] = [
      { kind: 'require', target: 0 },
      { kind: 'onchanges', target: 1 },
      { kind: 'watch', target: 2 },
    ];
    assert.deepEqual(requisiteStatus(reqs, [], at({ 0: res(false), 1: res(true), 2: res(false) }), at({})), { kind: 'fail', failed: [0, 2] });
  });
  it('onchanges needs one changed state; under test=True a None result with changes counts', () => {
    const reqs: Requisite[] = [
      { kind: 'onchanges', target: 0 },
      { kind: 'onchanges', target: 1 },
    ];
    assert.equal(requisiteStatus(reqs, [], at({ 0: res(true), 1: res(true) }), at({})).kind, 'onchanges');
    assert.equal(requisiteStatus(reqs, [], at({ 0: res(true), 1: res(null, { a: 1 }) }), at({})).kind, 'met');
  });
  it('onfail needs a failed state, and a failed onfail target is not a requisite failure', () => {
    const reqs: Requisite[] = [{ kind: 'onfail', target: 0 }];
    assert.equal(requisiteStatus(reqs, [], at({ 0: res(true) }), at({})).kind, 'onfail');
    assert.equal(requisiteStatus(reqs, [], at({ 0: res(false) }), at({})).kind, 'met');
  });
  it('watch with changes is change; prereq target test result decides pre/met; a failed prereq state fails its target', () => {
    assert.equal(requisiteStatus([{ kind: 'watch', target: 0 }], [], at({ 0: res(true, { x: 1 }) }), at({})).kind, 'change');
    assert.equal(requisiteStatus([{ kind: 'prereq', target: 0 }], [], at({}), at({ 0: res(true) })).kind, 'pre');
    assert.equal(requisiteStatus([{ kind: 'prereq', target: 0 }], [], at({}), at({ 0: res(null, { x: 1 }) })).kind, 'met');
    assert.deepEqual(requisiteStatus([], [5], at({ 5: res(false) }), at({})), { kind: 'fail', failed: [5] });
  });
});

describe('retry policy and start_time', () => {
  it("retry: True is Salt's defaults; a mapping overrides some", () => {
    assert.deepEqual(retryPolicy(true), { attempts: 2, until: true, interval: 30, splay: 0 });
    assert.deepEqual(retryPolicy({ attempts: 4, splay: 2 }), { attempts: 4, until: true, interval: 30, splay: 2 });
    assert.equal(retryPolicy(false), undefined);
  });
  it('start_time is HH:MM:SS.ffffff with real microseconds, as Python time().isoformat() (salt/state.py State.call)', () => {
    assert.equal(formatStartTime(new Date(2026, 0, 2, 3, 4, 5, 67)), '03:04:05.067000');
    const t = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();
    // fractions exact in binary: an epoch in ms as a double resolves about 0.25 µs
    assert.equal(formatStartTime(t + 0.125), '03:04:05.067125');
    assert.equal(formatStartTime(t + 0.99951171875), '03:04:05.067999');
    // isoformat() leaves the fraction out when the microseconds are 0
    assert.equal(formatStartTime(new Date(2026, 0, 2, 3, 4, 5, 0)), '03:04:05');
  });
  it('the default clock gives microseconds, not a millisecond padded with 000', () => {
    const samples = Array.from({ length: 20 }, () => formatStartTime(microsNow()));
    assert.ok(
      samples.some((s) => !s.endsWith('000')),
      samples.join(' '),
    );
    assert.ok(Math.abs(microsNow() - Date.now()) < 2);
  });
});
