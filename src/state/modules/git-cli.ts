// Runs the git program for the git states: argv only (never a shell), no terminal prompts, the
// state's `user` (a uid/gid switch, with that user's HOME so ~/.gitconfig and ~/.ssh apply) and
// `identity` keys (through GIT_SSH_COMMAND). A failure carries git's own message, as Salt's
// _strip_exc leaves it for the state's comment.

import { resolveRunas } from '../../modules/cmd-module.js';
import { which } from '../../modules/host-tools.js';
import { runProcess } from '../../modules/process-runner.js';

/** A git command that exited non-zero; `message` is git's stderr (or stdout), trimmed. */
export class GitFailure extends Error {
  constructor(
    message: string,
    readonly retcode: number,
  ) {
    super(message);
    this.name = 'GitFailure';
  }
}

export interface GitOptions {
  /** The state function, for error messages. */
  fun: string;
  user?: string | undefined;
  /** Private keys tried in order for ssh remotes. */
  identity?: readonly string[] | undefined;
  signal?: AbortSignal | undefined;
}

/** Single-quotes a word for the ssh command line git runs through sh. */
function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export class GitCli {
  private constructor(
    private readonly env: Record<string, string>,
    private readonly ids: { uid: number; gid: number } | undefined,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Undefined when git is not installed: the caller fails with a hint to install it. */
  static async open(opts: GitOptions): Promise<GitCli | undefined> {
    if (!which('git')) return undefined;
    const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
    const runas = opts.user ? await resolveRunas(opts.fun, opts.user) : undefined;
    if (runas) env.HOME = runas.home;
    if (opts.identity && opts.identity.length > 0) {
      const keys = opts.identity.map((k) => `-i ${shellQuote(k)}`).join(' ');
      env.GIT_SSH_COMMAND = `ssh -o BatchMode=yes -o IdentitiesOnly=yes ${keys}`;
    }
    return new GitCli(env, runas ? { uid: runas.uid, gid: runas.gid } : undefined, opts.signal);
  }

  /** Runs `git <args>`; throws GitFailure on a non-zero exit. Returns stdout without its trailing newline. */
  async run(args: readonly string[], cwd?: string): Promise<string> {
    const r = await this.attempt(args, cwd);
    if (r.retcode !== 0) throw new GitFailure((r.stderr || r.stdout).trim() || `git ${args[0]} exited with ${r.retcode}`, r.retcode);
    return r.stdout;
  }

  /** Like run, but returns stderr too (git fetch reports the refs it updated there). */
  async runBoth(args: readonly string[], cwd?: string): Promise<{ stdout: string; stderr: string }> {
    const r = await this.attempt(args, cwd);
    if (r.retcode !== 0) throw new GitFailure((r.stderr || r.stdout).trim() || `git ${args[0]} exited with ${r.retcode}`, r.retcode);
    return { stdout: r.stdout, stderr: r.stderr };
  }

  /** Runs `git <args>` and returns undefined instead of throwing when it fails (a probe). */
  async probe(args: readonly string[], cwd?: string): Promise<string | undefined> {
    const r = await this.attempt(args, cwd);
    return r.retcode === 0 ? r.stdout : undefined;
  }

  private attempt(args: readonly string[], cwd?: string) {
    return runProcess({
      argv: ['git', ...args],
      label: 'git',
      rstrip: true,
      env: this.env,
      ...(cwd ? { cwd } : {}),
      ...(this.signal ? { signal: this.signal } : {}),
      ...(this.ids ? { uid: this.ids.uid, gid: this.ids.gid } : {}),
    });
  }
}

/** Parses `git ls-remote` output into ref name → SHA1, in git's order (HEAD first). */
export function parseLsRemote(out: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]{40,64})\t(\S+)$/.exec(line.trim());
    if (m) refs.set(m[2]!, m[1]!);
  }
  return refs;
}
