// Salt's ACL check (external_auth and publisher_acl entries): who an entry applies to, function
// patterns, target-restricted entries checked against the expected minions (zero is not all),
// @runner/@wheel/@jobs, argument restrictions and function names nested in arguments.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type AclEntry, type AclRequest, checkAcl, entriesFor } from '../../../src/auth/index.js';
import { matchTarget } from '../../../src/targeting/index.js';
import type { TargetType } from '../../../src/targeting/index.js';
import { IDS, lookup } from '../targeting/fleet.js';

const minionsOf = (tgt: string | string[], tgtType: string): string[] => {
  try {
    return matchTarget(tgt, tgtType as TargetType, IDS, { grains: lookup }).matched;
  } catch {
    return [];
  }
};

const local = (fun: string, tgt: string | string[] = '*', tgtType = 'glob', arg: unknown[] = [], kwarg: Record<string, unknown> = {}): AclRequest => ({
  client: 'local',
  fun,
  tgt,
  tgtType,
  arg,
  kwarg,
});

const allowed = (entries: AclEntry[], req: AclRequest): boolean => checkAcl(entries, req, minionsOf).allowed;

test('entriesFor: own key, glob keys, group% keys and * apply; others do not', () => {
  const table: Record<string, AclEntry[]> = {
    fred: ['test.*'],
    'dev*': ['grains.items'],
    'admins%': ['@wheel'],
    'ops%': ['@runner'],
    '*': ['test.ping'],
    bob: ['cmd.run'],
  };
  assert.deepEqual(entriesFor(table, 'fred', []), ['test.*', 'test.ping']);
  assert.deepEqual(entriesFor(table, 'devin', ['admins']), ['grains.items', '@wheel', 'test.ping']);
  assert.deepEqual(entriesFor(table, 'zed', ['ops', 'other']), ['@runner', 'test.ping']);
  assert.deepEqual(entriesFor(table, 'zed', []), ['test.ping']);
  // a user named like a group key does not get the group's entries
  assert.deepEqual(entriesFor({ 'admins%': ['@wheel'] }, 'admins', []), []);
  assert.deepEqual(entriesFor({ 'admins%': ['@wheel'] }, 'admins%', []), []);
  assert.deepEqual(entriesFor(table, '', ['admins']), [], 'an empty user name gets nothing');
  // __proto__ and friends are ordinary keys, never inherited entries
  assert.deepEqual(entriesFor(JSON.parse('{"__proto__": ["cmd.run"]}'), 'constructor', []), []);
});

test('function patterns: whole-name regexes, . and .* as Salt writes them, * as a glob', () => {
  assert.equal(allowed(['test.*'], local('test.ping')), true);
  assert.equal(allowed(['test.*'], local('cmd.run')), false);
  assert.equal(allowed(['.*'], local('cmd.run')), true);
  assert.equal(allowed(['*'], local('cmd.run')), true, "'*' is not a regex, so it is a glob");
  assert.equal(allowed(['cmd.run'], local('cmd.run')), true);
  assert.equal(allowed(['cmd.run'], local('cmd.run_all')), false, 'whole name, unlike Salt re.match');
  assert.equal(allowed(['test.ping', 'grains.(items|get)'], local('grains.get')), true);
  assert.equal(allowed(['test.ping', 'grains.(items|get)'], local('grains.setval')), false);
  assert.equal(allowed([], local('test.ping')), false);
  assert.equal(allowed(['@runner', '@wheel', '@jobs'], local('test.ping')), false, '@ entries never allow minion functions');
  assert.equal(allowed(['(unclosed'], local('(unclosed')), true, 'a broken regex is read as a glob');
  assert.equal(allowed(['(unclosed'], local('xunclosed')), false);
});

