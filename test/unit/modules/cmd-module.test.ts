import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrineError } from '../../../src/util/errors.js';
import { createDefaultRegistry, splitShellWords } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';
import { waitUntil } from '../../helpers/wait.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}, signal?: AbortSignal) => registry.call(fun, arg, kwarg, makeCtx(signal ? { signal } : {}));

/** True once the pid no longer exists (a zombie waiting for init to reap it counts as gone). */
async function pidGone(pid: number, withinMs = 3000): Promise<boolean> {
  const gone = (): boolean => {
    try {
      process.kill(pid, 0);
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
    } catch {
      return true;
    }
  };
  return waitUntil(gone, withinMs, `pid ${pid} to be gone`).catch(() => false);
}

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('cmd.run', () => {
  it('runs a string in a shell by default: pipes work, stderr is merged, retcode is the exit code', async () => {
    const res = await run('cmd.run', ["printf 'b\\na\\n' | sort; echo oops >&2; exit 3"]);
    assert.equal(res.return, 'a\nb\noops');
    assert.equal(res.retcode, 3);
    assert.equal(res.success, false);
    assert.equal(res.error, undefined);
  });

  it('python_shell=false splits into argv: quotes kept, `;` and `$` not interpreted', async () => {
    const marker = path.join(dir, 'pwned');
    const res = await run('cmd.run', [`echo "two  spaces" '$HOME' ; touch ${marker}`], { python_shell: false });
    assert.equal(res.return, `two  spaces $HOME ; touch ${marker}`);
    assert.equal(res.retcode, 0);
    assert.equal(fs.existsSync(marker), false, 'a shell ran the command');
  });

  it('a list is argv as given, never through a shell', async () => {
    const marker = path.join(dir, 'pwned2');
    const res = await run('cmd.run', [['printf', '%s|', 'a b', `$(touch ${marker})`]]);
    assert.equal(res.return, `a b|$(touch ${marker})|`);
    assert.equal(fs.existsSync(marker), false);
  });

  it('honours cwd and env (merged onto the minion environment) and stdin', async () => {
    const res = await run('cmd.run', ['pwd; echo "$BRINE_T"; test -n "$PATH" && echo has-path; cat'], {
      cwd: dir,
      env: { BRINE_T: 'v 1' },
      stdin: 'from stdin',
    });
    assert.equal(res.return, `${fs.realpathSync(dir)}\nv 1\nhas-path\nfrom stdin`);
  });

  it('rstrip=false keeps trailing whitespace', async () => {
    const res = await run('cmd.run', ['printf "x\\n\\n"'], { rstrip: false });
    assert.equal(res.return, 'x\n\n');
  });

  it('a missing cwd is EXEC_FAILED naming it', async () => {
    const res = await run('cmd.run', ['true'], { cwd: path.join(dir, 'nope') });
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.match(String(res.error?.message), /cwd '.*nope' does not exist/);
  });

  it('a missing program is EXEC_FAILED with a hint', async () => {
    const res = await run('cmd.run', ['no-such-program-brine --x'], { python_shell: false });
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.match(String(res.error?.message), /cannot start 'no-such-program-brine': ENOENT; check the program name and PATH/);
  });

  it('bad commands are BAD_ARGUMENTS', async () => {
    for (const [arg, kwarg, re] of [
      [["echo 'open"], { python_shell: false }, /unterminated single quote/],
      [[42], {}, /cmd must be a string or a list/],
      [[[]], {}, /empty list/],
      [['  '], {}, /cmd is empty/],
      [['true'], { env: { A: { nested: 1 } } }, /env value for 'A'/],
      [['true'], { timeout: -1 }, /timeout must be a positive/],
      [['true'], { no_such_option: 'x' }, /unexpected keyword argument 'no_such_option'/],
    ] as const) {
      const res = await run('cmd.run', [...arg], { ...kwarg });
      assert.equal(res.error?.code, 'BAD_ARGUMENTS', JSON.stringify(arg));
      assert.match(String(res.error?.message), re);
    }
  });

  it('a process killed by a signal reports 128 + signal number', async () => {
    const res = await run('cmd.retcode', ['kill -9 $$']);
    assert.equal(res.return, 137);
    assert.equal(res.retcode, 137);
  });
});

