// The minion's control socket for brine doctor: owner-only, answers minion_status with what the
// daemon reports, and refuses anything that is not on its allow-list.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { minionSocketPath, startMinionControl } from '../../../src/minion/index.js';
import { MINION_CONTROL_REPLIES, type MinionControlReply, type MinionStatus } from '../../../src/protocol/index.js';
import { connectUnix } from '../../../src/transport/index.js';
import { silentLogger } from '../../../src/util/logger.js';

const STATUS: MinionStatus = {
  t: 'minion_status',
  id: 'web1',
  startedAt: 1,
  links: [{ endpoint: 'salt:4506', state: 'ready', rttMs: 0.5, reconnects: 2, attempts: 3, connectedSince: 2 }],
  returnQueue: 4,
  returnsDropped: 1,
};

async function serve(t: TestContext): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'brine-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const socket = minionSocketPath({ sock_dir: join(dir, 'run') });
  const listener = await startMinionControl(socket, { logger: silentLogger(), status: () => STATUS });
  t.after(() => listener.close());
  return socket;
}

/** Sends one raw request and collects replies until the minion closes. */
async function ask(socket: string, request: Record<string, unknown>): Promise<MinionControlReply[]> {
  const conn = await connectUnix<MinionControlReply, Record<string, unknown> & { t: string }>(socket, MINION_CONTROL_REPLIES, 2000);
  const replies: MinionControlReply[] = [];
  return new Promise((resolve) => {
    conn.onMessage((m) => replies.push(m));
    conn.onClose(() => resolve(replies));
    conn.send(request as { t: string });
  });
}

test('minion.sock is in sock_dir with mode 0600 and answers minion_status, then closes', async (t) => {
  const socket = await serve(t);
  assert.match(socket, /\/run\/minion\.sock$/);
  assert.equal(statSync(socket).mode & 0o777, 0o600);
  assert.deepEqual(await ask(socket, { t: 'minion_status' }), [STATUS]);
});

test('an operation that is not on the allow-list gets an error and no status', async (t) => {
  const socket = await serve(t);
  for (const t2 of ['publish', 'sessions', '__proto__', 'constructor']) {
    const replies = await ask(socket, { t: t2 });
    assert.equal(replies.length, 1, t2);
    assert.equal(replies[0]!.t, 'error');
    assert.equal((replies[0] as { code: string }).code, 'MESSAGE_INVALID');
  }
});
