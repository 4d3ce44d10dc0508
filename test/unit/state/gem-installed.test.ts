// gem.installed with the real gem CLI (Debian package ruby) installing a gem built by the test
// (`gem build`) into a temp GEM_HOME: no remote source is used. Comments and changes are Salt
// 3007's salt/states/gem.py installed; the list parse is salt/modules/gem.py list_.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gemInstalled } from '../../../src/state/modules/gem-installed.js';
import { gemRemovalStates } from '../../../src/state/modules/gem-removed.js';
import type { StateFunction } from '../../../src/state/index.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
let gemFile: string;
const saved = { GEM_HOME: process.env.GEM_HOME, GEM_PATH: process.env.GEM_PATH, PATH: process.env.PATH, HOME: process.env.HOME };
const [gemRemoved, sourcesAdd, sourcesRemove] = gemRemovalStates as [StateFunction, StateFunction, StateFunction];
const hasGem = (() => {
  try {
    execFileSync('gem', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

before(() => {
  dir = tempDir('brine-gem-');
  if (!hasGem) return;
  fs.writeFileSync(
    path.join(dir, 'brine-demo.gemspec'),
    "Gem::Specification.new do |s|\n  s.name = 'brine-demo'\n  s.version = '1.2.0'\n  s.summary = 'test gem'\n  s.authors = ['brine']\n  s.files = ['lib/brine_demo.rb']\n  s.license = 'MIT'\nend\n",
  );
  fs.mkdirSync(path.join(dir, 'lib'));
  fs.writeFileSync(path.join(dir, 'lib', 'brine_demo.rb'), 'module BrineDemo; end\n');
  execFileSync('gem', ['build', 'brine-demo.gemspec'], { cwd: dir, stdio: 'ignore' });
  gemFile = path.join(dir, 'brine-demo-1.2.0.gem');
  process.env.GEM_HOME = path.join(dir, 'home');
  process.env.GEM_PATH = path.join(dir, 'home');
  // gem sources edits ~/.gemrc: keep it in the temp dir
  process.env.HOME = dir;
});
after(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('gem.installed', { skip: !hasGem && 'gem is not installed (Debian package ruby)' }, () => {
  it('test=True: result None and Salt comment; nothing installed', async () => {
    assert.deepEqual(await runState(gemInstalled, { name: 'brine-demo' }, { test: true }), {
      name: 'brine-demo',
      result: null,
      changes: {},
      comment: 'The gem brine-demo would have been installed',
    });
    assert.equal(fs.existsSync(path.join(dir, 'home', 'gems', 'brine-demo-1.2.0')), false);
  });

  it('installs a gem file, then the gem is already installed (by name, version, requirement)', async () => {
    assert.deepEqual(await runState(gemInstalled, { name: gemFile }), { name: gemFile, result: true, changes: { [gemFile]: 'Installed' }, comment: 'Gem was successfully installed' });
    assert.ok(fs.existsSync(path.join(dir, 'home', 'gems', 'brine-demo-1.2.0', 'lib', 'brine_demo.rb')));
    assert.deepEqual(await runState(gemInstalled, { name: 'brine-demo' }), { name: 'brine-demo', result: true, changes: {}, comment: 'Gem is already installed.' });
    assert.equal((await runState(gemInstalled, { name: 'brine-demo', version: '1.2.0' }, { test: true })).comment, 'Gem is already installed.');
    assert.equal((await runState(gemInstalled, { name: 'brine-demo', version: '>=1.0' })).comment, 'Installed Gem meets version requirements.');
    assert.equal((await runState(gemInstalled, { name: 'brine-demo', version: '2.0.0' }, { test: true })).result, null);
  });

  it('a gem that cannot be installed fails with what gem said', async () => {
    const r = await runState(gemInstalled, { name: path.join(dir, 'missing-9.9.9.gem') });
    assert.equal(r.result, false);
    assert.deepEqual(r.changes, {});
    assert.match(r.comment, /missing-9\.9\.9|Could not find/);
  });

  it('gem.removed: test=True says it would remove; then uninstalls every version; then nothing to do', async () => {
    await runState(gemInstalled, { name: gemFile });
    assert.deepEqual(await runState(gemRemoved, { name: 'brine-demo' }, { test: true }), {
      name: 'brine-demo',
      result: null,
      changes: {},
      comment: 'The gem brine-demo would have been removed',
    });
    const gemDir = path.join(dir, 'home', 'gems', 'brine-demo-1.2.0');
    assert.ok(fs.existsSync(gemDir));
    assert.deepEqual(await runState(gemRemoved, { name: 'brine-demo' }), { name: 'brine-demo', result: true, changes: { 'brine-demo': 'Removed' }, comment: 'Gem was successfully removed.' });
    assert.equal(fs.existsSync(gemDir), false);
    assert.deepEqual(await runState(gemRemoved, { name: 'brine-demo' }), { name: 'brine-demo', result: true, changes: {}, comment: 'Gem is not installed.' });
  });

  it('gem.sources_remove and sources_add: the default source removed from ~/.gemrc, then test=True to add it back', async () => {
    const src = 'https://rubygems.org/';
    assert.deepEqual(await runState(sourcesRemove, { name: src }, { test: true }), { name: src, result: null, changes: {}, comment: 'The gem source would have been removed.' });
    assert.deepEqual(await runState(sourcesRemove, { name: src }), { name: src, result: true, changes: { [src]: 'Removed' }, comment: 'Gem source was successfully removed.' });
    assert.doesNotMatch(execFileSync('gem', ['sources'], { encoding: 'utf8' }), /rubygems\.org/);
    assert.deepEqual(await runState(sourcesRemove, { name: src }), { name: src, result: true, changes: {}, comment: 'Gem source is already removed.' });
    // Adding needs the network (gem fetches the source's index): test mode only here
    assert.deepEqual(await runState(sourcesAdd, { name: src }, { test: true }), { name: src, result: null, changes: {}, comment: `The gem source ${src} would have been added.` });
  });
});

describe('gem.installed without gem', () => {
  it('test=True answers as Salt; a real run fails naming the package', async () => {
    process.env.PATH = path.join(dir, 'empty-bin');
    try {
      assert.deepEqual(await runState(gemInstalled, { name: 'rake' }, { test: true }), { name: 'rake', result: null, changes: {}, comment: 'The gem rake would have been installed' });
      const r = await runState(gemInstalled, { name: 'rake' });
      assert.deepEqual([r.result, r.comment], [false, 'gem is not installed on this minion; install Ruby first (pkg.installed: ruby)']);
      // Nothing can be installed without gem: a removal has nothing to do
      assert.deepEqual(await runState(gemRemoved, { name: 'rake' }), { name: 'rake', result: true, changes: {}, comment: 'Gem is not installed.' });
      const add = await runState(sourcesAdd, { name: 'https://gems.example/' });
      assert.deepEqual([add.result, add.comment], [false, 'gem is not installed on this minion; install Ruby first (pkg.installed: ruby)']);
    } finally {
      process.env.PATH = saved.PATH;
    }
  });
});
