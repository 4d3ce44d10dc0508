// What a user without '@events' sees of the event bus (issue 21, point 9, threats.md #48),
// decided by EventVisibility against a stub backend: minions its ACL reaches, jobs it could run
// (with the job's own arguments), its own hooks; never key events. Target matches are cached,
// and asked again at most once a second when they hide an event. Fake clock.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AclEntry } from '../../../src/auth/index.js';
import { EventVisibility } from '../../../src/api/event-visibility.js';
import type { ApiBackend } from '../../../src/api/backend.js';
import { type BrineEvent, type SaltEvent, saltEventsOf } from '../../../src/protocol/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { globMatch } from '../../../src/util/glob.js';

function backend(entries: AclEntry[], accepted: string[], jobs: Record<string, { arg: unknown[]; kwarg: Record<string, unknown> }> = {}, unreachable = false) {
  const clock = new FakeClock();
  const lookups: string[] = [];
  const b = {
    clock,
    auth: { permsOf: () => entries },
    jobs: { getJob: (jid: string) => jobs[jid] },
    matchTarget: async (tgt: string | string[], tgtType: string) => {
      lookups.push(`${tgtType}:${String(tgt)}`);
      if (unreachable) throw new Error('MASTER_UNREACHABLE');
      // compound: an entry's target; glob '*': every accepted minion, which the ACL check asks
      // for to see whether a job's list names a minion outside the user's (threats.md #43)
      if ((tgtType !== 'compound' && tgtType !== 'glob') || typeof tgt !== 'string') throw new Error(`unexpected lookup ${tgtType}`);
      return { matched: accepted.filter((m) => globMatch(tgt, m)), missing: [] };
    },
  } as unknown as ApiBackend;
  const who = { user: 'web', eauth: 'file', groups: [] };
  return { clock, lookups, accepted, view: new EventVisibility(b, who) };
}

const at = 0;
const connected = (id: string): BrineEvent => ({ kind: 'minion_connected', id, remote: '10.0.0.5:4506', agent: 'brine', at });
const published = (jid: string, fun: string, minions: string[]): BrineEvent => ({
  kind: 'job_published',
  jid,
  fun,
  arg: [],
  kwarg: {},
  tgt: minions,
  tgtType: 'list',
  user: 'root',
  minions,
  missing: [],
  notConnected: [],
  at,
});
const ret = (jid: string, fun: string, minion: string): BrineEvent => ({ kind: 'job_return', jid, fun, funArgs: [], ret: true, minion, retcode: 0, success: true, at });
/** Every Salt event the typed event stands for gets the same answer (the bare `<jid>` one aside: its function is looked up). */
async function shows(view: EventVisibility, e: BrineEvent): Promise<boolean> {
  const events: SaltEvent[] = saltEventsOf(e).filter((x) => !('jid' in e && x.tag === e.jid));
  const answers: boolean[] = [];
  for (const x of events) answers.push(await view.shows(x));
  assert.ok(
    answers.every((a) => a === answers[0]),
    `${e.kind}: ${events.map((x) => x.tag).join(', ')} answered ${answers.join(', ')}`,
  );
  return answers[0] as boolean;
}

test('a web*-restricted user: its minions and the jobs it could run; not db1, key events or others’ hooks', async () => {
  const { view } = backend([{ 'web*': ['test.*'] }, '@jobs'], ['web1', 'web2', 'db1']);
  assert.equal(await shows(view, connected('web1')), true);
  assert.equal(await shows(view, connected('db1')), false);
  assert.equal(await shows(view, { kind: 'minion_disconnected', id: 'db1', remote: 'x', reason: 'reset', connectedForMs: 1, silentForMs: 1, at }), false);
  assert.equal(await shows(view, published('1', 'test.ping', ['web1', 'web2'])), true);
  assert.equal(await shows(view, published('2', 'test.ping', ['web1', 'db1'])), false, 'a job that reached db1 too');
  assert.equal(await shows(view, published('3', 'cmd.run', ['web1'])), false, 'a function the user may not run');
  assert.equal(await shows(view, published('4', 'test.ping', [])), false);
  assert.equal(await shows(view, ret('2', 'test.ping', 'web1')), true);
  assert.equal(await shows(view, ret('2', 'test.ping', 'db1')), false);
  assert.equal(await shows(view, ret('3', 'cmd.run', 'web1')), false);
  for (const e of [
    { kind: 'auth_pending', id: 'web1', remote: 'x', fingerprint: 'f', at },
    { kind: 'auth_rejected', id: 'web1', remote: 'x', fingerprint: 'f', reason: 'r', at },
    { kind: 'key_mismatch', id: 'web1', remote: 'x', acceptedFingerprint: 'a', presentedFingerprint: 'b', at },
    { kind: 'invalid_id', remote: 'x', reason: 'r', at },
  ] as BrineEvent[])
    assert.equal(await shows(view, e), false, e.kind);
  assert.equal(await shows(view, { kind: 'api_hook', path: 'deploy', user: 'admin', body: { password: 'x' }, at }), false);
  assert.equal(await shows(view, { kind: 'api_hook', path: 'deploy', user: 'web', body: {}, at }), true, 'its own hook');
});

