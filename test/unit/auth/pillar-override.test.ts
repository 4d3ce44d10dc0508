// Threats.md #45 (issue 21 point 6, second half): a `pillar=` override is its own permission,
// '@pillar_override', since an inline pillar value with newlines interpolated into an SLS adds
// states (a user allowed only state.apply would run cmd.run).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type AclEntry, type AclRequest, checkAcl } from '../../../src/auth/index.js';
import { matchTarget, type TargetType } from '../../../src/targeting/index.js';
import { IDS, lookup } from '../targeting/fleet.js';

const minionsOf = (tgt: string | string[], tgtType: string): string[] => matchTarget(tgt, tgtType as TargetType, IDS, { grains: lookup }).matched;
const INJECT = { motd: 'hi\nevil:\n  cmd.run:\n    - name: id' };
const local = (fun: string, kwarg: Record<string, unknown> = {}, tgt = 'web1', arg: unknown[] = []): AclRequest => ({ client: 'local', fun, tgt, tgtType: 'glob', arg, kwarg });

test('pillar= on state.apply, state.sls, state.highstate and pillar.items needs @pillar_override: PILLAR_OVERRIDE_DENIED', () => {
  const entries: AclEntry[] = ['state.*', 'pillar.items'];
  for (const fun of ['state.apply', 'state.sls', 'state.highstate', 'pillar.items']) {
    const d = checkAcl(entries, local(fun, { pillar: INJECT }), minionsOf);
    assert.equal(d.allowed, false, fun);
    if (!d.allowed) {
      assert.equal(d.code, 'PILLAR_OVERRIDE_DENIED', fun);
      assert.match(d.reason, new RegExp(`a pillar= override on ${fun.replace('.', '\\.')} needs its own grant, '@pillar_override'`));
    }
    // the same call without pillar= (or with pillar=None) is allowed as before
    assert.deepEqual(checkAcl(entries, local(fun), minionsOf), { allowed: true });
    assert.deepEqual(checkAcl(entries, local(fun, { pillar: null }), minionsOf), { allowed: true });
  }
  // the override as JSON text is an override too
  assert.equal(checkAcl(entries, local('state.apply', { pillar: JSON.stringify(INJECT) }), minionsOf).allowed, false);
});

test("'@pillar_override' grants it everywhere; inside a target-restricted entry only on that entry's minions", () => {
  assert.deepEqual(checkAcl(['state.apply', '@pillar_override'], local('state.apply', { pillar: INJECT }, '*'), minionsOf), { allowed: true });
  const web: AclEntry[] = ['state.apply', { 'web*': ['@pillar_override'] }];
  assert.deepEqual(checkAcl(web, local('state.apply', { pillar: INJECT }, 'web*'), minionsOf), { allowed: true, within: ['web1', 'web2'] });
  const outside = checkAcl(web, local('state.apply', { pillar: INJECT }, 'db1'), minionsOf);
  assert.equal(outside.allowed, false, 'the grant covers web* only');
  // '@pillar_override' grants no function by itself
  assert.equal(checkAcl(['@pillar_override'], local('state.apply', { pillar: INJECT }), minionsOf).allowed, false);
  assert.equal(checkAcl([{ 'web*': ['@pillar_override'] }], local('test.ping'), minionsOf).allowed, false);
});

test('a pillar key inside the arguments of a function that runs another one needs the grant too', () => {
  const entries: AclEntry[] = ['schedule.add', 'state.apply', 'test.*'];
  const scheduled = local('schedule.add', { function: 'state.apply', seconds: 60, job_kwargs: { pillar: INJECT } }, 'web1', ['nightly']);
  const d = checkAcl(entries, scheduled, minionsOf);
  assert.equal(d.allowed, false);
  if (!d.allowed) assert.equal(d.code, 'PILLAR_OVERRIDE_DENIED');
  assert.equal(checkAcl([...entries, '@pillar_override'], scheduled, minionsOf).allowed, true);
  assert.equal(checkAcl(entries, local('schedule.add', { function: 'state.apply', seconds: 60 }, 'web1', ['nightly']), minionsOf).allowed, true);
  // a compound command publishes the request's kwargs with it
  const compound: AclRequest = { client: 'local', fun: 'test.ping,state.apply', tgt: 'web1', tgtType: 'glob', arg: [[], []], kwarg: { pillar: INJECT } };
  assert.equal(checkAcl(entries, compound, minionsOf).allowed, false);
  // a string argument that merely contains "pillar=" is not a keyword (the minion never parses it as one)
  assert.equal(checkAcl(['test.*'], local('test.echo', {}, 'web1', ['pillar={"a": 1}']), minionsOf).allowed, true);
});