test('target-restricted entries: every expected minion must be matched by the entry target', () => {
  const entries: AclEntry[] = [{ 'web*': ['test.*', 'network.*'] }, { 'G@os:Debian': ['grains.items'] }];
  assert.equal(allowed(entries, local('test.ping', 'web*')), true);
  assert.equal(allowed(entries, local('test.ping', 'web1')), true);
  assert.equal(allowed(entries, local('test.ping', ['web1', 'web2'], 'list')), true);
  assert.equal(allowed(entries, local('test.ping', '*')), false, '* includes db and cache minions');
  assert.equal(allowed(entries, local('test.ping', 'db1')), false);
  assert.equal(allowed(entries, local('test.ping', 'web1 or db1', 'compound')), false, 'a compound that mixes allowed and denied minions');
  assert.equal(allowed(entries, local('test.ping', 'web* and G@env:prod', 'compound')), true);
  assert.equal(allowed(entries, local('cmd.run', 'web1')), false, 'function outside the entry');
  assert.equal(allowed(entries, local('grains.items', 'G@os:Debian', 'compound')), true);
  assert.equal(allowed(entries, local('grains.items', 'os:Debian', 'grain')), true);
  assert.equal(allowed(entries, local('grains.items', 'web2')), false, 'web2 runs Ubuntu');
  // a single-string function list is accepted as Salt does
  assert.equal(allowed([{ 'db*': 'test.ping' }], local('test.ping', 'db2')), true);
  // an entry with two keys is invalid and ignored, as in Salt
  assert.equal(allowed([{ 'web*': ['test.*'], 'db*': ['test.*'] }], local('test.ping', 'web1')), false);
  // an entry whose target matches nothing allows nothing
  assert.equal(allowed([{ 'nosuch*': ['test.*'] }], local('test.ping', 'nosuch1')), false);
});

test('zero expected minions is never "all" (CVE-2022-22941)', () => {
  const entries: AclEntry[] = [{ 'web*': ['test.*'] }];
  for (const [tgt, type] of [
    ['nosuch*', 'glob'],
    ['', 'glob'],
    [[], 'list'],
    ['web* and G@os:Plan9', 'compound'],
    ['web* and not web*', 'compound'],
    ['^nosuch', 'pcre'],
  ] as Array<[string | string[], string]>) {
    const d = checkAcl(entries, local('test.ping', tgt, type), minionsOf);
    assert.equal(d.allowed, false, `${JSON.stringify(tgt)} (${type}) must be refused`);
    if (!d.allowed) assert.match(d.reason, /matches none of the minions you may run test\.ping on/);
  }
  // a minion without cached grains is expected for a grain target (greedy), and it is not web*
  assert.equal(allowed(entries, local('test.ping', 'os:Plan9', 'grain')), false);
  // an unrestricted entry allows the function on any target, even an empty one (nothing runs)
  assert.equal(allowed(['test.*'], local('test.ping', 'nosuch*')), true);
});

test('runner and wheel: @runner, @runners, @wheel, @<module> and their function lists', () => {
  const runner = (fun: string, kwarg: Record<string, unknown> = {}): AclRequest => ({ client: 'runner', fun, kwarg });
  const wheel = (fun: string, kwarg: Record<string, unknown> = {}): AclRequest => ({ client: 'wheel', fun, kwarg });
  assert.equal(allowed(['@runner'], runner('jobs.list_jobs')), true);
  assert.equal(allowed(['@runners'], runner('manage.status')), true);
  assert.equal(allowed(['@runner'], wheel('key.accept')), false);
  assert.equal(allowed(['@wheel'], wheel('key.accept')), true);
  assert.equal(allowed(['@wheel'], runner('jobs.list_jobs')), false);
  assert.equal(allowed(['@jobs'], runner('jobs.lookup_jid')), true);
  assert.equal(allowed(['@jobs'], runner('manage.up')), false);
  assert.equal(allowed([{ '@runner': ['jobs.*'] }], runner('jobs.active')), true);
  assert.equal(allowed([{ '@runner': ['jobs.*'] }], runner('manage.down')), false);
  assert.equal(allowed([{ '@jobs': ['list_jobs'] }], runner('jobs.list_jobs')), true);
  assert.equal(allowed([{ '@jobs': ['list_jobs'] }], runner('jobs.lookup_jid')), false);
  assert.equal(allowed([{ '@key': ['list_all', 'finger'] }], wheel('key.finger')), true);
  assert.equal(allowed([{ '@key': ['list_all', 'finger'] }], wheel('key.delete')), false);
  assert.equal(allowed([{ '@wheel': [{ 'key.accept': { kwargs: { match: 'web.*' } } }] }], wheel('key.accept', { match: 'web3' })), true);
  assert.equal(allowed([{ '@wheel': [{ 'key.accept': { kwargs: { match: 'web.*' } } }] }], wheel('key.accept', { match: 'db3' })), false);
  assert.equal(allowed(['.*', 'test.*'], runner('jobs.list_jobs')), false, 'minion-function entries do not allow runners');
  const bad = checkAcl(['@runner'], runner('jobs'), minionsOf);
  assert.equal(bad.allowed, false);
  if (!bad.allowed) assert.match(bad.reason, /module>\.<function/);
  assert.equal(allowed(['@runner'], runner('a.b.c')), false);
});

