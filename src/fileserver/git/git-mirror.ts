// One git remote kept on this machine: a bare clone under its own directory, fetched on demand,
// its branches and tags read as commit IDs, and the tree of any commit materialised once as a
// read-only directory (`trees/<commit>`), so files are then served from disk like file_roots.
// Nothing here knows about saltenvs: gitfs (and later git_pillar) map refs to environments.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gitOk, runGit } from './git-run.js';
import { gitAuthEnv, type GitAuth } from './credentials.js';

export interface GitRefs {
  /** Branch name -> commit ID. */
  branches: Map<string, string>;
  /** Tag name -> commit ID (annotated tags peeled to their commit). */
  tags: Map<string, string>;
}

export interface FetchResult {
  /** Whether any branch or tag moved, appeared or disappeared. */
  changed: boolean;
  refs: GitRefs;
}

const COMMIT = /^[0-9a-f]{40}$/;

export class GitMirror {
  readonly gitDir: string;
  readonly treesDir: string;
  private ready = false;

  /**
   * @param dir   this remote's directory (created): `repo.git/` and `trees/` go inside
   * @param url   the remote's URL as configured (may hold a user, never shown unredacted)
   */
  constructor(
    readonly dir: string,
    readonly url: string,
    private readonly auth: GitAuth,
    private readonly helperDir: string,
    /** Aborted when the owner closes: running git commands are killed. */
    private readonly signal?: AbortSignal,
  ) {
    this.gitDir = path.join(dir, 'repo.git');
    this.treesDir = path.join(dir, 'trees');
  }

  private git(args: string[], env: Record<string, string> = {}): Promise<Buffer> {
    return gitOk([`--git-dir=${this.gitDir}`, ...args], this.signal ? { env, signal: this.signal } : { env });
  }

  /** Creates the bare repository (once); a URL stored in its config by another tool is removed. */
  private async init(): Promise<void> {
    if (this.ready) return;
    if (!fs.existsSync(path.join(this.gitDir, 'HEAD'))) {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      await gitOk(['init', '--bare', '--quiet', this.gitDir]);
    } else {
      // it would come before the URL fetch() passes, and may be an old one (or hold a password)
      await runGit([`--git-dir=${this.gitDir}`, 'config', '--unset-all', 'remote.origin.url']);
    }
    this.ready = true;
  }

  /** Whether a clone exists on disk (from an earlier run). */
  cloned(): boolean {
    return fs.existsSync(path.join(this.gitDir, 'HEAD'));
  }

  /** Fetches every branch and tag (pruning deleted ones); throws EXEC_FAILED with git's message. */
  async fetch(): Promise<FetchResult> {
    await this.init();
    const before = await this.refs().catch(() => undefined);
    await this.git(
      // no credential helper from the master user's git config may store or supply a password
      ['-c', 'credential.helper=', 'fetch', '--quiet', '--prune', '--prune-tags', '--force', '--no-auto-gc', 'origin', '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*'],
      {
        ...gitAuthEnv(this.auth, this.helperDir),
        // the URL reaches git through its environment, never its argument list (ps shows that to
        // every user) nor the repository's config file: a URL may hold a password
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'remote.origin.url',
        GIT_CONFIG_VALUE_0: this.url,
      },
    );
    const refs = await this.refs();
    return { changed: before === undefined || !sameRefs(before, refs), refs };
  }

  /** The branches and tags fetched so far (empty before the first fetch). */
  async refs(): Promise<GitRefs> {
    const out = (await this.git(['for-each-ref', '--format=%(objectname) %(*objectname) %(refname)', 'refs/remotes/origin/', 'refs/tags/'])).toString('utf8');
    const refs: GitRefs = { branches: new Map(), tags: new Map() };
    for (const line of out.split('\n')) {
      const m = /^([0-9a-f]{40}) ([0-9a-f]{40})? ?(\S+)$/.exec(line);
      if (!m) continue;
      const commit = m[2] ?? m[1]!;
      const name = m[3]!;
      if (name.startsWith('refs/remotes/origin/')) {
        const branch = name.slice('refs/remotes/origin/'.length);
        if (branch !== 'HEAD') refs.branches.set(branch, commit);
      } else if (name.startsWith('refs/tags/')) refs.tags.set(name.slice('refs/tags/'.length), commit);
    }
    return refs;
  }

  /** Whether `commit` (a full commit ID) is in the local clone. */
  async hasCommit(commit: string): Promise<boolean> {
    if (!COMMIT.test(commit)) return false;
    const r = await runGit([`--git-dir=${this.gitDir}`, 'cat-file', '-e', `${commit}^{commit}`]);
    return r.code === 0;
  }

  /**
   * The directory holding the files of `commit`, written once (into a temporary directory,
   * then renamed, so a reader never sees half a tree). Symlinks are written as symlinks; the
   * file server refuses those leading out of the tree.
   */
  async tree(commit: string): Promise<string> {
    if (!COMMIT.test(commit)) throw new Error(`not a commit ID: ${commit}`);
    const dest = path.join(this.treesDir, commit);
    if (fs.existsSync(dest)) return dest;
    fs.mkdirSync(this.treesDir, { recursive: true, mode: 0o700 });
    const tmp = path.join(this.treesDir, `.tmp-${commit}-${randomBytes(4).toString('hex')}`);
    const index = `${tmp}.index`;
    fs.mkdirSync(tmp, { mode: 0o755 });
    try {
      const env = { GIT_INDEX_FILE: index };
      await this.git([`--work-tree=${tmp}`, 'read-tree', commit], env);
      await this.git([`--work-tree=${tmp}`, '-c', 'core.symlinks=true', 'checkout-index', '--all', '--force'], env);
      fs.renameSync(tmp, dest);
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      // another update wrote the same tree first: theirs is as good as ours
      if (!fs.existsSync(dest)) throw err;
    } finally {
      fs.rmSync(index, { force: true });
    }
    return dest;
  }

  /** Removes materialised trees of commits not in `keep` (old checkouts after an update). */
  pruneTrees(keep: ReadonlySet<string>): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.treesDir);
    } catch {
      return;
    }
    for (const name of names) {
      if (COMMIT.test(name) && !keep.has(name)) fs.rmSync(path.join(this.treesDir, name), { recursive: true, force: true });
    }
  }
}

function sameRefs(a: GitRefs, b: GitRefs): boolean {
  const same = (x: Map<string, string>, y: Map<string, string>) => x.size === y.size && [...x].every(([k, v]) => y.get(k) === v);
  return same(a.branches, b.branches) && same(a.tags, b.tags);
}
