// Threats.md #43 (issue 21 point 4): a user limited to some minions must not read other minions'
// pillar or grains from allow/deny. The ACL evaluates such a user's target only inside its own
// minions; the answer is the same whatever the hidden data holds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type AclEntry, type AclRequest, checkAcl, type MinionsOf } from '../../../src/auth/index.js';
import { matchTarget, selectsByNameAlone, type Grains, type TargetType } from '../../../src/targeting/index.js';
import { IDS, lookup } from '../targeting/fleet.js';

/** The master's matchTarget over the shared fleet, with db1's secret in its pillar. */
function fleetWithSecret(secret: string): MinionsOf {
  const pillar: Record<string, Grains> = { db1: { dbpass: secret }, web1: { role: 'web' }, web2: { role: 'web' } };
  return (tgt, tgtType) => matchTarget(tgt, tgtType as TargetType, IDS, { grains: lookup, pillar: (id) => pillar[id] ?? {} }).matched;
}

const local = (tgt: string | string[], tgtType = 'compound', fun = 'test.ping'): AclRequest => ({ client: 'local', fun, tgt, tgtType, arg: [], kwarg: {} });
const WEB: AclEntry[] = [{ 'web*': ['test.*'] }];

test('a web*-restricted user gets one answer for `web1 or ( db1 and J@dbpass:^<c> )` whatever db1 pillar holds', () => {
  const minionsOf = fleetWithSecret('hunter2');
  const answers = new Map<string, string>();
  for (const c of 'abcdefghijklmnopqrstuvwxyz') {
    const d = checkAcl(WEB, local(`web1 or ( db1 and J@dbpass:^${c} )`), minionsOf);
    answers.set(c, JSON.stringify(d));
  }
  assert.equal(new Set(answers.values()).size, 1, `the answer must not depend on the letter: ${JSON.stringify([...answers])}`);
  assert.deepEqual(JSON.parse(answers.get('h')!), { allowed: true, within: ['web1', 'web2'] }, 'runs, but only inside the user minions');
  // grains too, and a target that selects only through hidden data
  for (const pair of [
    ['web1 or ( db1 and G@os:Debian )', 'web1 or ( db1 and G@os:Plan9 )'],
    ['db1 and J@dbpass:^h', 'db1 and J@dbpass:^x'],
    ['J@dbpass:^h', 'J@dbpass:^x'],
    ['web1 or not J@dbpass:^h', 'web1 or not J@dbpass:^x'],
  ]) {
    const [a, b] = pair.map((t) => checkAcl(WEB, local(t!), minionsOf));
    assert.deepEqual(a, b, `${pair[0]} / ${pair[1]}`);
  }
  const none = checkAcl(WEB, local('db1 and J@dbpass:^h'), minionsOf);
  assert.deepEqual(none, { allowed: false, reason: 'the target matches none of the minions you may run test.ping on' });
  // the same secret with another first letter changes nothing either
  assert.deepEqual(checkAcl(WEB, local('web1 or ( db1 and J@dbpass:^h )'), fleetWithSecret('xyzzy')), JSON.parse(answers.get('h')!));
});

test('targets that name other minions by ID are still refused, as in Salt; data terms never are', () => {
  const minionsOf = fleetWithSecret('hunter2');
  const refusedByName = (tgt: string, type = 'compound') => {
    const d = checkAcl(WEB, local(tgt, type), minionsOf);
    return !d.allowed && d.reason === 'the target names minions outside those you may run test.ping on';
  };
  assert.equal(refusedByName('*', 'glob'), true);
  assert.equal(refusedByName('db1', 'glob'), true);
  assert.equal(refusedByName('web1,db1', 'list'), true);
  assert.equal(refusedByName('web1 or db1'), true);
  assert.equal(refusedByName('web1 or L@db1'), true);
  assert.equal(refusedByName('web1 or E@^db'), true);
  assert.equal(refusedByName('* and not web*'), true);
  // an ID term joined to a data term by `and` depends on the data: never a refusal by name
  assert.equal(refusedByName('db1 and J@dbpass:^h'), false);
  assert.equal(refusedByName('db1 and not G@os:Debian'), false);
  assert.equal(refusedByName('G@os:Debian'), false);
  assert.equal(refusedByName('os:Debian', 'grain'), false);
  assert.equal(refusedByName('dbpass:h*', 'pillar'), false);
});

