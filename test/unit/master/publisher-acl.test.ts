// The control socket's decision (Salt's publisher_acl): root and the master user may do
// everything; others may only publish, and only what publisher_acl allows minus the blacklist.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControlRequest, PublishRequest } from '../../../src/protocol/index.js';
import { decideControl, exprMatch, publisherPolicy, type PublisherPolicy } from '../../../src/master/publisher-acl.js';
import { isBrineError } from '../../../src/util/errors.js';
import type { LocalAccount } from '../../../src/util/local-account.js';

const MASTER_UID = 990;
const FLEET = ['web1', 'web2', 'db1'];
const minionsOf = (tgt: string | string[], tgtType: string): string[] => {
  if (tgtType === 'list') return FLEET.filter((id) => (tgt as string[]).includes(id));
  const re = new RegExp(`^${String(tgt).replace(/\*/g, '.*')}$`);
  return FLEET.filter((id) => re.test(id));
};
const account = (name: string, uid: number, groups: string[] = []): LocalAccount => ({ uid, name, known: true, gids: [uid], groups });
const publish = (fun: string, tgt: string | string[] = '*', extra: Partial<PublishRequest> = {}): PublishRequest => ({
  t: 'publish',
  tgt,
  tgtType: Array.isArray(tgt) ? 'list' : 'glob',
  fun,
  arg: [],
  kwarg: {},
  ...extra,
});
const policy = (acl: PublisherPolicy['acl'], blacklist: Partial<PublisherPolicy['blacklist']> = {}): PublisherPolicy => ({ acl, blacklist: { users: [], modules: [], ...blacklist } });
const decide = (p: PublisherPolicy, who: LocalAccount, req: ControlRequest) => decideControl(p, who, MASTER_UID, req, minionsOf);

test('root and the master user may do everything, publisher_acl or not', () => {
  const empty = policy({});
  for (const who of [account('root', 0), account('brine', MASTER_UID)]) {
    for (const req of [publish('cmd.run'), { t: 'sessions' } as const, { t: 'events' } as const, { t: 'keys_changed' } as const]) {
      assert.deepEqual(decide(empty, who, req), { allowed: true, privileged: true });
    }
  }
});

test("anyone else gets only publish: sessions, events, keys_changed and brine api's operations are CONTROL_DENIED", () => {
  const p = policy({ alice: ['.*'] });
  for (const t of ['sessions', 'events', 'keys_changed', 'active_jids', 'metrics'] as const) {
    const d = decide(p, account('alice', 1001), { t });
    assert.equal(d.allowed, false);
    assert.equal(!d.allowed && d.code, 'CONTROL_DENIED');
  }
});

test("a user's own entries allow exactly those functions", () => {
  const p = policy({ alice: ['test.ping', 'grains.*'] });
  const alice = account('alice', 1001);
  assert.deepEqual(decide(p, alice, publish('test.ping')), { allowed: true, privileged: false });
  assert.equal(decide(p, alice, publish('grains.items')).allowed, true);
  const d = decide(p, alice, publish('cmd.run'));
  assert.equal(!d.allowed && d.code, 'PUBLISH_DENIED');
  assert.match(!d.allowed ? d.reason : '', /does not let 'alice' run cmd\.run on '\*'/);
});

test('no entry for the user or its groups: PUBLISH_DENIED naming the user and its group% keys', () => {
  const d = decide(policy({ bob: ['test.*'] }), account('alice', 1001, ['alice', 'dev']), publish('test.ping'));
  assert.equal(!d.allowed && d.code, 'PUBLISH_DENIED');
  assert.match(!d.allowed ? d.reason : '', /no entry for user 'alice'/);
  assert.match(!d.allowed ? d.fix : '', /'alice%', 'dev%'/);
});

