// git_pillar below the master (issue 23 point 2): the configuration forms and their coded errors
// as Salt 3007 reads them, the __env__ mapping as a table, and the pillar of real git
// repositories (file://, fetched by the real `git`) compiled for a minion: a remote never
// fetched fails the render naming it, git_pillar_includes joins the remotes of one environment,
// a remote with a mountpoint serves includes only, pillarenv keeps one environment.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { compilePillar, memoryPillarSource, planExtPillar } from '../../../src/pillar/index.js';
import { readGitPillarRemotes } from '../../../src/pillar/ext/git-pillar-config.js';
import { checkoutCommit, checkoutTarget, envOf, envsOffered } from '../../../src/pillar/ext/git-pillar-env.js';
import { BrineError } from '../../../src/util/errors.js';
import { createLogger } from '../../../src/util/logger.js';
import { GitRepo } from '../../helpers/git-repo.js';

const LABEL = 'ext_pillar #1 (git)';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof BrineError) return `${err.code}: ${err.message}`;
    throw err;
  }
  return 'no error';
}

describe('git_pillar configuration', () => {
  it('reads "<branch> <URL>", a URL alone on git_pillar_branch, a one-key mapping with parameters, and the global overrides', () => {
    const [a, b, c] = readGitPillarRemotes(
      ['dev https://h/p.git', 'https://h/q.git', { '__env__ ssh://git@h/r.git': [{ root: 'salt://pillar/' }, { base: 'main' }, { name: 'r' }, { mountpoint: 'salt://shared' }] }],
      { git_pillar_branch: 'prod', git_pillar_root: 'top', git_pillar_user: 'bob', git_pillar_env: '' },
      LABEL,
    );
    assert.deepEqual([a!.branch, a!.url, a!.root, a!.auth.user, a!.base], ['dev', 'https://h/p.git', 'top', 'bob', 'master']);
    assert.deepEqual([b!.branch, b!.url], ['prod', 'https://h/q.git']);
    assert.deepEqual([c!.branch, c!.url, c!.root, c!.base, c!.name, c!.mountpoint, c!.shown], ['__env__', 'ssh://git@h/r.git', 'pillar', 'main', 'r', 'shared', '__env__ ssh://git@h/r.git']);
    // Salt calls ext_pillar(minion_id, pillar, *repos): a string alone is one remote
    assert.equal(readGitPillarRemotes('master https://h/p.git', {}, LABEL).length, 1);
    assert.equal(readGitPillarRemotes([{ 'master https://h/p.git': [{ ssl_verify: false }] }], {}, LABEL)[0]!.auth.sslVerify, false);
  });

  it('bad entries are GIT_PILLAR_CONFIG naming the remote and what to write instead', () => {
    const bad = (value: unknown, re: RegExp, opts = {}) =>
      assert.match(
        codeOf(() => readGitPillarRemotes(value, opts, LABEL)),
        re,
      );
    bad(['master https://h/p.git extra'], /^GIT_PILLAR_CONFIG: ext_pillar #1 \(git\) master https:\/\/h\/p\.git extra has 3 words; write it as '<branch> <URL>'/);
    bad([{ 'dev https://h/p.git': [{ base: 'main' }] }], /^GIT_PILLAR_CONFIG: .*base can only be specified if __env__ is specified as the branch name/);
    bad([{ 'master https://h/p.git': [{ rooot: 'x' }] }], /^GIT_PILLAR_CONFIG: .*unknown parameter "rooot"; a remote takes base, env, root/);
    bad([{ 'master http://h/p.git': [{ password: 'pw' }] }], /^GIT_PILLAR_CONFIG: .*a password would be sent over plain http/);
    bad(['master https://h/p.git', 'master https://h/p.git'], /^GIT_PILLAR_CONFIG: .*another remote has the same URL/);
    bad([42], /^GIT_PILLAR_CONFIG: ext_pillar #1 \(git\)\[0\] is neither a URL nor a one-key mapping/);
    bad({ master: 'x' }, /^GIT_PILLAR_CONFIG: ext_pillar #1 \(git\) must be a list/);
    bad(['master https://h/p.git'], /^GIT_PILLAR_CONFIG: git_pillar_update_interval must be a positive number/, { git_pillar_update_interval: 0 });
    assert.match(
      codeOf(() => readGitPillarRemotes([{ 'master https://user:s3cret@h/p.git': [{ nope: 1 }] }], {}, LABEL)),
      /https:\/\/\*\*\*@h\/p\.git/,
      'a password in the URL is not in the message',
    );
  });
});

describe('git_pillar __env__ mapping (Salt GitProvider.get_checkout_target, GitPillar.checkout)', () => {
  const remote = (id: string, params: Record<string, unknown>[] = [], opts = {}) => readGitPillarRemotes([{ [id]: params.length > 0 ? params : [{ name: 'x' }] }], opts, LABEL)[0]!;
  it('is a table of branch, env and pillarenv', () => {
    const rows: [string, ReturnType<typeof remote>, string | undefined, string, string][] = [
      // name, remote, pillarenv, checkout target, environment
      ['__env__, no pillarenv', remote('__env__ file:///r'), undefined, 'master', 'base'],
      ['__env__, pillarenv base', remote('__env__ file:///r'), 'base', 'master', 'base'],
      ['__env__, pillarenv dev', remote('__env__ file:///r'), 'dev', 'dev', 'dev'],
      ['__env__ with base main', remote('__env__ file:///r', [{ base: 'main' }]), undefined, 'main', 'base'],
      ['__env__ with git_pillar_base', remote('__env__ file:///r', [], { git_pillar_base: 'trunk' }), undefined, 'trunk', 'base'],
      ['__env__ with all_saltenvs', remote('__env__ file:///r', [{ all_saltenvs: 'main' }]), 'qa', 'main', 'qa'],
      ['fixed branch dev', remote('dev file:///r'), undefined, 'dev', 'dev'],
      ['fixed branch master', remote('master file:///r'), 'dev', 'master', 'base'],
      ['fixed branch with env', remote('release file:///r', [{ env: 'prod' }]), undefined, 'release', 'prod'],
    ];
    for (const [name, r, pillarenv, target, env] of rows) {
      assert.equal(checkoutTarget(r, pillarenv), target, `${name}: target`);
      assert.equal(envOf(r, pillarenv), env, `${name}: env`);
    }
  });
  it('checks out a branch, else a tag, else the fallback; offers every branch of an __env__ remote', () => {
    const refs = {
      branches: new Map([
        ['master', 'a'.repeat(40)],
        ['dev', 'b'.repeat(40)],
      ]),
      tags: new Map([['v1', 'c'.repeat(40)]]),
    };
    const r = remote('__env__ file:///r', [{ fallback: 'master' }]);
    assert.equal(checkoutCommit(r, refs, 'dev'), 'b'.repeat(40));
    assert.equal(checkoutCommit(r, refs, 'v1'), 'c'.repeat(40));
    assert.equal(checkoutCommit(r, refs, 'qa'), 'a'.repeat(40));
    assert.equal(checkoutCommit(remote('__env__ file:///r'), refs, 'qa'), undefined);
    assert.deepEqual(envsOffered(remote('__env__ file:///r'), refs).sort(), ['base', 'dev', 'v1']);
    assert.deepEqual(envsOffered(remote('dev file:///r'), refs), ['dev']);
  });
});

describe('git_pillar on real git repositories', () => {
  const setup = (t: TestContext) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-gitpillar-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const log: string[] = [];
    const logger = createLogger({ name: 'test', level: 'info', write: (l) => log.push(l) });
    const plan = (value: unknown, options: Record<string, unknown> = {}) =>
      planExtPillar([{ git: value }], { pillarenv: null, pillarenvRoots: undefined, cmdTimeoutMs: 10_000, options, cachedir: path.join(dir, 'cache'), logger }).sources;
    const compile = (sources: ReturnType<typeof plan>, pillarenv?: string) =>
      compilePillar(memoryPillarSource({ base: {} }), { id: 'web1', grains: { id: 'web1' } }, { strategy: 'smart', mergeLists: false, ext: sources, ...(pillarenv ? { pillarenv } : {}) });
    return { dir, log, plan, compile };
  };

  it('a remote never fetched fails the render with EXT_PILLAR_FAILED naming it, and its fetch failure is logged once', async (t) => {
    const { dir, log, plan, compile } = setup(t);
    const sources = plan([`master file://${dir}/missing.git`]);
    const r = await compile(sources);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]!, new RegExp(`^Failed to load ext_pillar #1 \\(git\\): remote master file://${dir}/missing\\.git has not been fetched yet; .*brine git-pillar update`));
    const up = await sources[0]!.remotes!.update(false);
    assert.equal(up[0]!.ok, false);
    await sources[0]!.remotes!.update(false);
    assert.equal(log.filter((l) => l.includes('GIT_PILLAR_REMOTE_UNREACHABLE: git_pillar remote master file://')).length, 1, 'one warning per failure streak');
    const again = await compile(sources);
    assert.match(again.errors[0]!, /has not been fetched \(.*\)/, "git's message is given");
  });

  it('git_pillar_includes joins the remotes of one environment; a mountpoint remote serves includes only; pillarenv keeps one environment', async (t) => {
    const { dir, plan, compile } = setup(t);
    const main = new GitRepo(path.join(dir, 'main'));
    main.commit({ 'top.sls': "base:\n  '*':\n    - app\n", 'app.sls': 'include:\n  - shared.db\napp: {{ grains.id }}\n' });
    main.checkout('dev', true);
    main.commit({ 'top.sls': "dev:\n  '*':\n    - devapp\n", 'devapp.sls': 'devapp: true\n' });
    main.push();
    const shared = new GitRepo(path.join(dir, 'shared'));
    shared.commit({ 'top.sls': "base:\n  '*':\n    - never\n", 'never.sls': 'never: true\n', 'db.sls': 'db: {port: 5432}\n' });
    shared.push();
    const entry = [`master ${main.fileUrl}`, `dev ${main.fileUrl}`, { [`master ${shared.fileUrl}`]: [{ mountpoint: 'shared' }] }];
    const sources = plan(entry);
    const up = await sources[0]!.remotes!.update(false);
    assert.deepEqual(
      up.map((u) => u.ok),
      [true, true, true],
    );
    const all = await compile(sources);
    assert.deepEqual(all.errors, []);
    assert.deepEqual(all.pillar, { db: { port: 5432 }, app: 'web1', devapp: true });
    const dev = await compile(sources, 'dev');
    assert.deepEqual([dev.errors, dev.pillar], [[], { devapp: true }]);
    // without includes, the include of the other remote is an error of the render
    const alone = plan(entry, { git_pillar_includes: false });
    await alone[0]!.remotes!.update(false);
    const r = await compile(alone);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]!, /^Failed to load ext_pillar #1 \(git\): .*shared\.db/);
  });

  it('a fixed branch that is gone fails the render naming it; an __env__ remote without that branch is left out', async (t) => {
    const { dir, plan, compile } = setup(t);
    const repo = new GitRepo(path.join(dir, 'r'));
    repo.commit({ 'top.sls': "base:\n  '*':\n    - a\n", 'a.sls': 'a: 1\n' });
    repo.push();
    const gone = plan([`nosuch ${repo.fileUrl}`]);
    await gone[0]!.remotes!.update(false);
    assert.match((await compile(gone)).errors[0]!, /remote nosuch file:\/\/.* has no branch or tag "nosuch"/);
    const env = plan([`__env__ ${repo.fileUrl}`]);
    await env[0]!.remotes!.update(false);
    assert.deepEqual((await compile(env)).pillar, { a: 1 });
    assert.equal(env[0]!.envs!().includes('qa'), false);
  });
});