test('argument restrictions: positional regexes over the whole argument, kwargs by name, None as any', () => {
  const entries: AclEntry[] = [{ 'cmd.run': { args: ['ls( -l)?', null], kwargs: { cwd: '/tmp' } } }];
  assert.equal(allowed(entries, local('cmd.run', '*', 'glob', ['ls -l', 'x'], { cwd: '/tmp' })), true);
  assert.equal(allowed(entries, local('cmd.run', '*', 'glob', ['rm -rf /', 'x'], { cwd: '/tmp' })), false);
  assert.equal(allowed(entries, local('cmd.run', '*', 'glob', ['ls'], { cwd: '/tmp' })), true, 'a None condition allows a missing argument');
  assert.equal(allowed(entries, local('cmd.run', '*', 'glob', ['ls', 'x'], {})), false, 'a restricted kwarg must be present');
  assert.equal(allowed(entries, local('cmd.run', '*', 'glob', ['ls', 'x'], { cwd: '/etc' })), false);
  assert.equal(allowed(entries, local('cmd.run', '*', 'glob', [], { cwd: '/tmp' })), false, 'a missing restricted argument');
  // under a target, as Salt's docs write it; a list of conditions where one must hold
  const targeted: AclEntry[] = [{ 'web*': ['test.ping', { 'test.echo': [{ args: ['hello( world)?'] }, { args: ['bye'] }] }] }];
  assert.equal(allowed(targeted, local('test.echo', 'web1', 'glob', ['hello world'])), true);
  assert.equal(allowed(targeted, local('test.echo', 'web1', 'glob', ['bye'])), true);
  assert.equal(allowed(targeted, local('test.echo', 'web1', 'glob', ['good bye'])), false);
  assert.equal(allowed(targeted, local('test.echo', 'web1', 'glob', ['hello world; id'])), false);
  assert.equal(allowed(targeted, local('test.echo', 'db1', 'glob', ['hello'])), false);
  // arguments are matched as Python's str(): True, None, numbers
  assert.equal(allowed([{ 'test.arg': { args: ['True', '5', 'None'] } }], local('test.arg', '*', 'glob', [true, 5, null])), true);
  assert.equal(allowed([{ 'test.arg': { args: ['True'] } }], local('test.arg', '*', 'glob', [false])), false);
});

test("argument rules match the whole argument: Salt's documented '^ls' does not let 'ls /x; id' run (threats.md #47)", () => {
  const documented: AclEntry[] = [{ 'cmd.run': { args: ['^ls'] } }];
  const d = checkAcl(documented, local('cmd.run', '*', 'glob', ['ls /x; id']), minionsOf);
  assert.equal(d.allowed, false, 'a prefix match would let the rest of the command run');
  if (!d.allowed) assert.match(d.reason, /'cmd\.run' is not allowed with these arguments \(each argument rule must match the whole argument\)/);
  for (const rest of ['ls\nid', 'ls && id', 'ls | sh', 'ls $(id)', 'ls `id`']) assert.equal(allowed(documented, local('cmd.run', '*', 'glob', [rest])), false, JSON.stringify(rest));
  assert.equal(allowed(documented, local('cmd.run', '*', 'glob', ['ls'])), true, "'^ls' now means exactly ls");
  // the safe example of docs/access-control.md: a character class that has no shell metacharacter
  const safe: AclEntry[] = [{ 'cmd.run': { args: ['ls( -l)?( /srv(/[A-Za-z0-9_-]+)*)?'] } }];
  assert.equal(allowed(safe, local('cmd.run', '*', 'glob', ['ls -l /srv/www'])), true);
  assert.equal(allowed(safe, local('cmd.run', '*', 'glob', ['ls /srv/www; id'])), false);
  assert.equal(allowed(safe, local('cmd.run', '*', 'glob', ['ls /srv/www\nid'])), false);
  assert.equal(allowed(safe, local('cmd.run', '*', 'glob', ['ls /srv/../etc'])), false, 'no dots, so no ..');
  // kwargs rules too: cwd '/tmp' is /tmp, not /tmp/../etc
  const kw: AclEntry[] = [{ 'cmd.run': { args: ['ls'], kwargs: { cwd: '/tmp' } } }];
  assert.equal(allowed(kw, local('cmd.run', '*', 'glob', ['ls'], { cwd: '/tmp' })), true);
  assert.equal(allowed(kw, local('cmd.run', '*', 'glob', ['ls'], { cwd: '/tmp/../etc' })), false);
  // the same inside a target-restricted entry, and for runner/wheel keyword rules
  assert.equal(allowed([{ 'web*': [{ 'cmd.run': { args: ['^ls'] } }] }], local('cmd.run', 'web1', 'glob', ['ls /x; id'])), false);
  const wheel: AclRequest = { client: 'wheel', fun: 'key.accept', kwarg: { match: 'web3 db*' } };
  assert.equal(allowed([{ '@wheel': [{ 'key.accept': { kwargs: { match: 'web[0-9]+' } } }] }], wheel), false);
});

