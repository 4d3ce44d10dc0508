// Compound targets: Salt's grammar (not > and > or, parentheses, engines, bare globs), set
// algebra on the master with the greedy rule, the same answer from the minion's re-check, and
// TARGET_INVALID with the position and word for malformed expressions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { matchTarget, minionMatches, parseCompound } from '../../../src/targeting/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { GRAINS, IDS, lookup } from './fleet.js';

const expected = (expr: string) => matchTarget(expr, 'compound', IDS, { grains: lookup });

// [expression, expected minions]; fresh1 has no cached grains, so every G@/P@/S@ term keeps it
const TABLE: Array<[string, string[]]> = [
  ['web*', ['web1', 'web2']],
  ['web* and G@env:prod', ['web1']],
  ['web* or db*', ['web1', 'web2', 'db1', 'db2']],
  ['not web*', ['db1', 'db2', 'cache1', 'fresh1']],
  ['G@os:Debian', ['web1', 'db1', 'cache1', 'fresh1']],
  ['G@os:Debian and not G@roles:db', ['web1', 'cache1']],
  // not binds tighter than and, and tighter than or (Python's precedence, which Salt evaluates)
  ['not web* and G@env:prod', ['db1', 'cache1', 'fresh1']],
  ['not ( web* and G@env:prod )', ['web2', 'db1', 'db2', 'cache1', 'fresh1']],
  ['web1 or db1 and G@env:dev', ['web1']],
  ['( web1 or db1 ) and G@env:dev', []],
  ['db1 and G@env:dev or web2', ['web2']],
  ['db1 and ( G@env:dev or web2 )', []],
  ['web* or db* and G@env:prod', ['web1', 'web2', 'db1']],
  ['not db1 or db1', IDS],
  ['( ( web1 ) )', ['web1']],
  // Salt reads a `not` right after a target as `and not`
  ['web* not G@env:dev', ['web1']],
  ['E@^(web|db)1$ or L@cache1', ['web1', 'db1', 'cache1']],
  ['P@os:^(ubuntu|fedora) and not S@10.0.2.0/24', ['web2']], // fresh1 is in S@ (greedy), so not S@ drops it
  ['S@10.0.1.0/24 or S@192.168.5.1', ['web1', 'web2', 'cache1', 'fresh1']],
  ['G;@roles;cache', ['web2', 'cache1', 'fresh1']],
  ['X@foo', []], // not an engine letter: a glob, as in Salt
  ['nomatch*', []],
  ['  web1\tor\ndb2  ', ['web1', 'db2']],
];

test('compound expressions select the same minions as Salt', () => {
  for (const [expr, want] of TABLE) assert.deepEqual(expected(expr).matched, want, expr);
});

test('a minion re-checking a compound target agrees with the master', () => {
  for (const [expr, want] of TABLE) {
    for (const [id, grains] of Object.entries(GRAINS)) assert.equal(minionMatches(expr, 'compound', id, grains), want.includes(id), `${expr} on ${id}`);
  }
});

test('L@ entries that are not accepted are reported missing, except under not', () => {
  assert.deepEqual(expected('L@web1,ghost or db1'), { matched: ['web1', 'db1'], missing: ['ghost'] });
  assert.deepEqual(expected('web* and not L@web2,ghost'), { matched: ['web1'], missing: [] });
});

test('a list of words is accepted as Salt accepts it', () => {
  assert.deepEqual(matchTarget(['web*', 'and', 'G@env:prod'], 'compound', IDS, { grains: lookup }).matched, ['web1']);
});

test('with minion_data_cache off a valid compound target expects every accepted minion; a malformed one is still refused', () => {
  assert.deepEqual(matchTarget('web1 and G@os:Nothing', 'compound', IDS, { grains: lookup, dataCache: false }).matched, IDS);
  assert.throws(
    () => matchTarget('web1 and', 'compound', IDS, { dataCache: false }),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
  );
});

