// Runs one command from an argv array (never a concatenated shell string) in its own process
// group, captures capped output, and stops the whole group on timeout or abort.

import { type ChildProcess, spawn } from 'node:child_process';
import { BrineError } from '../util/errors.js';
import type { TimerHandle } from '../util/clock.js';
import { signalGroup, stopGroups } from '../util/process-group.js';
import { abortError } from './abort.js';
import { ShellSpawner, spawnerUnsuitable } from './shell-spawner.js';

export const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
const KILL_GRACE_MS = 2000;

export interface RunProcessOptions {
  /** argv[0] is the program (looked up on PATH), the rest its arguments. */
  argv: readonly string[];
  cwd?: string;
  /** Merged onto process.env. */
  env?: Readonly<Record<string, string>>;
  stdin?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Capture stdout and stderr together, in arrival order (Salt's cmd.run). */
  mergeStderr?: boolean;
  /** Send stdout and stderr to /dev/null (cmd.retcode and state guards need only the exit code). */
  discardOutput?: boolean;
  /** Strip trailing whitespace from the output, as Salt's rstrip=True does. */
  rstrip?: boolean;
  /** Bytes kept per capture; the rest is counted and replaced by a marker. */
  maxOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL for the process group. */
  killGraceMs?: number;
  /** Names the caller in error messages, e.g. `cmd.run`. */
  label?: string;
  /** Run as this uid/gid (the caller resolves runas; only root may switch; no supplementary groups). */
  uid?: number;
  gid?: number;
  /** Told the pid (= process group id) once the command started, e.g. for saltutil.kill_job. */
  onSpawn?(pid: number): void;
}

export interface ProcessResult {
  pid: number;
  /** The exit code, or 128 + signal number when a signal ended the process (shell convention). */
  retcode: number;
  stdout: string;
  /** Empty when mergeStderr is set. */
  stderr: string;
}

/** Keeps the first `limit` bytes of a stream and counts what it drops. */
class OutputCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room));
      this.kept = this.limit;
    }
    this.dropped += chunk.length - Math.max(room, 0);
  }

  text(rstrip: boolean): string {
    let s = Buffer.concat(this.chunks).toString('utf8');
    if (rstrip) s = s.trimEnd();
    // Visible, so that nobody mistakes a cut-off output for the whole of it.
    if (this.dropped > 0) s += `\n[output truncated: ${this.dropped} bytes dropped]`;
    return s;
  }
}

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 };

/** The command as its own process group leader, with pipes for what the caller captures. */
function spawnChild(program: string, opts: RunProcessOptions): ChildProcess {
  // detached: the child leads a new process group, so that a timeout can stop everything it
  // started (a shell's background jobs included) with one kill(-pgid).
  return spawn(program, opts.argv.slice(1), {
    cwd: opts.cwd,
    env: opts.env ? { ...process.env, ...opts.env } : process.env,
    detached: true,
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', opts.discardOutput ? 'ignore' : 'pipe', opts.discardOutput ? 'ignore' : 'pipe'],
  });
}

export function runProcess(opts: RunProcessOptions): Promise<ProcessResult> {
  const label = opts.label ?? opts.argv[0] ?? 'command';
  const grace = opts.killGraceMs ?? KILL_GRACE_MS;
  const limit = opts.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT;
  const rstrip = opts.rstrip ?? false;

  return new Promise((resolve, reject) => {
    const program = opts.argv[0];
    if (program === undefined || program === '') {
      reject(new BrineError('BAD_ARGUMENTS', `${label}: the command is empty; give a program to run`));
      return;
    }
    if (opts.signal?.aborted) {
      reject(abortError(opts.signal, label));
      return;
    }

    // Output nobody reads: a small shell forks the command, far faster than brine's own fork.
    const idle =
      opts.discardOutput && opts.stdin === undefined && opts.uid === undefined && opts.gid === undefined && !spawnerUnsuitable(opts.argv, opts.env, opts.cwd) ? ShellSpawner.idle() : undefined;
    const spawner = idle?.pid !== undefined ? idle : undefined;
    const child = spawner ? undefined : spawnChild(program, opts);
    const pid = spawner?.pid ?? child?.pid;

    if (pid !== undefined) opts.onSpawn?.(pid);
    const out = new OutputCapture(limit);
    const err = opts.mergeStderr ? out : new OutputCapture(limit);
    child?.stdout?.on('data', (b: Buffer) => out.push(b));
    child?.stderr?.on('data', (b: Buffer) => err.push(b));
    if (opts.stdin !== undefined && child?.stdin) {
      child.stdin.on('error', () => {
        // EPIPE: the command did not read its input; its exit status tells the story
      });
      child.stdin.end(opts.stdin);
    }

    let settled = false;
    let stopError: BrineError | undefined;
    const timers: NodeJS.Timeout[] = [];
    let escalation: TimerHandle | undefined;
    const cleanup = (): void => {
      for (const t of timers) clearTimeout(t);
      escalation?.cancel();
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      cleanup();
      fn();
    };

    const stop = (error: BrineError): void => {
      if (stopError || settled || pid === undefined) return;
      stopError = error;
      escalation = stopGroups([pid], grace);
      // A process stuck in the kernel may never close its pipes; do not wait for it forever.
      timers.push(setTimeout(() => settle(() => reject(error)), grace * 2));
    };
    const onAbort = (): void => stop(abortError(opts.signal!, label));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    if (opts.timeoutMs !== undefined) {
      const seconds = opts.timeoutMs / 1000;
      timers.push(
        setTimeout(() => {
          stop(
            new BrineError('JOB_TIMEOUT', `${label}: the command did not finish within ${seconds} s and was stopped (process group ${pid}); raise timeout= if it needs longer`, {
              details: { pid },
            }),
          );
        }, opts.timeoutMs),
      );
    }

    const finish = (retcode: number): void => {
      if (stopError) {
        // Members of the group that ignored SIGTERM but closed their pipes: stop them now.
        if (pid) signalGroup(pid, 'SIGKILL');
        const error = stopError;
        settle(() => reject(error));
        return;
      }
      settle(() => resolve({ pid: pid ?? 0, retcode, stdout: out.text(rstrip), stderr: opts.mergeStderr ? '' : err.text(rstrip) }));
    };
    if (spawner) {
      void spawner.run(opts.argv, opts.env, opts.cwd).then(finish);
      return;
    }
    child?.on('error', (e: NodeJS.ErrnoException) => {
      const hint = e.code === 'ENOENT' ? 'check the program name and PATH' : e.code === 'EACCES' ? 'check that the program is executable' : 'see the error code';
      settle(() => reject(new BrineError('EXEC_FAILED', `${label}: cannot start '${program}': ${e.code ?? e.message}; ${hint}`, { cause: e })));
    });
    child?.on('close', (code: number | null, sig: NodeJS.Signals | null) => finish(code ?? (sig ? 128 + (SIGNAL_NUMBERS[sig] ?? 0) : 1)));
  });
}