test("'group%' keys apply to members only", () => {
  const p = policy({ 'ops%': ['service.*'] });
  assert.equal(decide(p, account('bob', 1002, ['users', 'ops']), publish('service.restart')).allowed, true);
  assert.equal(decide(p, account('carol', 1003, ['users']), publish('service.restart')).allowed, false);
});

test('target-restricted entries: every expected minion must be inside the entry target', () => {
  const p = policy({ alice: [{ 'web*': ['cmd.run'] }, 'test.ping'] });
  const alice = account('alice', 1001);
  assert.equal(decide(p, alice, publish('cmd.run', 'web*')).allowed, true);
  assert.equal(decide(p, alice, publish('cmd.run', ['web1', 'db1'])).allowed, false, 'db1 is outside web*');
  assert.equal(decide(p, alice, publish('cmd.run', '*')).allowed, false);
  assert.equal(decide(p, alice, publish('cmd.run', 'nomatch*')).allowed, false, 'zero expected minions is not all');
});

test('publisher_acl_blacklist users (exact, glob, regex) may not publish at all', () => {
  const p = policy({ '*': ['test.ping'] }, { users: ['mallory', 'tmp_*', '^guest\\d+$'] });
  for (const name of ['mallory', 'tmp_x', 'guest7']) {
    const d = decide(p, account(name, 2000), publish('test.ping'));
    assert.equal(!d.allowed && d.code, 'PUBLISH_DENIED', name);
    assert.match(!d.allowed ? d.reason : '', /publisher_acl_blacklist/);
  }
  assert.equal(decide(p, account('guest', 2000), publish('test.ping')).allowed, true, 'guest does not match ^guest\\d+$');
});

test('publisher_acl_blacklist modules win over publisher_acl; root is not bound by them', () => {
  const p = policy({ alice: ['.*'] }, { modules: ['cmd.*', 'test.arg'] });
  assert.equal(decide(p, account('alice', 1001), publish('cmd.run')).allowed, false);
  assert.equal(decide(p, account('alice', 1001), publish('test.arg')).allowed, false);
  assert.equal(decide(p, account('alice', 1001), publish('test.ping')).allowed, true);
  assert.equal(decide(p, account('root', 0), publish('cmd.run')).allowed, true);
});

test("exprMatch is Salt's expr_match: exact, glob or whole-text regex; a bad regex matches nothing", () => {
  assert.ok(exprMatch('bad_user', '*bad_*'));
  assert.ok(exprMatch('blocked_user', 'blocked_.*'));
  assert.ok(exprMatch('Homer', '^Homer$'));
  assert.ok(!exprMatch('Homers', '^Homer$'));
  assert.ok(!exprMatch('xbad', 'bad'), 'the regex is anchored at both ends');
  assert.ok(!exprMatch('a', '('));
});

test('publisherPolicy: a shape Salt would not accept is a coded config error', () => {
  assert.throws(
    () => publisherPolicy({ publisher_acl: { alice: 'test.ping' }, publisher_acl_blacklist: {} }),
    (e: unknown) => isBrineError(e, 'CONFIG_TYPE') && /'alice'/.test(e.message),
  );
  assert.throws(
    () => publisherPolicy({ publisher_acl: {}, publisher_acl_blacklist: { users: 'bob' } }),
    (e: unknown) => isBrineError(e, 'CONFIG_TYPE'),
  );
  assert.throws(
    () => publisherPolicy({ publisher_acl: {}, publisher_acl_blacklist: { user: ['bob'] } }),
    (e: unknown) => isBrineError(e, 'CONFIG_VALUE') && /'user'/.test(e.message),
  );
  assert.deepEqual(publisherPolicy({ publisher_acl: { 'ops%': ['test.*', { 'web*': ['cmd.run'] }] }, publisher_acl_blacklist: { modules: ['cmd.*'] } }), {
    acl: { 'ops%': ['test.*', { 'web*': ['cmd.run'] }] },
    blacklist: { users: [], modules: ['cmd.*'] },
  });
});
