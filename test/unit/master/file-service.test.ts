// The master's file service (src/master/file-service.ts) with a stub session: a burst beyond
// the per-session limit of outstanding requests is answered RATE_LIMITED at once while the rest
// are served; a refused path is logged with the session's minion ID (escaped); a session that
// closed meanwhile gets nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLogger, type Logger } from '../../../src/util/logger.js';
import type { FileReply } from '../../../src/protocol/index.js';
import { FILE_BUDGET_MS, FileService, MAX_OUTSTANDING_PER_SESSION, type FileSession } from '../../../src/master/file-service.js';
import { FakeClock } from '../../../src/util/clock.js';
import { waitUntil } from '../../helpers/cluster.js';

function recordingLogger(): { logger: Logger; lines: Array<{ fields: Record<string, unknown>; msg: string }> } {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const push = (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg });
  const logger = { warn: push, debug: () => undefined, error: push, isLevelEnabled: () => false } as unknown as Logger;
  return { logger, lines };
}

function service(t: { after(fn: () => void): void }, logger: Logger, clock?: FakeClock): FileService {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-filesvc-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  fs.mkdirSync(path.join(d, 'srv'));
  fs.writeFileSync(path.join(d, 'srv', 'top.sls'), 'top');
  return new FileService({ root_dir: d, file_roots: { base: [path.join(d, 'srv')] }, file_buffer_size: 4096 }, logger, clock);
}

class StubSession implements FileSession {
  ready = true;
  readonly replies: FileReply[] = [];
  constructor(readonly id: string) {}
  sendFileReply(r: FileReply): boolean {
    this.replies.push(r);
    return true;
  }
}

test('a burst over the per-session limit gets RATE_LIMITED for the excess, the rest is served', async (t) => {
  const { logger } = recordingLogger();
  const svc = service(t, logger);
  const s = new StubSession('web1');
  const other = new StubSession('web2');
  const n = MAX_OUTSTANDING_PER_SESSION + 5;
  for (let rid = 0; rid < n; rid++) svc.handle(s, { t: 'file_stat', rid, saltenv: 'base', path: 'top.sls' });
  svc.handle(other, { t: 'file_stat', rid: 1, saltenv: 'base', path: 'top.sls' });
  // the excess is refused synchronously, before anything was served
  assert.deepEqual(
    s.replies.map((r) => [r.rid, r.error?.code]),
    Array.from({ length: 5 }, (_, i) => [MAX_OUTSTANDING_PER_SESSION + i, 'RATE_LIMITED']),
  );
  await waitUntil(() => s.replies.length === n && other.replies.length === 1, 5000, 'all replies');
  assert.equal(s.replies.filter((r) => r.ok).length, MAX_OUTSTANDING_PER_SESSION);
  assert.equal(other.replies[0]?.ok, true, 'another session has its own budget');
  // once answered, the session may ask again
  svc.handle(s, { t: 'file_stat', rid: 999, saltenv: 'base', path: 'top.sls' });
  await waitUntil(() => s.replies.at(-1)?.rid === 999, 5000, 'the next reply');
  assert.equal(s.replies.at(-1)?.ok, true);
});

test('a refused path is answered PATH_REFUSED and logged with the minion ID from the session', async (t) => {
  const { logger, lines } = recordingLogger();
  const svc = service(t, logger);
  const s = new StubSession('web1');
  svc.handle(s, { t: 'file_read', rid: 7, saltenv: 'base', path: '../../etc/shadow\n forged line', offset: 0, length: 10 });
  await waitUntil(() => s.replies.length === 1, 5000, 'the reply');
  assert.equal(s.replies[0]?.error?.code, 'PATH_REFUSED');
  assert.equal(svc.refusedCount, 1);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.fields.id, 'web1');
  assert.match(lines[0]!.msg, /^refused a file server request from minion web1: /);
  assert.doesNotMatch(lines[0]!.msg, /\n/, 'the path cannot start a new log line');
});

test('a session that closed before the answer gets nothing', async (t) => {
  const { logger } = recordingLogger();
  const svc = service(t, logger);
  const s = new StubSession('web1');
  svc.handle(s, { t: 'file_stat', rid: 1, saltenv: 'base', path: 'top.sls' });
  s.ready = false;
  const probe = new StubSession('web2');
  svc.handle(probe, { t: 'file_stat', rid: 1, saltenv: 'base', path: 'top.sls' });
  await waitUntil(() => probe.replies.length === 1, 5000, 'a later request to be answered');
  assert.equal(s.replies.length, 0);
});

test('at log_level trace each request is logged with the minion ID and the request without its rid (bench:states replays a minion from these lines)', async (t) => {
  const lines: string[] = [];
  const logger = createLogger({ name: 'master', level: 'trace', format: 'json', write: (l) => lines.push(l) });
  const svc = service(t, logger);
  const s = new StubSession('web1');
  svc.handle(s, { t: 'file_stat', rid: 7, saltenv: 'base', path: 'top.sls' });
  svc.handle(s, { t: 'file_read', rid: 8, saltenv: 'base', path: 'top.sls', offset: 0, length: 4096 });
  svc.handle(s, { t: 'file_list', rid: 9, kind: 'files', saltenv: 'base', prefix: '' });
  await waitUntil(() => s.replies.length === 3, 5000, 'the replies');
  const logged = lines
    .map((l) => JSON.parse(l) as { id?: string; req?: unknown; msg?: string })
    .filter((l) => l.msg?.startsWith('file server request'))
    .map((l) => [l.id, l.req]);
  assert.deepEqual(logged, [
    ['web1', { t: 'file_stat', saltenv: 'base', path: 'top.sls' }],
    ['web1', { t: 'file_read', saltenv: 'base', path: 'top.sls', offset: 0, length: 4096 }],
    ['web1', { t: 'file_list', kind: 'files', saltenv: 'base', prefix: '' }],
  ]);
});

test('a burst of requests is answered FILE_BUDGET_MS of work per event-loop turn, in arrival order, the rest on later turns', async (t) => {
  const { logger } = recordingLogger();
  const clock = new FakeClock();
  const svc = service(t, logger, clock);
  // every answer costs 1 ms of the (fake) clock
  const order: string[] = [];
  const sessions = ['web1', 'web2', 'web3'].map((id) => {
    const s = new StubSession(id);
    s.sendFileReply = (r) => {
      s.replies.push(r);
      order.push(`${id}:${r.rid}`);
      clock.advance(1);
      return true;
    };
    return s;
  });
  const sent: string[] = [];
  for (let rid = 0; rid < 25; rid++) {
    for (const s of sessions) {
      svc.handle(s, { t: 'file_stat', rid, saltenv: 'base', path: 'top.sls' });
      sent.push(`${s.id}:${rid}`);
    }
  }
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  await turn();
  assert.deepEqual(order, sent.slice(0, FILE_BUDGET_MS), 'the first turn answers the oldest requests for its budget only');
  await turn();
  assert.deepEqual(order, sent.slice(0, 2 * FILE_BUDGET_MS), 'the next turn goes on where it stopped');
  await waitUntil(() => order.length === sent.length, 5000, 'every reply');
  assert.deepEqual(order, sent, 'all answered, in arrival order');
  assert.ok(
    sessions.every((s) => s.replies.every((r) => r.ok)),
    'all served',
  );
});