describe('cmd.run_all and cmd.retcode', () => {
  it('run_all keeps stdout and stderr apart and reports pid and retcode', async () => {
    const res = await run('cmd.run_all', ['echo out; echo err >&2; exit 4']);
    const ret = res.return as { pid: number; retcode: number; stdout: string; stderr: string };
    assert.equal(ret.stdout, 'out');
    assert.equal(ret.stderr, 'err');
    assert.equal(ret.retcode, 4);
    assert.ok(Number.isInteger(ret.pid) && ret.pid > 0);
    assert.equal(res.retcode, 4);
    assert.equal(res.success, false);
  });

  it('retcode returns only the exit code', async () => {
    assert.deepEqual(await run('cmd.retcode', ['exit 7']), { return: 7, retcode: 7, success: false });
    assert.deepEqual(await run('cmd.retcode', ['true']), { return: 0, retcode: 0, success: true });
  });

  it('retcode reads no output, so a background child that keeps stdout open does not hold it up', async () => {
    const pgidfile = path.join(dir, 'background.pgid');
    const done = path.join(dir, 'background.done');
    // with stdout piped, the call could only end once the background subshell closed it (after its sleep)
    const res = await run('cmd.retcode', [`(sleep 20; touch ${done}) & cut -d' ' -f5 /proc/$$/stat > ${pgidfile}; exit 3`]);
    const pgid = Number(fs.readFileSync(pgidfile, 'utf8'));
    try {
      assert.equal(res.return, 3);
      assert.equal(fs.existsSync(done), false, 'the call waited for the background child');
    } finally {
      // the command's process group (the shell spawner's, or its own when spawned directly), background child included
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});

describe('cmd timeouts, aborts and output caps', () => {
  it('a timeout stops the whole process tree, grandchildren included', async () => {
    const pidfile = path.join(dir, 'grandchild.pid');
    const started = Date.now();
    const res = await run('cmd.run_all', [`sleep 30 & echo $! > ${pidfile}; sleep 30`], { timeout: 0.5 });
    assert.ok(Date.now() - started < 5000, 'timed out promptly');
    assert.equal(res.error?.code, 'JOB_TIMEOUT');
    assert.match(String(res.error?.message), /did not finish within 0\.5 s/);
    const grandchild = Number(fs.readFileSync(pidfile, 'utf8').trim());
    assert.ok(grandchild > 0);
    assert.equal(await pidGone(grandchild), true, `grandchild ${grandchild} survived the timeout`);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const pidfile = path.join(dir, 'stubborn.pid');
    const started = Date.now();
    const res = await run('cmd.run', [`trap '' TERM; sleep 30 & echo $! > ${pidfile}; wait`], { timeout: 0.3 });
    const elapsed = Date.now() - started;
    assert.equal(res.error?.code, 'JOB_TIMEOUT');
    assert.ok(elapsed >= 2000 && elapsed < 6000, `elapsed ${elapsed} ms`);
    assert.equal(await pidGone(Number(fs.readFileSync(pidfile, 'utf8').trim())), true);
  });

  it('aborting the job signal stops the command', async () => {
    const pidfile = path.join(dir, 'aborted.pid');
    const ac = new AbortController();
    // abort once the command runs (it has written its pid)
    let abortedAt = 0;
    const aborted = waitUntil(() => fs.existsSync(pidfile) && fs.readFileSync(pidfile, 'utf8').endsWith('\n'), 20_000, 'the command to write its pid').then(() => {
      abortedAt = Date.now();
      ac.abort();
    });
    const res = await run('cmd.run', [`echo $$ > ${pidfile}; sleep 30`], {}, ac.signal);
    await aborted;
    assert.ok(Date.now() - abortedAt < 5000, `stopped ${Date.now() - abortedAt} ms after the abort`);
    assert.equal(res.error?.code, 'JOB_TIMEOUT');
    assert.equal(await pidGone(Number(fs.readFileSync(pidfile, 'utf8').trim())), true);
  });

  it('an abort whose reason is coded reports that code', async () => {
    const ac = new AbortController();
    ac.abort(new BrineError('EXEC_FAILED', 'job killed by operator'));
    const res = await run('cmd.run', ['sleep 30'], {}, ac.signal);
    assert.deepEqual(res.error, { code: 'EXEC_FAILED', message: 'job killed by operator' });
  });

  it('caps each stream at 1 MiB with a visible marker', async () => {
    const res = await run('cmd.run_all', ["head -c 1100000 /dev/zero | tr '\\0' a; head -c 10 /dev/zero | tr '\\0' e >&2"]);
    const ret = res.return as { stdout: string; stderr: string };
    const dropped = 1100000 - 1024 * 1024;
    assert.equal(ret.stdout, `${'a'.repeat(1024 * 1024)}\n[output truncated: ${dropped} bytes dropped]`);
    assert.equal(ret.stderr, 'eeeeeeeeee');
  });
});

describe('splitShellWords', () => {
  const cases: [string, string[]][] = [
    ['a b  c', ['a', 'b', 'c']],
    [`a "b c" 'd;e' f\\ g`, ['a', 'b c', 'd;e', 'f g']],
    [`"a\\"b" 'a\\b' "x\\y"`, ['a"b', 'a\\b', 'x\\y']],
    [`'' ""`, ['', '']],
    ['pre"mid"\'post\'', ['premidpost']],
    ['echo $HOME `id` *', ['echo', '$HOME', '`id`', '*']],
    ['a \\\nb', ['a', 'b']],
    ['', []],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => assert.deepEqual(splitShellWords(input), want));
  }
  it('rejects open quotes and a trailing backslash', () => {
    for (const bad of ['"abc', "'abc", 'abc\\']) {
      assert.throws(
        () => splitShellWords(bad),
        (e: unknown) => e instanceof BrineError && e.code === 'BAD_ARGUMENTS',
      );
    }
  });
});