test('the restricted user still runs its functions on its own minions, with grain and pillar terms among them', () => {
  const minionsOf = fleetWithSecret('hunter2');
  assert.deepEqual(checkAcl(WEB, local('web*', 'glob'), minionsOf), { allowed: true, within: ['web1', 'web2'] });
  assert.deepEqual(checkAcl(WEB, local('web* and G@os:Debian'), minionsOf), { allowed: true, within: ['web1', 'web2'] });
  assert.deepEqual(checkAcl(WEB, local('I@role:web'), minionsOf), { allowed: true, within: ['web1', 'web2'] });
  // two restricted entries for the same function add up; an unrestricted one lifts the scope
  const two: AclEntry[] = [{ 'web*': ['test.*'] }, { 'db*': ['test.ping'] }];
  assert.deepEqual(checkAcl(two, local('web1 or db1'), minionsOf), { allowed: true, within: ['web1', 'web2', 'db1', 'db2'] });
  assert.deepEqual(checkAcl([...WEB, 'test.ping'], local('*', 'glob'), minionsOf), { allowed: true });
  // every function of a compound command must be allowed where the job runs
  const mixed: AclEntry[] = [{ 'web*': ['test.ping'] }, 'test.echo'];
  assert.deepEqual(checkAcl(mixed, { ...local('web1', 'glob', 'test.ping,test.echo'), arg: [[], ['hi']] }, minionsOf), { allowed: true, within: ['web1', 'web2'] });
});

test('selectsByNameAlone: Kleene logic over ID terms, data terms unknown', () => {
  const sel = (tgt: string, type: TargetType = 'compound') => selectsByNameAlone(tgt, type)('db1');
  assert.equal(sel('db1', 'glob'), true);
  assert.equal(sel('^db', 'pcre'), true);
  assert.equal(sel('db1,web1', 'list'), true);
  assert.equal(sel('G@os:Debian or db*'), true);
  assert.equal(sel('G@os:Debian and db*'), false);
  assert.equal(sel('not G@os:Debian'), false);
  assert.equal(sel('not web1'), true);
  assert.equal(sel('not ( web1 and G@x:y )'), true, 'web1 is false for db1, so the and is false');
  assert.equal(sel('os:Debian', 'grain'), false);
  assert.equal(sel('dbs', 'nodegroup'), false, 'a nodegroup is data to the user');
  assert.equal(sel('N@dbs or web1'), false);
});

test("the user's target is evaluated among its own minions alone: db1's pillar and grains are never read", () => {
  const read: string[] = [];
  const pillar: Record<string, Grains> = { db1: { dbpass: 'hunter2' }, web1: { role: 'web' }, web2: { role: 'web' } };
  const minionsOf: MinionsOf = (tgt, tgtType, within) =>
    matchTarget(tgt, tgtType as TargetType, within === undefined ? IDS : IDS.filter((id) => within.has(id)), {
      grains: (id) => {
        read.push(`grains:${id}`);
        return lookup(id);
      },
      pillar: (id) => {
        read.push(`pillar:${id}`);
        return pillar[id] ?? {};
      },
    }).matched;
  const d = checkAcl(WEB, local('web1 or ( db1 and J@dbpass:^h ) or G@os:Debian'), minionsOf);
  assert.equal(d.allowed, true);
  assert.deepEqual(
    read.filter((r) => !/:web\d$/.test(r)),
    [],
    'only the grains and pillar of web minions are read',
  );
});