// [expression, position, word, what the message says]
const MALFORMED: Array<[string, number | undefined, string | undefined, RegExp]> = [
  ['', undefined, undefined, /empty/],
  ['and web1', 1, 'and', /cannot begin with "and"/],
  ['or web1', 1, 'or', /cannot begin with "or"/],
  ['web1 and', undefined, undefined, /at the end: .*a target is missing/],
  ['web1 or or db1', 9, 'or', /"or" cannot follow "or"/],
  ['( and web1 )', 3, 'and', /"and" cannot follow '\('/],
  ['( web1 or db1', 1, '(', /never closed/],
  ['web1 )', 6, ')', /no matching '\('/],
  ['( )', 3, ')', /'\(\)' is empty/],
  ['web1 db1', 6, 'db1', /expected 'and', 'or' or the end/],
  ['web1 ( db1 )', 6, '(', /expected 'and', 'or' or the end/],
  ['not not web1', 5, 'not', /'not not'/],
  ['web1 and not', undefined, undefined, /"not" needs a target/],
  ['G@os', 1, 'G@os', /not key:value/],
  ['web1 and P@os:(deb', 10, 'P@os:(deb', /not a valid regular expression/],
  ['E@web[', 1, 'E@web[', /not a valid regular expression/],
  ['S@10.0.0.1/8', 1, 'S@10.0.0.1/8', /host bits set/],
  ['I@role', 1, 'I@role', /not key:value: it needs a pillar key/],
  ['J@role:(w', 1, 'J@role:(w', /not a valid regular expression/],
  ['R@%cluster', 1, 'R@%cluster', /range .* not supported/],
];

test('malformed expressions are TARGET_INVALID naming the position and the word', () => {
  for (const [expr, pos, word, what] of MALFORMED) {
    for (const attempt of [() => expected(expr), () => minionMatches(expr, 'compound', 'web1', GRAINS.web1)]) {
      assert.throws(attempt, (e: unknown) => {
        assert.ok(isBrineError(e, 'TARGET_INVALID'), `${expr}: ${String(e)}`);
        assert.match(e.message, what, expr);
        if (pos !== undefined) {
          assert.match(e.message, new RegExp(`at position ${pos} \\(${JSON.stringify(word).replace(/[()[\]*.]/g, '\\$&')}\\)`), expr);
          assert.equal(e.details.position, pos);
          assert.equal(e.details.token, word);
        }
        return true;
      });
    }
  }
});

test('N@ cannot reach a minion unexpanded', () => {
  assert.throws(
    () => minionMatches('N@group', 'compound', 'web1', {}),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID') && /expanded by the master/.test(e.message),
  );
});

// Property: print a random tree with the fewest parentheses precedence allows, parse it back,
// and the master's set and the minion's boolean both equal a direct evaluation of the tree.
type Tree = { t: 'term'; word: string } | { t: 'not'; x: Tree } | { t: 'and' | 'or'; l: Tree; r: Tree };
const TERMS = ['web*', 'db*', '*1', 'G@env:prod', 'G@roles:cache', 'G@os:Debian', 'E@.*2$', 'L@web2,db1', 'S@10.0.1.0/24', 'P@os:^u'];
const PREC = { or: 1, and: 2, not: 3, term: 4 } as const;
const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...TERMS).map((word): Tree => ({ t: 'term', word })),
    tie('tree').map((x): Tree => ({ t: 'not', x })),
    fc.tuple(fc.constantFrom('and' as const, 'or' as const), tie('tree'), tie('tree')).map(([t, l, r]): Tree => ({ t, l, r })),
  ),
})).tree;

function print(n: Tree, min: number): string {
  const wrap = (s: string, p: number) => (p < min ? `( ${s} )` : s);
  switch (n.t) {
    case 'term':
      return n.word;
    case 'not':
      return wrap(`not ${print(n.x, PREC.term)}`, PREC.not);
    case 'and':
      return wrap(`${print(n.l, PREC.and)} and ${print(n.r, PREC.not)}`, PREC.and);
    case 'or':
      return wrap(`${print(n.l, PREC.or)} or ${print(n.r, PREC.and)}`, PREC.or);
  }
}

function evaluate(n: Tree, id: string): boolean {
  switch (n.t) {
    case 'term':
      return minionMatches(n.word, 'compound', id, GRAINS[id]);
    case 'not':
      return !evaluate(n.x, id);
    case 'and':
      return evaluate(n.l, id) && evaluate(n.r, id);
    case 'or':
      return evaluate(n.l, id) || evaluate(n.r, id);
  }
}

test('property: precedence-minimal printing parses back to the same selection on both sides', () => {
  const withGrains = Object.keys(GRAINS);
  fc.assert(
    fc.property(tree, (t) => {
      const expr = print(t, 0);
      parseCompound(expr);
      const master = matchTarget(expr, 'compound', withGrains, { grains: lookup }).matched;
      for (const id of withGrains) {
        const direct = evaluate(t, id);
        assert.equal(master.includes(id), direct, `${expr} on ${id} (master)`);
        assert.equal(minionMatches(expr, 'compound', id, GRAINS[id]), direct, `${expr} on ${id} (minion)`);
      }
    }),
    { numRuns: 300 },
  );
});
