// Real git repositories for gitfs tests: a work repository the test commits to (branches,
// tags, pushes) and a bare repository it publishes to, which the master clones over file:// or
// SSH. Uses the Debian `git` program with a fixed identity and no user or system config.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'brine test',
  GIT_AUTHOR_EMAIL: 'test@brine.invalid',
  GIT_COMMITTER_NAME: 'brine test',
  GIT_COMMITTER_EMAIL: 'test@brine.invalid',
};

export class GitRepo {
  readonly work: string;
  /** The bare repository the master fetches from. */
  readonly bare: string;

  constructor(readonly dir: string) {
    this.work = path.join(dir, 'work');
    this.bare = path.join(dir, 'remote.git');
    fs.mkdirSync(dir, { recursive: true });
    this.git(['init', '--quiet', '-b', 'master', this.work], dir);
    execFileSync('git', ['init', '--quiet', '--bare', this.bare], { env: ENV });
    this.git(['remote', 'add', 'origin', this.bare]);
  }

  get fileUrl(): string {
    return `file://${this.bare}`;
  }

  git(args: string[], cwd = this.work): string {
    return execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8' });
  }

  /** Writes files (path -> content; null removes) and commits them on the current branch. */
  commit(files: Record<string, string | null>, message = 'change'): string {
    for (const [rel, content] of Object.entries(files)) {
      const abs = path.join(this.work, rel);
      if (content === null) fs.rmSync(abs, { force: true });
      else {
        fs.mkdirSync(path.dirname(abs), { recursive: true });
        fs.writeFileSync(abs, content);
      }
    }
    this.git(['add', '-A']);
    this.git(['commit', '--quiet', '--allow-empty', '-m', message]);
    return this.git(['rev-parse', 'HEAD']).trim();
  }

  symlink(target: string, rel: string): void {
    const abs = path.join(this.work, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.symlinkSync(target, abs);
  }

  checkout(branch: string, create = false): void {
    this.git(create ? ['checkout', '--quiet', '-b', branch] : ['checkout', '--quiet', branch]);
  }

  tag(name: string, annotated = false): void {
    this.git(annotated ? ['tag', '-a', '-m', name, name] : ['tag', name]);
  }

  /** Publishes every branch and tag to the bare repository (deleted ones too). */
  push(): void {
    this.git(['push', '--quiet', '--force', '--prune', 'origin', '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']);
  }
}
