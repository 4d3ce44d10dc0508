// `brine emulate --gc-stats` (bench:fleet --trace-gc, issue 27 emucost): each stats line carries
// the emulator's own V8 collections so far, by kind; without the flag the lines are as before
// (and perf_hooks is not loaded for them). The emulator points at a port nobody listens on: the
// stats lines come whether its minions get in or not (they retry, which makes garbage to collect).

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { repoRoot } from '../../helpers/repo.js';
import { freePort } from '../../helpers/ports.js';
import { tempDir } from '../../helpers/paths.js';

const CLI = path.join(repoRoot(), 'dist', 'src', 'cli', 'main.js');

/** Stats lines of `brine emulate` until `done(line)` says enough; the process is ended either way. */
async function statsLines(t: TestContext, extra: string[], done: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>[]> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [CLI, 'emulate', '--master', `127.0.0.1:${port}`, '--count', '200', '--recon-default', '20', '--recon-max', '50', '--stats-interval', '0.05', '--pki-dir', tempDir(t, 'brine-emu-gc-'), ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines: Record<string, unknown>[] = [];
  for await (const text of readline.createInterface({ input: child.stdout })) {
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    if (done(line) || lines.length >= 400) break;
  }
  child.kill('SIGTERM');
  await exited;
  assert.ok(lines.length > 0, `no stats line; stderr: ${stderr}`);
  return lines;
}

const collections = (line: Record<string, unknown>): number => {
  const gc = line.gc as { minorN: number; majorN: number } | undefined;
  return gc === undefined ? 0 : gc.minorN + gc.majorN;
};

test('with --gc-stats every stats line counts the collections so far, minor and major', async (t) => {
  // 200 minions retrying a closed port every 20-50 ms allocate enough for scavenges within seconds
  const lines = await statsLines(t, ['--gc-stats'], (line) => collections(line) > 0);
  for (const line of lines) {
    const gc = line.gc as Record<string, unknown>;
    assert.deepEqual(Object.keys(gc).sort(), ['majorMs', 'majorN', 'minorMs', 'minorN']);
    for (const v of Object.values(gc)) assert.ok(typeof v === 'number' && v >= 0, JSON.stringify(gc));
  }
  const last = lines.at(-1)!;
  assert.ok(collections(last) > 0, `no collection counted in ${lines.length} lines: ${JSON.stringify(last)}`);
  // counts only grow
  for (let i = 1; i < lines.length; i++) assert.ok(collections(lines[i]!) >= collections(lines[i - 1]!));
});

test('without --gc-stats the stats lines have no gc field', async (t) => {
  const lines = await statsLines(t, [], () => true);
  assert.equal(lines[0]!.gc, undefined);
  assert.equal(lines[0]!.total, 200);
});
