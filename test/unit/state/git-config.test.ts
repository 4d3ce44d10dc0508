// git.config_set and git.config_unset on a real repository's config and a global config under a
// temporary HOME. The comments and changes are Salt's salt/states/git.py config_set()/config_unset().

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gitConfigSet } from '../../../src/state/modules/git-config.js';
import { gitConfigUnset } from '../../../src/state/modules/git-config-unset.js';
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

describe('git.config_unset', () => {
  it('nothing matching is "No matching keys are set"; a multivar needs all; test=True lists what would go', async () => {
    assert.deepEqual(await runState(gitConfigUnset, { name: 'nosuch.key', repo }), { name: 'nosuch.key', result: true, changes: {}, comment: 'No matching keys are set' });
    execFileSync('git', ['config', '--add', 'multi.val', 'one'], { cwd: repo });
    execFileSync('git', ['config', '--add', 'multi.val', 'two'], { cwd: repo });
    const greedy = await runState(gitConfigUnset, { name: 'multi.val', repo });
    assert.deepEqual(greedy, {
      name: 'multi.val',
      result: false,
      changes: {},
      comment: "Multivar(s) matched by the key expression (set 'all' to True to force removal): multi.val (one, two)",
    });
    const dry = await runState(gitConfigUnset, { name: 'multi.val', all: true, repo }, { test: true });
    assert.deepEqual(dry, { name: 'multi.val', result: null, changes: { 'multi.val': ['one', 'two'] }, comment: '1 key(s) would have value(s) unset' });
    assert.equal(cfg('--get-all', 'multi.val'), 'one\ntwo', 'test=True changed nothing');
  });

  it("value_regex removes the matching value only; a key expression ('col\\..+') removes every key of a section", async () => {
    const r = await runState(gitConfigUnset, { name: 'multi.val', value_regex: '^tw', repo });
    assert.deepEqual(r, { name: 'multi.val', result: true, changes: { 'multi.val': ['two'] }, comment: 'Value(s) successfully unset' });
    assert.equal(cfg('--get-all', 'multi.val'), 'one');
    execFileSync('git', ['config', 'col.ui', 'auto'], { cwd: repo });
    execFileSync('git', ['config', 'col.diff', 'always'], { cwd: repo });
    const section = await runState(gitConfigUnset, { name: 'col\\..+', all: true, repo });
    assert.deepEqual(section, { name: 'col\\..+', result: true, changes: { 'col.ui': ['auto'], 'col.diff': ['always'] }, comment: 'Value(s) successfully unset' });
    assert.throws(() => cfg('--get-regexp', '^col\\.'), 'the section is empty');
    assert.equal((await runState(gitConfigUnset, { name: 'x.y' })).comment, "Non-global config options require the 'repo' argument to be set");
  });
});
