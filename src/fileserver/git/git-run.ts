// Runs the real `git` program (Debian `git`) for the git layer: arguments as an array (no
// shell), a bounded run time and output size, no terminal prompt, and stderr kept for the
// operator with any credentials in URLs removed before it reaches a message or a log.

import { spawn } from 'node:child_process';
import { BrineError } from '../../util/errors.js';

export interface GitRunOptions {
  /** Extra environment for this run (GIT_SSH_COMMAND, GIT_ASKPASS, GIT_INDEX_FILE ...). */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** Milliseconds before the run is killed. */
  timeoutMs?: number;
  /** Kills the run (the master is stopping). */
  signal?: AbortSignal;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

const DEFAULT_TIMEOUT_MS = 300_000;
const MAX_OUTPUT = 256 * 1024 * 1024;

/**
 * Credentials out of URLs anywhere in a text: everything before `@` of an http(s) URL (a token
 * is often the user name there), and the password of `user:password@` in any other scheme (an
 * SSH user name is not a secret and helps the operator).
 */
export function redactUrls(text: string): string {
  return text.replace(/(https?:\/\/)[^/@\s]+@/gi, '$1***@').replace(/([a-z][a-z0-9+.-]*:\/\/)([^/@\s:]+):[^/@\s]+@/gi, '$1$2:***@');
}

/** Runs git; resolves with its exit code and output (a non-zero exit is not an error here). */
export function runGit(args: readonly string[], opts: GitRunOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      ...(opts.signal ? { signal: opts.signal, killSignal: 'SIGKILL' as const } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      // never ask on a terminal; LC_ALL=C keeps git's messages stable for the log
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C', LANGUAGE: 'C', ...opts.env },
    });
    const out: Buffer[] = [];
    let outLen = 0;
    let err = '';
    let killedFor: string | undefined;
    const timer = setTimeout(() => {
      killedFor = `it ran longer than ${Math.round((opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s`;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => {
      outLen += d.length;
      if (outLen > MAX_OUTPUT) {
        killedFor = `its output passed ${MAX_OUTPUT} bytes`;
        child.kill('SIGKILL');
        return;
      }
      out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 64 * 1024) err += d.toString('utf8');
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (e.name === 'AbortError') {
        reject(new BrineError('EXEC_FAILED', `git ${args[0] ?? ''} was stopped: the master is shutting down`));
        return;
      }
      const missing = e.code === 'ENOENT';
      reject(
        new BrineError('EXEC_FAILED', missing ? 'the git program is not installed; install it (Debian: apt-get install git) to use gitfs' : `git could not be started: ${e.message}`, { cause: e }),
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const stderr = redactUrls(err.trim());
      if (killedFor !== undefined) {
        reject(new BrineError('EXEC_FAILED', `git ${args[0] ?? ''} was stopped: ${killedFor}`));
        return;
      }
      resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr });
    });
  });
}

/** Runs git and returns stdout; a non-zero exit becomes EXEC_FAILED with git's own words. */
export async function gitOk(args: readonly string[], opts: GitRunOptions = {}): Promise<Buffer> {
  const r = await runGit(args, opts);
  if (r.code !== 0)
    throw new BrineError(
      'EXEC_FAILED',
      `git ${args
        .filter((a) => !a.startsWith('--git-dir'))
        .slice(0, 2)
        .join(' ')} failed (exit ${r.code}): ${r.stderr || 'no message'}`,
    );
  return r.stdout;
}
