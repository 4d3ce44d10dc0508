// src/reactor/reactions.ts and reactor-map.ts: rendered reactor SLS data -> reactions in Salt's
// formats (local/runner/wheel/caller, args: and the older arg/kwarg), and the reactor option's tag globs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileReactions, parseReactorMap, reactorsFor } from '../../../src/reactor/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const SLS = '/srv/reactor/r.sls';

test('local with the args: syntax: the list of one-key mappings becomes the keyword arguments; tgt_type defaults to glob', () => {
  const { reactions, errors } = compileReactions(
    { install_zsh: { 'local.state.single': [{ tgt: 'kernel:Linux' }, { tgt_type: 'grain' }, { args: [{ fun: 'pkg.installed' }, { name: 'zsh' }, { fromrepo: 'updates' }] }] } },
    SLS,
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(reactions, [
    {
      id: 'install_zsh',
      sls: SLS,
      client: 'local',
      fun: 'state.single',
      tgt: 'kernel:Linux',
      tgtType: 'grain',
      arg: [],
      kwarg: { fun: 'pkg.installed', name: 'zsh', fromrepo: 'updates' },
      warnings: [],
    },
  ]);
  const plain = compileReactions({ hs: { 'local.state.apply': [{ tgt: 'web1' }] } }, SLS).reactions[0]!;
  assert.equal(plain.tgtType, 'glob');
  assert.deepEqual([plain.arg, plain.kwarg], [[], {}]);
});

test('the older syntax: arg/kwarg on local (cmd. is local), expr_form as tgt_type; runner/wheel fields are keyword arguments', () => {
  const { reactions } = compileReactions(
    {
      a: { 'cmd.cmd.run': [{ tgt: ['web1', 'web2'] }, { expr_form: 'list' }, { arg: ['touch /tmp/x'] }, { kwarg: { runas: 'root' } }] },
      b: { 'runner.state.orchestrate': [{ mods: 'orch.deploy' }, { pillar: { v: 2 } }] },
      c: { 'wheel.key.accept': [{ match: 'web3' }] },
    },
    SLS,
  );
  assert.deepEqual(
    reactions.map((r) => [r.client, r.fun, r.tgt, r.tgtType, r.arg, r.kwarg]),
    [
      ['local', 'cmd.run', ['web1', 'web2'], 'list', ['touch /tmp/x'], { runas: 'root' }],
      ['runner', 'state.orchestrate', undefined, undefined, [], { mods: 'orch.deploy', pillar: { v: 2 } }],
      ['wheel', 'key.accept', undefined, undefined, [], { match: 'web3' }],
    ],
  );
});

test("args: wins over arg/kwarg with Salt's warning; caller's legacy positional args stay positional", () => {
  const [r] = compileReactions({ x: { 'runner.jobs.lookup_jid': [{ args: [{ jid: '1' }] }, { kwarg: { jid: '2' } }] } }, SLS).reactions;
  assert.deepEqual(r!.kwarg, { jid: '1' });
  assert.match(r!.warnings[0]!, /Reactor 'x' is ignoring 'kwarg' param/);
  const [c] = compileReactions({ y: { 'caller.file.touch': [{ args: ['/tmp/a'] }] } }, SLS).reactions;
  assert.deepEqual([c!.client, c!.arg, c!.kwarg], ['caller', ['/tmp/a'], {}]);
});

test('what is not a reaction is REACTION_INVALID naming the file and ID; the other IDs still compile', () => {
  const { reactions, errors } = compileReactions(
    {
      good: { 'local.test.ping': [{ tgt: '*' }] },
      notarget: { 'local.test.ping': [{ tgt_type: 'glob' }] },
      badclient: { 'remote.test.ping': [{ tgt: '*' }] },
      badargs: { 'runner.jobs.list_jobs': [{ args: ['not', 'dicts'] }] },
      unknownfield: { 'local.test.ping': [{ tgt: '*' }, { bogus: 1 }] },
      scalar: 'local.test.ping',
    },
    SLS,
  );
  assert.deepEqual(
    reactions.map((r) => r.id),
    ['good'],
  );
  assert.equal(errors.length, 5);
  for (const e of errors) {
    assert.ok(isBrineError(e, 'REACTION_INVALID'));
    assert.ok(e.message.startsWith(`${SLS}: reaction '`), e.message);
  }
  assert.match(errors[0]!.message, /notarget' has no tgt/);
  assert.match(errors[2]!.message, /args: that is not a list of one-key mappings/);
  // an empty render (a Jinja if that was false) is no reaction and no error
  assert.deepEqual(compileReactions({}, SLS), { reactions: [], errors: [] });
  assert.deepEqual(compileReactions(null, SLS), { reactions: [], errors: [] });
});

test('reactor option: a path or a list per glob, Python fnmatch (* spans /), every matching entry in order; a malformed one is CONFIG_VALUE', () => {
  const map = parseReactorMap([{ 'salt/minion/*/start': '/r/start.sls' }, { 'salt/*': ['/r/a.sls', 'salt://r/b.sls'] }, { 'other/tag': ['/r/c.sls'] }]);
  assert.deepEqual(reactorsFor(map, 'salt/minion/web1/start'), [
    { glob: 'salt/minion/*/start', sls: '/r/start.sls' },
    { glob: 'salt/*', sls: '/r/a.sls' },
    { glob: 'salt/*', sls: 'salt://r/b.sls' },
  ]);
  assert.deepEqual(reactorsFor(map, 'brine/minion/web1/connected'), []);
  assert.deepEqual(parseReactorMap(undefined), []);
  for (const bad of ['a string', [{ a: 1, b: 2 }], [{ 'x/*': [] }], [{ 'x/*': ['relative.sls'] }], ['x']]) {
    assert.throws(
      () => parseReactorMap(bad),
      (e: unknown) => isBrineError(e, 'CONFIG_VALUE'),
      JSON.stringify(bad),
    );
  }
});
