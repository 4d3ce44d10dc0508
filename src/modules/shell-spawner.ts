// A small long-lived /bin/sh that starts commands on brine's behalf, for the commands whose output
// nobody reads (cmd.retcode, the state guards unless/onlyif/creates checks). fork() copies the
// page tables of the process that calls it: brine's (two V8 heaps, ~40 MB anonymous memory in a
// `brine call`, more in a long-running minion) make every fork several times as slow as a
// shell's, and a state tree with hundreds of guards spends most of its no-change run there.
// The shell is forked once; each command is then forked by the shell (a subshell that execs it).
//
// What stays as with runProcess: argv is never a shell string (every word is single-quoted), the
// command sees no stdin and its output goes to /dev/null, the exit code (128 + n for a signal)
// comes back, env entries are added to the environment, and a timeout or abort stops the whole
// process group. What differs: the command shares the spawner's process group instead of leading
// its own, so stopping it stops the spawner too (a new one is started for the next command).

import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';

/** Why runProcess must start a command itself: the spawner cannot run it exactly as spawn would. */
export function spawnerUnsuitable(argv: readonly string[], env: Readonly<Record<string, string>> | undefined, cwd: string | undefined): boolean {
  const program = argv[0];
  // exec of a missing program would be exit 127 here, but EXEC_FAILED from spawn: keep that
  if (program === undefined || !program.startsWith('/')) return true;
  for (const word of argv) if (word.includes('\0')) return true;
  if (env !== undefined) for (const [k, v] of Object.entries(env)) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || v.includes('\0')) return true;
  try {
    accessSync(program, constants.X_OK);
    if (cwd !== undefined && !statSync(cwd).isDirectory()) return true;
  } catch {
    return true;
  }
  return false;
}

/** A word for sh, single-quoted: nothing inside is expanded. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The spawner's own shell. */
const SPAWNER_SHELL = '/bin/sh';

// What a command string can read that differs between `/bin/sh -c CMD` and a subshell of the
// spawner evaluating CMD: $$, $PPID, $- and $LINENO (the shell's pid, its parent's, its flags,
// the line it reads), and the process table, where `sh -c CMD` shows CMD in its arguments:
// Salt's guards such as `ps aux | grep -v grep | grep -q app` match that shell and must still.
const SEES_SHELL = /\$\{?[$-]|PPID|LINENO|\/proc\b|\b(?:ps|pgrep|pkill|pidof|killall)\b/;

/**
 * `[/bin/sh, -c, CMD]` (every guard string, cmd.retcode with python_shell) is evaluated by the
 * subshell itself instead of exec'ing a second /bin/sh to parse it: the exec (the dynamic loader
 * of a new shell) was two thirds of each guard's cost (bench/README.md, issue 27). A subshell of
 * the spawner starts as `sh -c` does: no variables but the environment, no functions, traps or
 * options set, $0 /bin/sh and no positional parameters. A command that reads $$, $PPID, $-,
 * $LINENO or the process table (what differs) still gets its own shell.
 */
export function evaluatedInSubshell(argv: readonly string[]): string | undefined {
  if (argv.length !== 3 || argv[0] !== SPAWNER_SHELL || argv[1] !== '-c') return undefined;
  const command = argv[2] as string;
  // `sh -c -x` reads -x as an option of sh, eval as a command name
  return SEES_SHELL.test(command) || /^[-+]/.test(command) ? undefined : command;
}

/**
 * The line that runs one command in a subshell: the shell prints `s` once it has read the line
 * (so brine knows the command started) and then the command's exit status.
 */
export function spawnerLine(argv: readonly string[], env: Readonly<Record<string, string>> | undefined, cwd: string | undefined): string {
  const steps: string[] = [];
  if (cwd !== undefined) steps.push(`cd -- ${quote(cwd)} || exit 126`);
  for (const [k, v] of Object.entries(env ?? {})) steps.push(`export ${k}=${quote(v)}`);
  const command = evaluatedInSubshell(argv);
  steps.push(command === undefined ? `exec ${argv.map(quote).join(' ')}` : `eval ${quote(command)}`);
  return `echo s; (${steps.join('\n')}\n) </dev/null >/dev/null 2>&1; echo "$?"\n`;
}

/** run()'s answer when the spawner was gone before it read the command: the command never ran. */
export const NOT_STARTED = -1;

interface Pending {
  started: boolean;
  resolve(retcode: number): void;
}

export class ShellSpawner {
  private static current: ShellSpawner | undefined;
  private readonly child: ChildProcess;
  private pending: Pending | undefined;
  private buffered = '';
  private dead = false;

  /** The spawner of this thread, started on first use; undefined while it is running a command. */
  static idle(): ShellSpawner | undefined {
    let s = ShellSpawner.current;
    if (s === undefined || s.dead) {
      s = new ShellSpawner();
      ShellSpawner.current = s;
    }
    return s.pending === undefined && !s.dead ? s : undefined;
  }

  private constructor() {
    // detached: the spawner leads its own group, the one a timeout or kill_job signals
    this.child = spawn(SPAWNER_SHELL, ['-s'], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    this.child.on('error', () => this.die(127));
    this.child.on('close', (code, sig) => this.die(code ?? (sig === 'SIGKILL' ? 137 : 143)));
    this.child.stdin?.on('error', () => this.die(141));
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (text: string) => this.onData(text));
    this.idleRefs();
  }

  /** The spawner's pid, which is also the process group of the command it runs. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Runs one command; resolves with its exit status (128 + n for a signal), or NOT_STARTED. */
  run(argv: readonly string[], env: Readonly<Record<string, string>> | undefined, cwd: string | undefined): Promise<number> {
    return new Promise((resolve) => {
      this.pending = { started: false, resolve };
      // a command in flight keeps the thread alive; an idle spawner must not
      this.child.ref();
      (this.child.stdout as { ref?: () => void } | null)?.ref?.();
      this.child.stdin?.write(spawnerLine(argv, env, cwd));
    });
  }

  private onData(text: string): void {
    this.buffered += text;
    for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const p = this.pending;
      if (p === undefined) continue;
      if (line === 's') {
        p.started = true;
        continue;
      }
      const status = Number(line);
      this.pending = undefined;
      this.idleRefs();
      p.resolve(Number.isInteger(status) ? status : 1);
    }
  }

  /**
   * The spawner is gone: killed with the command it ran (whose status is then the spawner's
   * own, 128 + n), or before it read the command, which then never ran.
   */
  private die(status: number): void {
    if (this.dead) return;
    this.dead = true;
    const p = this.pending;
    this.pending = undefined;
    p?.resolve(p.started ? status : NOT_STARTED);
  }

  private idleRefs(): void {
    this.child.unref();
    (this.child.stdout as { unref?: () => void } | null)?.unref?.();
    (this.child.stdin as { unref?: () => void } | null)?.unref?.();
  }
}
