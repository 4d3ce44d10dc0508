// git.latest against real repositories on disk: a bare repository made here is the remote
// (file:// URL), the state clones and updates real checkouts with the git program (Debian
// package git). Comments and changes are pinned to Salt's salt/states/git.py latest().

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gitLatest } from '../../../src/state/modules/git-latest.js';
import { notFastForwardMessage, resolveRemoteRev } from '../../../src/state/modules/git-latest-plan.js';
import { DirFileClient, runState, tempDir } from './file-fixture.js';

let dir: string;
let remote: string;
let url: string;
let work: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** Commits a file in the working copy that pushes to the remote, and returns the new SHA1. */
function commit(file: string, text: string, branch = 'main'): string {
  fs.writeFileSync(path.join(work, file), text);
  git(work, 'add', file);
  git(work, 'commit', '-q', '-m', `edit ${file}`);
  git(work, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
  return git(work, 'rev-parse', 'HEAD');
}

before(() => {
  dir = tempDir('brine-git-');
  remote = path.join(dir, 'remote.git');
  work = path.join(dir, 'work');
  git(dir, 'init', '-q', '--bare', remote);
  git(dir, 'clone', '-q', remote, work);
  url = `file://${remote}`;
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('resolveRemoteRev (Salt latest(): rev to remote_rev)', () => {
  const refs = new Map([
    ['HEAD', 'a'.repeat(40)],
    ['refs/heads/dev', 'b'.repeat(40)],
    ['refs/heads/main', 'a'.repeat(40)],
    ['refs/tags/v1', 'c'.repeat(40)],
    ['refs/tags/v1^{}', 'd'.repeat(40)],
  ]);
  it('HEAD, a branch, an annotated tag and an unknown hex string', () => {
    const head = resolveRemoteRev(refs, 'HEAD', 'origin', false);
    assert.deepEqual([head.remoteRev, head.remoteRevType, head.desiredUpstream, head.remoteLoc, head.defaultBranch], ['a'.repeat(40), 'sha1', undefined, 'remote HEAD (aaaaaaa)', 'main']);
    const dev = resolveRemoteRev(refs, 'dev', 'origin', false);
    assert.deepEqual([dev.remoteRevType, dev.desiredUpstream, dev.remoteLoc], ['branch', 'origin/dev', 'origin/dev (bbbbbbb)']);
    const tag = resolveRemoteRev(refs, 'v1', 'origin', false);
    assert.deepEqual([tag.remoteRev, tag.remoteRevType, tag.desiredUpstream, tag.remoteLoc], ['d'.repeat(40), 'tag', false, 'v1 (ddddddd)']);
    const sha = resolveRemoteRev(refs, 'ABCDEF1', 'origin', false);
    assert.deepEqual([sha.rev, sha.remoteRev, sha.remoteRevType, sha.remoteLoc], ['abcdef1', 'abcdef1', 'sha1', 'abcdef1']);
    assert.equal(resolveRemoteRev(refs, 'nope', 'origin', false).remoteRev, undefined);
  });
  it("words the not-fast-forward failure as Salt's _not_fast_forward", () => {
    assert.equal(
      notFastForwardMessage({ rev: 'HEAD', pre: 'a'.repeat(40), post: 'b'.repeat(40), branch: undefined, localBranch: 'main', defaultBranch: 'main', localChanges: false }),
      "Repository would be updated to bbbbbbb, but this is not a fast-forward merge. Set 'force_reset' to True to force this update.",
    );
  });
});

describe('git.latest', () => {
  it('test=True on a missing target reports the clone; then clones; then is up-to-date', async () => {
    const first = commit('README', 'one\n');
    const target = path.join(dir, 'clone1');
    const t = await runState(gitLatest, { name: url, target }, { test: true });
    assert.deepEqual(t, { name: url, result: null, changes: { new: `${url} => ${target}` }, comment: `Repository ${url} would be cloned to ${target}` });
    assert.equal(fs.existsSync(target), false);
    const r = await runState(gitLatest, { name: url, target });
    assert.deepEqual(r, { name: url, result: true, changes: { new: `${url} => ${target}`, revision: { old: null, new: first } }, comment: `${url} cloned to ${target}` });
    assert.equal(fs.readFileSync(path.join(target, 'README'), 'utf8'), 'one\n');
    assert.deepEqual(await runState(gitLatest, { name: url, target }), { name: url, result: true, changes: {}, comment: `Repository ${target} is up-to-date` });
    assert.deepEqual(await runState(gitLatest, { name: url, target }, { test: true }), { name: url, result: true, changes: {}, comment: `Repository ${target} is up-to-date` });
  });

  it('a new remote commit: test=True reports the revision change, the run fetches and fast-forwards', async () => {
    const target = path.join(dir, 'clone1');
    const old = git(target, 'rev-parse', 'HEAD');
    const next = commit('README', 'two\n');
    const t = await runState(gitLatest, { name: url, target }, { test: true });
    assert.deepEqual(t, {
      name: url,
      result: null,
      changes: { revision: { old, new: next } },
      comment: `Remote 'origin' would be fetched. Repository would be updated from ${old.slice(0, 7)} to ${next.slice(0, 7)}.`,
    });
    assert.equal(git(target, 'rev-parse', 'HEAD'), old, 'test=True changed nothing');
    const r = await runState(gitLatest, { name: url, target });
    assert.deepEqual(r, {
      name: url,
      result: true,
      changes: { revision: { old, new: next } },
      comment: `${url} was fetched, resulting in updated refs. Repository was fast-forwarded to remote HEAD (${next.slice(0, 7)}).`,
    });
    assert.equal(fs.readFileSync(path.join(target, 'README'), 'utf8'), 'two\n');
  });

  it('local changes: up-to-date with a hint; force_reset discards them', async () => {
    const target = path.join(dir, 'clone1');
    fs.writeFileSync(path.join(target, 'README'), 'edited locally\n');
    assert.deepEqual(await runState(gitLatest, { name: url, target }), {
      name: url,
      result: true,
      changes: {},
      comment: `Repository ${target} is up-to-date, but with local changes. Set 'force_reset' to True to purge local changes.`,
    });
    const t = await runState(gitLatest, { name: url, target, force_reset: true }, { test: true });
    assert.deepEqual(t, {
      name: url,
      result: null,
      changes: { 'forced update': true },
      comment: `${target} is up-to-date, but with local changes. Since 'force_reset' is enabled, these local changes would be reset.`,
    });
    const r = await runState(gitLatest, { name: url, target, force_reset: true });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.changes['forced update'], true);
    assert.equal(fs.readFileSync(path.join(target, 'README'), 'utf8'), 'two\n');
  });

  it('a diverged local commit fails as not a fast-forward unless force_reset', async () => {
    const target = path.join(dir, 'clone1');
    fs.writeFileSync(path.join(target, 'local'), 'x\n');
    git(target, 'add', 'local');
    git(target, 'commit', '-q', '-m', 'local only');
    const mine = git(target, 'rev-parse', 'HEAD');
    const theirs = git(work, 'rev-parse', 'HEAD');
    const r = await runState(gitLatest, { name: url, target });
    assert.deepEqual(r, {
      name: url,
      result: false,
      changes: {},
      comment: `Repository would be updated to ${theirs.slice(0, 7)}, but this is not a fast-forward merge. Set 'force_reset' to True to force this update.`,
    });
    const forced = await runState(gitLatest, { name: url, target, force_reset: true });
    assert.deepEqual(forced, {
      name: url,
      result: true,
      changes: { 'forced update': true, revision: { old: mine, new: theirs } },
      comment: `Repository was hard-reset to remote HEAD (${theirs.slice(0, 7)})`,
    });
  });

  it('rev and branch: a new clone checks the branch out and tracks origin/<rev>', async () => {
    const dev = commit('DEV', 'dev\n', 'dev');
    const target = path.join(dir, 'clone-dev');
    const r = await runState(gitLatest, { name: url, target, rev: 'dev', branch: 'dev' });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `${url} cloned to ${target}. Branch 'dev' checked out, with origin/dev (${dev.slice(0, 7)}) as a starting point.`);
    assert.deepEqual(r.changes, { new: `${url} => ${target}`, revision: { old: null, new: dev } });
    assert.equal(git(target, 'rev-parse', '--abbrev-ref', 'HEAD'), 'dev');
    assert.equal(git(target, 'rev-parse', '--abbrev-ref', 'dev@{upstream}'), 'origin/dev');
  });

  it('refuses a non-empty non-repository target unless force_clone; a missing rev fails', async () => {
    const target = path.join(dir, 'occupied');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'junk'), 'x');
    const r = await runState(gitLatest, { name: url, target });
    assert.equal(r.result, false);
    assert.equal(
      r.comment,
      `Target '${target}' exists, is non-empty and is not a git repository. Set the 'force_clone' option to True to remove this directory's contents and proceed with cloning the remote repository`,
    );
    const t = await runState(gitLatest, { name: url, target, force_clone: true }, { test: true });
    assert.deepEqual(t.changes, { 'forced clone': true, new: `${url} => ${target}` });
    assert.equal(t.result, null);
    const forced = await runState(gitLatest, { name: url, target, force_clone: true });
    assert.equal(forced.result, true, forced.comment);
    assert.equal(forced.changes['forced clone'], true);
    assert.equal(fs.existsSync(path.join(target, 'junk')), false);
    assert.deepEqual(await runState(gitLatest, { name: url, target: path.join(dir, 'x'), rev: 'no-such-branch' }), {
      name: url,
      result: false,
      changes: {},
      comment: "No revision matching 'no-such-branch' exists in the remote repository",
    });
    assert.equal((await runState(gitLatest, { name: url, target: 'relative' })).comment, "target 'relative' is not an absolute path");
    assert.match((await runState(gitLatest, { name: `file://${dir}/missing.git`, target: path.join(dir, 'y') })).comment, /^Failed to check remote refs: /);
  });

  it('identity: a salt:// key is fetched into the cache (mode 0600); a missing one fails in Salt words', async () => {
    const root = path.join(dir, 'fileroot');
    fs.mkdirSync(path.join(root, 'keys'), { recursive: true });
    fs.writeFileSync(path.join(root, 'keys', 'deploy'), 'not a real key\n');
    const files = new DirFileClient(root, path.join(dir, 'cache'));
    const missing = await runState(gitLatest, { name: url, target: path.join(dir, 'id1'), identity: 'salt://keys/none' }, { files });
    assert.deepEqual(missing, { name: url, result: false, changes: {}, comment: "identity 'salt://keys/none' does not exist." });
    const r = await runState(gitLatest, { name: url, target: path.join(dir, 'id1'), identity: 'salt://keys/deploy' }, { files });
    assert.equal(r.result, true, r.comment);
    const cached = path.join(dir, 'cache', 'files', 'base', 'keys', 'deploy');
    assert.equal(fs.statSync(cached).mode & 0o777, 0o600);
  });

  it('a tag rev: the clone is reset to the tag and has no upstream', async () => {
    git(work, 'tag', '-a', 'v1.0', '-m', 'release');
    git(work, 'push', '-q', 'origin', 'v1.0');
    const tagged = git(work, 'rev-parse', 'v1.0^{commit}');
    commit('README', 'after the tag\n');
    const target = path.join(dir, 'clone-tag');
    const r = await runState(gitLatest, { name: url, target, rev: 'v1.0' });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `${url} cloned to ${target}. Repository was reset to v1.0 (${tagged.slice(0, 7)}). Tracking branch was unset.`);
    assert.deepEqual(r.changes.revision, { old: null, new: tagged });
    assert.deepEqual(await runState(gitLatest, { name: url, target, rev: 'v1.0' }), { name: url, result: true, changes: {}, comment: `Repository ${target} is up-to-date` });
  });
});
