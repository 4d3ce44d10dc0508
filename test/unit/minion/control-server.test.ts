// The minion's control socket for brine doctor and brine call: owner-only, answers minion_status
// with what the daemon reports, runs minion_call for root and the minion's user only (and stops
// it when the caller goes away), and refuses anything that is not on its allow-list.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { minionSocketPath, startMinionControl, type MinionControlDeps } from '../../../src/minion/index.js';
import { mayCall } from '../../../src/minion/control-server.js';
import { MINION_CONTROL_REPLIES, type MinionCallReply, type MinionControlReply, type MinionStatus } from '../../../src/protocol/index.js';
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

const REFUSE_CALLS: MinionControlDeps['call'] = () => Promise.reject(new Error('no call expected'));

const REFUSE_FIRES: MinionControlDeps['fire'] = () => {
  throw new Error('no event expected');
};

async function serve(t: TestContext, call: MinionControlDeps['call'] = REFUSE_CALLS, fire: MinionControlDeps['fire'] = REFUSE_FIRES): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'brine-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const socket = minionSocketPath({ sock_dir: join(dir, 'run') });
  const listener = await startMinionControl(socket, { logger: silentLogger(), status: () => STATUS, call, fire });
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

test("minion_call is answered with the daemon's call_return, then the socket closes", async (t) => {
  const seen: unknown[] = [];
  const reply: MinionCallReply = { t: 'call_return', jid: '20261206210000123456', ret: { a: 1 }, retcode: 2, success: false, error: { code: 'EXEC_FAILED', message: 'x' } };
  const socket = await serve(t, async (req) => {
    seen.push(req);
    return reply;
  });
  const replies = await ask(socket, { t: 'minion_call', fun: 'state.apply', arg: ['web'], kwarg: { test: true } });
  assert.deepEqual(replies, [reply]);
  assert.deepEqual(seen, [{ t: 'minion_call', fun: 'state.apply', arg: ['web'], kwarg: { test: true } }]);
});

test('a call whose caller hangs up is cancelled (the daemon stops the job)', async (t) => {
  let cancelled: AbortSignal | undefined;
  let onStart: () => void = () => undefined;
  let onAbort: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (onStart = resolve));
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  const socket = await serve(t, (_req, signal) => {
    cancelled = signal;
    signal.addEventListener('abort', () => onAbort());
    onStart();
    return new Promise(() => undefined);
  });
  const conn = await connectUnix<MinionControlReply, { t: string }>(socket, MINION_CONTROL_REPLIES, 2000);
  conn.send({ t: 'minion_call', fun: 'test.sleep', arg: [60], kwarg: {} } as { t: string });
  await started;
  assert.equal(cancelled?.aborted, false);
  conn.close('shutdown');
  await aborted;
  assert.equal(cancelled?.aborted, true);
});

test('a call that fails in the daemon comes back as its coded error', async (t) => {
  const { BrineError } = await import('../../../src/util/errors.js');
  const socket = await serve(t, () => Promise.reject(new BrineError('MINION_NO_MASTER', 'the minion web1 is not connected to its master salt:4506')));
  const replies = await ask(socket, { t: 'minion_call', fun: 'test.ping', arg: [], kwarg: {} });
  assert.deepEqual(replies, [{ t: 'error', code: 'MINION_NO_MASTER', message: 'the minion web1 is not connected to its master salt:4506' }]);
});

test('a malformed minion_call (no function name, a non-list arg) is refused before the daemon sees it', async (t) => {
  const socket = await serve(t);
  for (const bad of [
    { t: 'minion_call', fun: '', arg: [], kwarg: {} },
    { t: 'minion_call', fun: 'test.ping', arg: 'x', kwarg: {} },
  ]) {
    const replies = await ask(socket, bad);
    assert.equal(replies.length, 1);
    assert.equal((replies[0] as { code: string }).code, 'MESSAGE_INVALID');
  }
});

test('fire_event puts the event on the daemon bus (event.fire from a brine call of its own) and is answered event_fired; a bad tag is refused by the schema and fires nothing', async (t) => {
  const fired: Array<[string, Record<string, unknown>]> = [];
  const socket = await serve(t, REFUSE_CALLS, (tag, data) => void fired.push([tag, data]));
  assert.deepEqual(await ask(socket, { t: 'fire_event', tag: 'myco/deploy/done', data: { n: 1 } }), [{ t: 'event_fired', tag: 'myco/deploy/done' }]);
  assert.deepEqual(fired, [['myco/deploy/done', { n: 1 }]]);
  const refused = await ask(socket, { t: 'fire_event', tag: '', data: {} });
  assert.deepEqual(
    refused.map((r) => [r.t, (r as { code?: string }).code]),
    [['error', 'MESSAGE_INVALID']],
  );
  assert.equal(fired.length, 1);
});

test("only root and the minion's own user may run functions (peer credentials)", () => {
  assert.equal(mayCall({ pid: 1, uid: 0, gid: 0 }, 1000), true);
  assert.equal(mayCall({ pid: 1, uid: 1000, gid: 1000 }, 1000), true);
  assert.equal(mayCall({ pid: 1, uid: 1001, gid: 1000 }, 1000), false);
  assert.equal(mayCall({ error: new Error('no SO_PEERCRED') }, 1000), false);
});

test("a peer that is neither root nor the daemon's user gets CONTROL_DENIED and the call never runs (a shared sock_dir)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = minionSocketPath({ sock_dir: join(dir, 'run') });
  let ran = false;
  const me = process.getuid?.() ?? 0;
  // the daemon's user is not the peer's (nobody, or this user when the test is not root)
  const listener = await startMinionControl(path, {
    logger: silentLogger(),
    status: () => STATUS,
    call: () => {
      ran = true;
      return REFUSE_CALLS({ t: 'minion_call', fun: 'x', arg: [], kwarg: {} }, new AbortController().signal);
    },
    fire: REFUSE_FIRES,
    uid: me === 0 ? 4242 : me,
  });
  t.after(() => listener.close());
  // a sock_dir others can enter (the permission layer the daemon sets up is gone)
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'run'), 0o755);
  chmodSync(path, 0o666);
  const transport = new URL('../../../src/transport/index.js', import.meta.url).href;
  const protocol = new URL('../../../src/protocol/index.js', import.meta.url).href;
  const script = `const { connectUnix } = await import(${JSON.stringify(transport)}); const { MINION_CONTROL_REPLIES } = await import(${JSON.stringify(protocol)});
const c = await connectUnix(${JSON.stringify(path)}, MINION_CONTROL_REPLIES, 2000);
c.onMessage((m) => { process.stdout.write(JSON.stringify(m)); c.close('shutdown'); });
c.send({ t: 'minion_call', fun: 'test.ping', arg: [], kwarg: {} });`;
  // not spawnSync: the listener runs on this thread and must answer meanwhile
  const child = await execFileP(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000, ...(me === 0 ? { uid: 4242 + 1, gid: 4242 + 1 } : {}) });
  const answer = JSON.parse(child.stdout) as { t: string; code: string; message: string };
  if (me === 0) {
    assert.equal(answer.code, 'CONTROL_DENIED');
    assert.match(answer.message, /only root and the minion's user \(uid 4242\)/);
    assert.equal(ran, false);
  } else {
    // not root: the peer is this user, the daemon's own, and may call
    assert.equal(ran, true);
  }
});