test('an unrestricted function entry reaches every minion; argument rules are checked with the job’s own arguments', async () => {
  const { view, lookups } = backend(['test.ping', { 'cmd.run': { args: ['ls( /tmp)?'] } }], ['web1', 'db1'], { j1: { arg: ['ls /tmp'], kwarg: {} }, j2: { arg: ['id'], kwarg: {} } });
  assert.equal(await shows(view, connected('db1')), true);
  assert.equal(await shows(view, published('j1', 'cmd.run', ['db1'])), true);
  assert.equal(await shows(view, published('j2', 'cmd.run', ['db1'])), false);
  assert.equal(await shows(view, ret('j2', 'cmd.run', 'db1')), false);
  assert.deepEqual(lookups, [], 'no target lookups for an unrestricted user');
});

test('matches are cached: a hidden minion costs at most one lookup a second; a minion accepted since is shown after it', async () => {
  const { view, lookups, accepted, clock } = backend([{ 'web*': ['test.*'] }], ['web1', 'db1']);
  for (let i = 0; i < 50; i++) assert.equal(await shows(view, connected('db1')), false);
  assert.ok(lookups.length <= 2, `${lookups.length} lookups for 50 hidden events`);
  for (let i = 0; i < 50; i++) assert.equal(await shows(view, ret(String(i), 'test.ping', 'web1')), true);
  assert.ok(lookups.length <= 3, `${lookups.length} lookups after 50 shown returns`);
  accepted.push('web3');
  clock.advance(1_001);
  assert.equal(await shows(view, connected('web3')), true);
  assert.equal(await shows(view, published('9', 'test.ping', ['web3'])), true);
});

test('a failed lookup (the master unreachable) hides the event', async () => {
  const { view } = backend([{ 'web*': ['test.*'] }], ['web1'], {}, true);
  assert.equal(await shows(view, connected('web1')), false);
});

test('issue 25: salt/key and salt/auth hidden; salt/presence cut down to reached minions; salt/run and salt/wheel by runner/wheel rights', async () => {
  const { view } = backend([{ 'web*': ['test.*'] }, { '@runner': ['jobs.*'] }] as unknown as AclEntry[], ['web1', 'web2', 'db1']);
  assert.equal(await view.view({ tag: 'salt/key', data: { result: true, act: 'accept', id: 'web1' } }), undefined);
  assert.equal(await view.view({ tag: 'salt/auth', data: { result: true, act: 'accept', id: 'web1', pub: 'P' } }), undefined);
  const present = await view.view({ tag: 'salt/presence/present', data: { present: ['web1', 'db1', 'web2'], _stamp: 's' } });
  assert.deepEqual(present?.data, { present: ['web1', 'web2'], _stamp: 's' });
  const change = await view.view({ tag: 'salt/presence/change', data: { new: ['db1', 'web2'], lost: [], _stamp: 's' } });
  assert.deepEqual(change?.data, { new: ['web2'], lost: [], _stamp: 's' });
  assert.equal(await view.view({ tag: 'salt/presence/change', data: { new: ['db1'], lost: [], _stamp: 's' } }), undefined, "a change about others' minions only");
  assert.ok(await view.view({ tag: 'salt/run/1/new', data: { fun: 'runner.jobs.list_jobs', jid: '1' } }));
  assert.equal(await view.view({ tag: 'salt/run/1/new', data: { fun: 'runner.manage.status', jid: '1' } }), undefined);
  assert.equal(await view.view({ tag: 'salt/wheel/1/new', data: { fun: 'wheel.key.list_all', jid: '1' } }), undefined);
  assert.equal(await view.view({ tag: 'salt/run/1/progress', data: {} }), undefined, 'no function named: hidden');
});
