import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { comparePkgs, createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';
import { onPath } from '../../helpers/paths.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());
const PKG = 'sl';

function policy(name: string): { installed: string; candidate: string } {
  const out = execFileSync('apt-cache', ['policy', name], { encoding: 'utf8' });
  return { installed: /Installed: (\S+)/.exec(out)?.[1] ?? '(none)', candidate: /Candidate: (\S+)/.exec(out)?.[1] ?? '(none)' };
}

const hasApt = onPath('apt-get') && onPath('dpkg-query');
const isRoot = process.getuid?.() === 0;

describe('pkg on apt with a real package', { skip: !hasApt ? 'apt-get is not on this host' : !isRoot ? 'needs root to install packages' : false }, () => {
  let installedByTest = false;
  after(() => {
    // Leave the host as found even when an assertion failed half-way.
    if (installedByTest) execFileSync('apt-get', ['-q', '-y', 'remove', PKG], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  });

  it(`install, version, list_pkgs, latest_version, remove of '${PKG}'`, async (t) => {
    let { installed, candidate } = policy(PKG);
    if (installed !== '(none)') {
      t.skip(`${PKG} is already installed here; this test installs and removes it, so it leaves it alone`);
      return;
    }
    if (candidate === '(none)') {
      execFileSync('apt-get', ['-q', 'update'], { stdio: 'ignore' });
      candidate = policy(PKG).candidate;
    }
    assert.notEqual(candidate, '(none)', `${PKG} has no candidate even after apt-get update`);

    assert.equal((await run('pkg.version', [PKG])).return, '');
    assert.equal((await run('pkg.latest_version', [PKG], { refresh: false })).return, candidate);

    installedByTest = true;
    const inst = await run('pkg.install', [PKG]);
    assert.equal(inst.error, undefined, inst.error?.message);
    assert.deepEqual(inst.return, { [PKG]: { old: '', new: candidate } });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${field} format
    assert.equal(execFileSync('dpkg-query', ['-W', '--showformat=${Version}', PKG], { encoding: 'utf8' }), candidate);

    assert.equal((await run('pkg.version', [PKG])).return, candidate);
    const both = (await run('pkg.version', [PKG, 'no-such-pkg-brine'])).return;
    assert.deepEqual(both, { [PKG]: candidate, 'no-such-pkg-brine': '' });
    const list = (await run('pkg.list_pkgs', [])).return as Record<string, string>;
    assert.equal(list[PKG], candidate);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${field} format
    assert.equal(list.bash, execFileSync('dpkg-query', ['-W', '--showformat=${Version}', 'bash'], { encoding: 'utf8' }));
    assert.deepEqual(((await run('pkg.list_pkgs', [], { versions_as_list: true })).return as Record<string, string[]>)[PKG], [candidate]);
    assert.equal((await run('pkg.latest_version', [PKG], { refresh: false })).return, '', 'up to date');
    assert.deepEqual((await run('pkg.install', [], { pkgs: [PKG] })).return, {}, 'installing again changes nothing');

    const rm = await run('pkg.remove', [PKG]);
    assert.deepEqual(rm.return, { [PKG]: { old: candidate, new: '' } });
    installedByTest = false;
    assert.equal((await run('pkg.version', [PKG])).return, '');
    assert.deepEqual((await run('pkg.remove', [PKG])).return, {}, 'removing an absent package changes nothing');
  });

  it("an unknown package is EXEC_FAILED with apt-get's message", async () => {
    const res = await run('pkg.install', ['no-such-package-brine'], { pkgs: null });
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.match(String(res.error?.message), /pkg\.install: 'apt-get .*install -- no-such-package-brine' failed with exit code 100: .*Unable to locate package no-such-package-brine/);
  });
});

describe('pkg arguments and hosts without a package manager', () => {
  it('names that could be read as options are refused before anything runs', async () => {
    for (const [fun, arg, kw] of [
      ['pkg.install', ['-oDebug::pkgProblemResolver=1'], {}],
      ['pkg.install', [], { pkgs: ['ok', '--purge'] }],
      ['pkg.install', ['sl'], { version: '--force' }],
      ['pkg.remove', ['sl; rm -rf /'], {}],
      ['pkg.version', [], {}],
      ['pkg.install', [], {}],
    ] as const) {
      const res = await run(fun, [...arg], { ...kw });
      assert.equal(res.error?.code, 'BAD_ARGUMENTS', `${fun} ${JSON.stringify(arg)} ${JSON.stringify(kw)}`);
    }
  });

  it('neither apt nor dnf: a coded error naming both', async () => {
    const saved = process.env.PATH;
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
    process.env.PATH = empty;
    try {
      const res = await run('pkg.list_pkgs', []);
      assert.equal(res.error?.code, 'EXEC_FAILED');
      assert.match(String(res.error?.message), /no supported package manager on this host \(neither apt-get with dpkg-query nor dnf with rpm/);
    } finally {
      process.env.PATH = saved;
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('comparePkgs is Salt\'s {name: {old, new}} with "" for absent', () => {
    const before = new Map([
      ['a', ['1']],
      ['b', ['2']],
    ]);
    const after_ = new Map([
      ['a', ['1']],
      ['b', ['3']],
      ['c', ['1', '2']],
    ]);
    assert.deepEqual(comparePkgs(before, after_), { b: { old: '2', new: '3' }, c: { old: '', new: '1,2' } });
  });
});
