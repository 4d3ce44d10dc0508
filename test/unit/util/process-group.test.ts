// The one process-group kill (src/util/process-group.ts) behind the cmd module's timeouts and the
// job runner's kill/signal/timeout: it reaches the whole group, escalates on the clock, and
// refuses the two group numbers that would hit brine itself or every process.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { signalGroup, stopGroups } from '../../../src/util/process-group.js';
import { FakeClock } from '../../../src/util/clock.js';
import { alive } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/cluster.js';

/** A detached shell (its own group) with a background child; resolves with both pids. */
async function group(t: { after(fn: () => void): void }, script: string): Promise<{ leader: number; child: number }> {
  const sh = spawn('sh', ['-c', `${script} & echo $!; wait`], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => {
    try {
      process.kill(-sh.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  });
  const line = await new Promise<string>((resolve) => createInterface({ input: sh.stdout! }).once('line', resolve));
  return { leader: sh.pid!, child: Number(line) };
}

test('signalGroup reaches every process of the group, and says false once it is gone', async (t) => {
  const g = await group(t, 'sleep 300');
  assert.ok(alive(g.leader) && alive(g.child));
  assert.equal(signalGroup(g.leader, 'SIGKILL'), true);
  await waitUntil(() => !alive(g.leader) && !alive(g.child), 5000, 'the shell and its background sleep to die');
  await waitUntil(() => signalGroup(g.leader, 'SIGKILL') === false, 5000, 'the group to be reaped');
});

test('signalGroup refuses group 0 (brine itself) and 1 (every process), and non-integers', () => {
  for (const bad of [0, 1, -5, 1.5, Number.NaN]) assert.throws(() => signalGroup(bad, 'SIGTERM'), RangeError, String(bad));
});

test('stopGroups: SIGTERM now, SIGKILL after the grace period on the clock, cancellable', async (t) => {
  const clock = new FakeClock();
  const stubborn = await group(t, "trap '' TERM; while true; do sleep 0.05; done");
  const polite = await group(t, 'sleep 300');
  stopGroups([stubborn.leader, polite.leader], 2000, clock);
  await waitUntil(() => !alive(polite.child), 5000, 'the group that honours SIGTERM to end');
  clock.advance(1999);
  assert.ok(alive(stubborn.child), 'no SIGKILL before the grace period');
  clock.advance(1);
  await waitUntil(() => !alive(stubborn.child) && !alive(stubborn.leader), 5000, 'SIGKILL after the grace period');

  const spared = await group(t, "trap '' TERM; while true; do sleep 0.05; done");
  stopGroups([spared.leader], 2000, clock).cancel();
  clock.advance(5000);
  assert.ok(alive(spared.child), 'a cancelled escalation sends no SIGKILL');
});
