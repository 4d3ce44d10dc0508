// Commands whose output is discarded go through a long-lived /bin/sh (shell-spawner.ts) instead
// of being forked by brine itself. They must behave as runProcess promises: argv words verbatim,
// env and cwd applied, the exit code (128 + n for a signal), a stop that reaches the command, and
// brine's process free to exit while the spawner idles.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess, type RunProcessOptions } from '../../../src/modules/process-runner.js';
import { evaluatedInSubshell, spawnerLine, spawnerUnsuitable } from '../../../src/modules/shell-spawner.js';
import { isBrineError } from '../../../src/util/errors.js';
import { waitUntil } from '../../helpers/wait.js';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-spawner-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs a discarded-output command and reports the pid it was told about (its process group). */
async function discard(argv: string[], extra: Partial<RunProcessOptions> = {}): Promise<{ retcode: number; group: number | undefined }> {
  let group: number | undefined;
  const r = await runProcess({ argv, discardOutput: true, onSpawn: (pid) => (group = pid), ...extra });
  return { retcode: r.retcode, group };
}

/** Process group of a pid, from /proc/<pid>/stat. */
function pgidOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

describe('shell spawner', () => {
  it('passes every argv word verbatim: quotes, newlines, $, backticks, globs', async () => {
    const words = [`it's "quoted"`, 'two\nlines', '$HOME `id` $(id)', '*', '', "'''", 'trailing\\'];
    for (const [i, word] of words.entries()) {
      const out = path.join(dir, `word-${i}`);
      const r = await discard(['/bin/sh', '-c', 'printf %s "$1" > "$2"', 'sh', word, out]);
      assert.equal(r.retcode, 0);
      assert.equal(fs.readFileSync(out, 'utf8'), word);
    }
  });

  it('applies env (added to the environment) and cwd', async () => {
    const out = path.join(dir, 'env');
    const r = await discard(['/bin/sh', '-c', `printf '%s|%s|%s' "$BRINE_A" "$BRINE_B" "$(pwd)" > ${out}`], { env: { BRINE_A: "x'y", BRINE_B: '$HOME' }, cwd: dir });
    assert.equal(r.retcode, 0);
    assert.equal(fs.readFileSync(out, 'utf8'), `x'y|$HOME|${fs.realpathSync(dir)}`);
    // brine's own environment reaches the command too
    const out2 = path.join(dir, 'env2');
    await discard(['/bin/sh', '-c', `printf %s "$PATH" > ${out2}`]);
    assert.equal(fs.readFileSync(out2, 'utf8'), process.env.PATH);
  });

  it('returns the exit code, and 128 + n when a signal ends the command', async () => {
    for (const [cmd, code] of [
      ['exit 0', 0],
      ['exit 3', 3],
      ['exit 255', 255],
      ['kill -9 $$', 137],
      ['kill -TERM $$', 143],
    ] as const) {
      assert.equal((await discard(['/bin/sh', '-c', cmd])).retcode, code, cmd);
    }
  });

  it('runs the command in the spawner (not forked by brine), in the group it reports', async () => {
    const out = path.join(dir, 'who');
    const r = await discard(['/bin/sh', '-c', `echo $$ > ${out}`]);
    const shell = Number(fs.readFileSync(out, 'utf8'));
    assert.ok(r.group !== undefined && r.group !== process.pid);
    assert.notEqual(shell, r.group, 'the command is a child of the spawner, not its own group leader');
    assert.equal(pgidOf(r.group!), r.group, 'the reported pid leads a live process group (the spawner)');
    // and the same spawner serves the next command
    assert.equal((await discard(['/bin/sh', '-c', 'true'])).group, r.group);
  });

  it('a timeout stops the command (and its spawner); the next command gets a new spawner', async () => {
    const pidfile = path.join(dir, 'slow.pid');
    let group: number | undefined;
    await assert.rejects(
      runProcess({ argv: ['/bin/sh', '-c', `echo $$ > ${pidfile}; exec sleep 30`], discardOutput: true, timeoutMs: 300, killGraceMs: 500, onSpawn: (pid) => (group = pid) }),
      (err: unknown) => isBrineError(err) && err.code === 'JOB_TIMEOUT',
    );
    await waitUntil(() => !alive(Number(fs.readFileSync(pidfile, 'utf8'))), 10_000, 'the command to end after its timeout');
    await waitUntil(() => !alive(group!), 10_000, 'the spawner to end after the timeout');
    const next = await discard(['/bin/sh', '-c', 'exit 5']);
    assert.equal(next.retcode, 5);
    assert.notEqual(next.group, group);
  });

  it('an abort stops the command', async () => {
    const pidfile = path.join(dir, 'abort.pid');
    const ac = new AbortController();
    const p = runProcess({ argv: ['/bin/sh', '-c', `echo $$ > ${pidfile}; exec sleep 30`], discardOutput: true, signal: ac.signal, killGraceMs: 500 });
    await waitUntil(() => fs.existsSync(pidfile) && fs.readFileSync(pidfile, 'utf8').endsWith('\n'), 10_000, 'the command to write its pid');
    ac.abort();
    await assert.rejects(p, (err: unknown) => isBrineError(err));
    await waitUntil(() => !alive(Number(fs.readFileSync(pidfile, 'utf8'))), 10_000, 'the aborted command to end');
  });

  it('a spawner killed from outside between commands is replaced', async () => {
    const first = await discard(['/bin/sh', '-c', 'true']);
    process.kill(-first.group!, 'SIGKILL');
    await waitUntil(() => !alive(first.group!), 10_000, 'the killed spawner to be gone');
    const next = await discard(['/bin/sh', '-c', 'exit 4']);
    assert.equal(next.retcode, 4);
    assert.notEqual(next.group, first.group);
  });

  it('a command written to a spawner that dies before reading it is run by brine itself, once', async () => {
    const first = await discard(['/bin/sh', '-c', 'true']);
    const counter = path.join(dir, 'ran-once');
    // stopped, the spawner cannot read the command; killed, it never will
    process.kill(first.group!, 'SIGSTOP');
    const pending = discard(['/bin/sh', '-c', `echo x >> ${counter}; exit 9`]);
    process.kill(-first.group!, 'SIGKILL');
    const r = await pending;
    assert.equal(r.retcode, 9);
    assert.notEqual(r.group, first.group);
    assert.equal(fs.readFileSync(counter, 'utf8'), 'x\n');
  });

  it('commands at the same time: one goes through the spawner, the others are forked as before', async () => {
    const runs = await Promise.all([0, 1, 2].map((i) => discard(['/bin/sh', '-c', `sleep 0.2; exit ${i + 10}`])));
    assert.deepEqual(
      runs.map((r) => r.retcode),
      [10, 11, 12],
    );
    assert.equal(new Set(runs.map((r) => r.group)).size, 3);
  });

  it('what the spawner cannot run exactly as spawn would is spawned directly: a relative program, a missing one, odd env names', async () => {
    assert.equal(spawnerUnsuitable(['sh', '-c', 'true'], undefined, undefined), true);
    assert.equal(spawnerUnsuitable(['/nonexistent/prog'], undefined, undefined), true);
    assert.equal(spawnerUnsuitable(['/bin/sh'], { 'A-B': '1' }, undefined), true);
    assert.equal(spawnerUnsuitable(['/bin/sh'], undefined, path.join(dir, 'missing-dir')), true);
    assert.equal(spawnerUnsuitable(['/bin/sh', '-c', 'true'], { A_B: 'x' }, dir), false);
    await assert.rejects(runProcess({ argv: ['/nonexistent/prog'], discardOutput: true }), (err: unknown) => isBrineError(err) && err.code === 'EXEC_FAILED');
    const out = path.join(dir, 'relative');
    const r = await discard(['sh', '-c', `echo $$ > ${out}`]);
    assert.equal(Number(fs.readFileSync(out, 'utf8')), r.group, 'a directly spawned command leads its own group');
  });

  it('spawnerLine quotes every word and redirects the command away from the spawner channel', () => {
    assert.equal(spawnerLine(['/bin/echo', "a'b"], { K: 'v' }, '/tmp'), `echo s; (cd -- '/tmp' || exit 126\nexport K='v'\nexec '/bin/echo' 'a'\\''b'\n) </dev/null >/dev/null 2>&1; echo "$?"\n`);
  });

  // issue 27: `/bin/sh -c CMD` is evaluated by the spawner's subshell instead of exec'ing another
  // /bin/sh; it must behave as the `sh -c` that Salt's python_shell runs
  it('a /bin/sh -c command string is evaluated by the subshell, without a second shell', async () => {
    const out = path.join(dir, 'flags');
    // the flags of the shell evaluating it: `sh -c` has none to show, the spawner's subshell `s`
    // (read indirectly: a literal $- would send the command to a shell of its own)
    const r = await discard(['/bin/sh', '-c', `D='$'; eval "printf %s \${D}-" > ${out}`]);
    assert.equal(r.retcode, 0);
    assert.equal(fs.readFileSync(out, 'utf8'), 's', 'the command ran in a subshell of the spawner');
    assert.equal(evaluatedInSubshell(['/bin/sh', '-c', 'test -e /x']), 'test -e /x');
    // its own shell: another shell, positional parameters, or a command reading $$, $PPID or $-
    const own = [
      ['/bin/bash', '-c', 'true'],
      ['/bin/sh', '-c', 'echo "$1"', 'sh', 'a'],
      ['/bin/sh', '-c', 'echo $$'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${$}, not a template
      ['/bin/sh', '-c', 'echo ${$}'],
      ['/bin/sh', '-c', 'echo $PPID'],
      ['/bin/sh', '-c', 'echo $-'],
      ['/bin/sh', '-c', 'echo $LINENO'],
      ['/bin/sh', '-c', 'ps aux | grep -v grep | grep -q app'],
      ['/bin/sh', '-c', 'pgrep -f app; true'],
      ['/bin/sh', '-c', 'cat /proc/1/cmdline'],
      ['/bin/sh', '-e', 'true'],
    ];
    for (const argv of own) assert.equal(evaluatedInSubshell(argv), undefined, argv.join(' '));
    assert.equal(spawnerLine(['/bin/sh', '-c', "test -e 'x'"], undefined, undefined), `echo s; (eval 'test -e '\\''x'\\'''\n) </dev/null >/dev/null 2>&1; echo "$?"\n`);
  });

  it('an evaluated command string behaves as /bin/sh -c: exit codes, syntax errors, $0, variables, traps, stdin', async () => {
    const out = path.join(dir, 'same');
    const commands = [
      'exit 3',
      'if',
      '"unterminated',
      'brine-no-such-command-xyz',
      'cd /nonexistent-brine-dir',
      'set -e; false; echo reached',
      'f() { return 5; }; f',
      'X=PID; /bin/sh -c "kill -TERM \\$P$X"',
      `echo "$0|$#|$*|\${BRINE_UNSET_VAR-unset}|\${HOME}" > ${out}`,
      `read line; echo "read=$?" > ${out}`,
      `trap 'echo trapped > ${out}' EXIT; exit 4`,
      `alias x=true; x; echo "alias=$?" > ${out}`,
      `umask > ${out}; exit 0`,
      '-x',
      '+e',
      // Salt's shell shows this string in the process table, and the guard matches itself
      `: brine-self-match-marker; ps -eo args | grep -c 'marke[r];' > ${out}`,
    ];
    const wrote = (): string | undefined => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : undefined);
    for (const command of commands) {
      fs.rmSync(out, { force: true });
      const expected = spawnSync('/bin/sh', ['-c', command], { stdio: 'ignore' });
      const signal = expected.signal === null ? 0 : os.constants.signals[expected.signal];
      const wanted = { retcode: expected.status ?? 128 + signal, wrote: wrote() };
      fs.rmSync(out, { force: true });
      const r = await discard(['/bin/sh', '-c', command]);
      assert.deepEqual({ retcode: r.retcode, wrote: wrote() }, wanted, command);
    }
  });

  it('an idle spawner does not keep the process alive', async () => {
    const runner = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/modules/process-runner.js');
    const script = `const { runProcess } = await import(${JSON.stringify(runner)}); const r = await runProcess({ argv: ['/bin/sh', '-c', 'exit 6'], discardOutput: true }); process.stdout.write(String(r.retcode));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await new Promise((r) => child.on('exit', (c, s) => r(c ?? s)));
    clearTimeout(timer);
    assert.equal(code, 0, 'the process hung on its idle spawner and was killed');
    assert.equal(out, '6');
  });
});
