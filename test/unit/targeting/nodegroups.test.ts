// Nodegroups: expansion into compound expressions as Salt's nodegroup_comp does (N@ recursion,
// a plain list of IDs as L@), loops and unknown names as TARGET_INVALID, and the target the
// master sends to minions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandNodegroup, expandNodegroupRefs, matchTarget, minionMatches, targetForMinions } from '../../../src/targeting/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { GRAINS, IDS, lookup } from './fleet.js';

const GROUPS = {
  prodweb: 'web* and G@env:prod',
  dbs: 'G@roles:db',
  listed: ['web2', 'db2'],
  listed_string: 'web1 cache1',
  regexish: ['web[12]'],
  words: ['G@roles:cache', 'or', 'L@db1'],
  nested: 'N@prodweb or N@dbs',
  deeper: 'N@nested and not N@listed',
  self: 'web1 or N@self',
  loop_a: 'N@loop_b',
  loop_b: 'db* and N@loop_c',
  loop_c: 'N@loop_a',
  bad_ref: 'web* or N@nosuch',
  empty: [],
  number: 5,
  broken: 'web1 and',
};

test('nodegroups expand into compound expressions', () => {
  const cases: Array<[string, string]> = [
    ['prodweb', 'web* and G@env:prod'],
    ['listed', 'L@web2,db2'],
    ['listed_string', 'L@web1,cache1'],
    ['regexish', 'E@web[12]'],
    ['words', 'G@roles:cache or L@db1'],
    ['nested', '( web* and G@env:prod ) or ( G@roles:db )'],
    ['deeper', '( ( web* and G@env:prod ) or ( G@roles:db ) ) and not ( L@web2,db2 )'],
  ];
  for (const [name, expr] of cases) assert.equal(expandNodegroup(name, GROUPS), expr, name);
});

test('nodegroup targets select what their expansion selects, greedy rule included', () => {
  const sel = (name: string) => matchTarget(name, 'nodegroup', IDS, { grains: lookup, nodegroups: GROUPS }).matched;
  assert.deepEqual(sel('prodweb'), ['web1']);
  assert.deepEqual(sel('dbs'), ['db1', 'db2', 'fresh1']);
  assert.deepEqual(sel('listed'), ['web2', 'db2']);
  assert.deepEqual(sel('nested'), ['web1', 'db1', 'db2', 'fresh1']);
  assert.deepEqual(sel('deeper'), ['web1', 'db1', 'fresh1']);
  assert.deepEqual(sel('words'), ['web2', 'db1', 'cache1', 'fresh1']);
  // N@ inside a compound target is expanded with parentheses, so precedence cannot leak
  assert.deepEqual(matchTarget('N@prodweb or db1 and N@listed', 'compound', IDS, { grains: lookup, nodegroups: GROUPS }).matched, ['web1']);
});

test('minions receive the expanded compound expression, and it selects the same minions there', () => {
  const sent = targetForMinions('deeper', 'nodegroup', GROUPS);
  assert.deepEqual(sent, { tgt: expandNodegroup('deeper', GROUPS), tgtType: 'compound' });
  const master = matchTarget('deeper', 'nodegroup', IDS, { grains: lookup, nodegroups: GROUPS }).matched;
  for (const [id, grains] of Object.entries(GRAINS)) assert.equal(minionMatches(sent.tgt, sent.tgtType, id, grains), master.includes(id), id);
  assert.deepEqual(targetForMinions('N@listed and web*', 'compound', GROUPS), { tgt: '( L@web2,db2 ) and web*', tgtType: 'compound' });
  assert.deepEqual(targetForMinions('web*', 'glob', GROUPS), { tgt: 'web*', tgtType: 'glob' });
  assert.throws(
    () => minionMatches('prodweb', 'nodegroup', 'web1', {}),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
  );
});

test('loops, unknown names and bad definitions are TARGET_INVALID naming the problem', () => {
  const cases: Array<[string, RegExp]> = [
    ['self', /nodegroup loop: N@self -> N@self/],
    ['loop_a', /nodegroup loop: N@loop_a -> N@loop_b -> N@loop_c -> N@loop_a/],
    ['loop_c', /nodegroup loop: N@loop_c -> N@loop_a -> N@loop_b -> N@loop_c/],
    ['nosuch', /unknown nodegroup 'nosuch'; known nodegroups: bad_ref, broken, dbs/],
    ['bad_ref', /unknown nodegroup 'nosuch' \(used as N@nosuch in nodegroup 'bad_ref'\)/],
    ['empty', /nodegroup 'empty' is empty/],
    ['number', /must be a compound expression \(a string\) or a list/],
  ];
  for (const [name, message] of cases) {
    assert.throws(
      () => matchTarget(name, 'nodegroup', IDS, { grains: lookup, nodegroups: GROUPS }),
      (e: unknown) => isBrineError(e, 'TARGET_INVALID') && message.test(e.message),
      name,
    );
    assert.throws(
      () => targetForMinions(name, 'nodegroup', GROUPS),
      (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
      name,
    );
  }
  assert.throws(
    () => matchTarget('web1 or N@loop_b', 'compound', IDS, { nodegroups: GROUPS }),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID') && /loop/.test(e.message),
  );
  assert.throws(
    () => matchTarget('x', 'nodegroup', IDS, {}),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID') && /defines no nodegroups/.test(e.message),
  );
  assert.throws(
    () => matchTarget('__proto__', 'nodegroup', IDS, { nodegroups: GROUPS }),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID') && /unknown nodegroup/.test(e.message),
  );
  assert.throws(
    () => matchTarget('broken', 'nodegroup', IDS, { nodegroups: GROUPS }),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID') && /^nodegroup 'broken' in the master config: compound target "web1 and": at the end/.test(e.message),
  );
});

test('expandNodegroupRefs leaves expressions without N@ alone', () => {
  assert.equal(expandNodegroupRefs('web*  and\tG@os:Debian', GROUPS), 'web* and G@os:Debian');
  assert.equal(expandNodegroupRefs('N@', GROUPS), 'N@', 'N@ with no name is a glob, as in Salt');
});
