// git.config_set on a real repository's config and a global config under a temporary HOME. The
// comments and changes are Salt's salt/states/git.py config_set().

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gitConfigSet } from '../../../src/state/modules/git-config.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
let repo: string;
const savedHome = process.env.HOME;
const cfg = (...args: string[]): string => execFileSync('git', ['config', ...args], { cwd: repo, encoding: 'utf8' }).trim();

before(() => {
  dir = tempDir('brine-gitcfg-');
  // Salt reads a repository's key from the merged config: an empty HOME keeps the machine's own
  // ~/.gitconfig out of these tests.
  process.env.HOME = dir;
  repo = path.join(dir, 'repo');
  execFileSync('git', ['init', '-q', repo]);
});
after(() => {
  process.env.HOME = savedHome;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('git.config_set', () => {
  it('adds a value (test=True first), then reports it already set, then changes it', async () => {
    const t = await runState(gitConfigSet, { name: 'user.email', value: 'foo@bar.net', repo }, { test: true });
    assert.deepEqual(t, { name: 'user.email', result: null, changes: { old: null, new: ['foo@bar.net'] }, comment: "'user.email' would be added as 'foo@bar.net'" });
    assert.throws(() => cfg('--local', '--get', 'user.email'), 'test=True wrote nothing');
    const r = await runState(gitConfigSet, { name: 'user.email', value: 'foo@bar.net', repo });
    assert.deepEqual(r, { name: 'user.email', result: true, changes: { 'user.email': { old: null, new: ['foo@bar.net'] } }, comment: "'user.email' was added as 'foo@bar.net'" });
    assert.equal(cfg('--local', '--get', 'user.email'), 'foo@bar.net');
    assert.deepEqual(await runState(gitConfigSet, { name: 'user.email', value: 'foo@bar.net', repo }), {
      name: 'user.email',
      result: true,
      changes: {},
      comment: "'user.email' is already set to 'foo@bar.net'",
    });
    const again = await runState(gitConfigSet, { name: 'user.email', value: 'baz@bar.net', repo });
    assert.equal(again.comment, "'user.email' was set to 'baz@bar.net'");
    assert.deepEqual(again.changes, { 'user.email': { old: ['foo@bar.net'], new: ['baz@bar.net'] } });
  });

  it('a multivar is replaced in the given order; comments print it as a Python list', async () => {
    execFileSync('git', ['config', '--add', 'my.attr', 'baz'], { cwd: repo });
    const r = await runState(gitConfigSet, { name: 'my.attr', multivar: ['foo', 'bar'], repo });
    assert.deepEqual(r, { name: 'my.attr', result: true, changes: { 'my.attr': { old: ['baz'], new: ['foo', 'bar'] } }, comment: "'my.attr' was set to ['foo', 'bar']" });
    assert.equal(cfg('--get-all', 'my.attr'), 'foo\nbar');
    assert.equal((await runState(gitConfigSet, { name: 'my.attr', multivar: 'foo,bar', repo })).comment, "'my.attr' is already set to ['foo', 'bar']");
  });

  it('global: the user config under HOME; argument errors in Salt words', async () => {
    const r = await runState(gitConfigSet, { name: 'user.name', value: 'Foo Bar', global: true });
    assert.deepEqual(r, { name: 'user.name', result: true, changes: { 'user.name': { old: null, new: ['Foo Bar'] } }, comment: "Global key 'user.name' was added as 'Foo Bar'" });
    assert.match(fs.readFileSync(path.join(dir, '.gitconfig'), 'utf8'), /name = Foo Bar/);
    assert.equal((await runState(gitConfigSet, { name: 'a.b', value: 'x' })).comment, "Non-global config options require the 'repo' argument to be set");
    assert.equal((await runState(gitConfigSet, { name: 'a.b', value: 'x', multivar: ['y'], repo })).comment, "Only one of 'value' and 'multivar' is permitted");
  });
});