test('compound commands: every function in test.ping,cmd.run must be allowed', () => {
  assert.equal(allowed(['test.*'], local('test.ping,test.echo', '*', 'glob', [[], ['hi']])), true);
  assert.equal(allowed(['test.*'], local('test.ping,cmd.run', '*', 'glob', [[], ['id']])), false);
  assert.equal(allowed(['test.*'], local('test.ping,', '*')), false);
});

test('function names inside arguments are checked too (CVE-2013-4435)', () => {
  const entries: AclEntry[] = ['mine.send', 'schedule.*', 'test.*', 'saltutil.runner', 'module.run'];
  assert.equal(allowed(entries, local('mine.send', '*', 'glob', ['test.ping'])), true);
  const d = checkAcl(entries, local('mine.send', '*', 'glob', ['cmd.run']), minionsOf);
  assert.equal(d.allowed, false);
  if (!d.allowed) assert.match(d.reason, /cmd\.run.*named in the arguments of mine\.send/);
  assert.equal(allowed(entries, local('mine.send', '*', 'glob', ['x'], { mine_function: 'cmd.run' })), false);
  assert.equal(allowed(entries, local('schedule.add', '*', 'glob', ['job1'], { function: 'cmd.run', seconds: 60 })), false);
  assert.equal(allowed(entries, local('schedule.add', '*', 'glob', ['job1'], { function: 'test.ping', seconds: 60 })), true);
  assert.equal(allowed(entries, local('schedule.add', '*', 'glob', ['job1'], { function: 42 })), false, 'a non-string function name');
  assert.equal(allowed(entries, local('saltutil.runner', '*', 'glob', ['jobs.list_jobs'])), false, 'runner named in arguments needs @runner');
  assert.equal(allowed([...entries, '@runner'], local('saltutil.runner', '*', 'glob', ['jobs.list_jobs'])), true);
  assert.equal(allowed(entries, local('module.run', '*', 'glob', [], { 'test.echo': ['x'], 'cmd.run': ['id'] })), false);
  assert.equal(allowed(entries, local('module.run', '*', 'glob', [], { 'test.echo': ['x'] })), true);
  // nested under a target-restricted entry: the nested call is checked against the same target
  const targeted: AclEntry[] = [{ 'web*': ['mine.send', 'test.ping'] }];
  assert.equal(allowed(targeted, local('mine.send', 'web1', 'glob', ['test.ping'])), true);
  assert.equal(allowed(targeted, local('mine.send', 'web1', 'glob', ['grains.items'])), false);
});

test('malformed requests are refused, never allowed', () => {
  assert.equal(allowed(['.*'], local('')), false);
  assert.equal(checkAcl(['.*'], { client: 'local', fun: 42 as unknown as string }, minionsOf).allowed, false);
  assert.equal(allowed([42 as unknown as AclEntry, null as unknown as AclEntry, ['test.ping'] as unknown as AclEntry], local('test.ping')), false);
});
