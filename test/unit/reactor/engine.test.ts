// src/reactor/engine.ts over the master's real EventBus, JobTracker (a SQLite job cache in a temp
// dir) and reactor clients: the Reactor's own events are skipped (Salt's rule), reactions past
// reactor_worker_hwm are dropped with REACTOR_BUSY, a missing SLS and a caller. reaction are coded
// failures, and the recent list keeps the newest entries in order; a minion's reactor (role minion)
// runs caller. reactions, traces events its functions fire after an await, and refuses local.

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JidGenerator, JobCache } from '../../../src/jobs/index.js';
import { EventBus } from '../../../src/master/event-bus.js';
import { JobTracker } from '../../../src/master/job-tracker.js';
import { reactorClients } from '../../../src/master/reactor-clients.js';
import { parseReactorMap, Reactor, RecentReactions } from '../../../src/reactor/index.js';
import { systemClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';

function setup(t: TestContext, files: Record<string, string>, reactor: unknown, sizes = { workers: 10, hwm: 100 }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-reactor-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const logger = silentLogger();
  const bus = new EventBus(systemClock);
  const cache = JobCache.open(path.join(dir, 'jobs.sqlite'), { keepJobsSeconds: 3600, clock: systemClock });
  const tracker = new JobTracker({
    clock: systemClock,
    logger,
    cache,
    jids: new JidGenerator(systemClock),
    acceptedIds: () => ['web1', 'web2'],
    session: () => undefined,
    defaultTimeoutS: 5,
    emit: (e) => bus.emit(e),
  });
  const clients = reactorClients({
    opts: {} as never,
    master: undefined as never,
    jobs: tracker,
    cache,
    targeting: { grains: () => undefined, pillar: () => undefined },
    runnerHost: undefined as never,
    logger,
    clock: systemClock,
  });
  const map = parseReactorMap(JSON.parse(JSON.stringify(reactor).replaceAll('DIR', dir)));
  const engine = new Reactor({
    map,
    clients,
    readSls: (p) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined),
    loadFile: () => undefined,
    opts: {},
    grains: {},
    ...sizes,
    logger,
    clock: systemClock,
  });
  bus.subscribe((e) => engine.onEvent(e));
  t.after(async () => {
    await engine.close();
    cache.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { bus, cache, engine, dir };
}

const PING = "ping:\n  local.test.ping:\n    - tgt: {{ data['id'] }}\n";

test("a matching event publishes the reaction's job as user Reactor; events carrying user Reactor (its own jobs' new events) are skipped", async (t) => {
  const { bus, cache, engine } = setup(t, { 'ping.sls': PING }, [{ 'app/*': ['DIR/ping.sls'] }, { 'salt/job/*/new': ['DIR/ping.sls'] }]);
  bus.fire('app/go', { id: 'web2' });
  await engine.close();
  const jobs = cache.listJobs({ limit: 10 });
  // one job: its salt/job/<jid>/new (user Reactor) matched the second glob but was skipped
  assert.equal(jobs.length, 1);
  assert.deepEqual([jobs[0]!.fun, jobs[0]!.tgt, jobs[0]!.user], ['test.ping', 'web2', 'Reactor']);
  const [rec] = engine.recent.list();
  assert.equal(rec!.outcome, 'published');
  assert.equal(rec!.jid, jobs[0]!.jid);
  assert.equal(rec!.fun, 'local.test.ping');
});

test('past reactor_worker_hwm a reaction is dropped with REACTOR_BUSY and counted; the admitted ones run', async (t) => {
  const { bus, cache, engine } = setup(t, { 'ping.sls': PING }, [{ 'app/*': ['DIR/ping.sls'] }], { workers: 1, hwm: 1 });
  for (let i = 0; i < 5; i++) bus.fire(`app/${i}`, { id: 'web1' });
  await engine.close();
  assert.equal(engine.queue.dropped, 3);
  assert.equal(cache.listJobs({ limit: 10 }).length, 2);
  const dropped = engine.recent.list().filter((r) => r.outcome === 'dropped');
  assert.deepEqual(
    dropped.map((r) => [r.tag, r.error?.code]),
    [
      ['app/4', 'REACTOR_BUSY'],
      ['app/3', 'REACTOR_BUSY'],
      ['app/2', 'REACTOR_BUSY'],
    ],
  );
});

test('a missing SLS is REACTOR_SLS_MISSING, a caller. reaction REACTION_UNSUPPORTED, an unknown target type TARGET_INVALID; the file goes on to its next reaction', async (t) => {
  const { bus, cache, engine } = setup(
    t,
    { 'mixed.sls': "a:\n  caller.file.touch:\n    - args: ['/tmp/x']\nb:\n  local.test.ping:\n    - tgt: web1\n    - tgt_type: nosuch\nc:\n  local.test.ping:\n    - tgt: web1\n" },
    [{ 'app/*': ['DIR/gone.sls', 'DIR/mixed.sls'] }],
  );
  bus.fire('app/x', {});
  await engine.close();
  const byId = new Map(engine.recent.list().map((r) => [r.id ?? r.sls, r]));
  const gone = [...byId.values()].find((r) => r.sls.endsWith('gone.sls'))!;
  assert.deepEqual([gone.outcome, gone.error?.code], ['failed', 'REACTOR_SLS_MISSING']);
  assert.deepEqual([byId.get('a')!.outcome, byId.get('a')!.error?.code], ['failed', 'REACTION_UNSUPPORTED']);
  assert.deepEqual([byId.get('b')!.outcome, byId.get('b')!.error?.code], ['failed', 'TARGET_INVALID']);
  assert.equal(byId.get('c')!.outcome, 'published');
  assert.equal(cache.listJobs({ limit: 10 }).length, 1);
});

test('the recent list keeps the newest `size` reactions, newest first', () => {
  const r = new RecentReactions(3);
  for (let i = 0; i < 5; i++) r.add({ at: i, tag: `t${i}`, sls: '/s', outcome: 'done' });
  assert.deepEqual(
    r.list().map((x) => x.tag),
    ['t4', 't3', 't2'],
  );
  assert.deepEqual(
    r.list(2).map((x) => x.tag),
    ['t4', 't3'],
  );
  assert.equal(r.counts.done, 5);
});

test("an event fired while a runner reaction runs carries that reaction's chain: a runner that re-fires its own tag (as event.send would) is stopped by the chain limit", async () => {
  // the runner registry that sends events lives in the runners worktree; this client fires on
  // the real bus synchronously from the call, as a runner's event.send does before its first await
  const bus = new EventBus(systemClock);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-reactor-'));
  try {
    fs.writeFileSync(path.join(dir, 'echo.sls'), "again:\n  runner.event.send:\n    - args:\n      - tag: loop/{{ data['n'] + 1 }}\n      - data: {n: {{ data['n'] + 1 }}}\n");
    const sent: string[] = [];
    const send = async (fun: string, call: { kwarg: Record<string, unknown> }) => {
      assert.equal(fun, 'event.send');
      sent.push(String(call.kwarg.tag));
      bus.fire(String(call.kwarg.tag), call.kwarg.data as Record<string, unknown>);
      return true;
    };
    const engine = new Reactor({
      map: parseReactorMap([{ 'loop/*': [path.join(dir, 'echo.sls')] }]),
      clients: { local: () => Promise.reject(new Error('unused')), runner: send, wheel: send },
      readSls: (p) => fs.readFileSync(p, 'utf8'),
      loadFile: () => undefined,
      opts: {},
      grains: {},
      workers: 10,
      hwm: 100,
      logger: silentLogger(),
      clock: systemClock,
    });
    bus.subscribe((e) => engine.onEvent(e));
    bus.fire('loop/0', { n: 0 });
    await waitIdle(engine);
    // distinct tags each time, so only causation can stop it: the first event and three caused ones
    assert.deepEqual(sent, ['loop/1', 'loop/2', 'loop/3']);
    const limited = engine.recent.list().find((r) => r.outcome === 'limited');
    assert.equal(limited?.tag, 'loop/3');
    assert.equal(limited?.error?.code, 'REACTOR_LOOP');
    assert.match(limited!.error!.message, /echo\.sls was not run for tag loop\/3: the event was caused by this SLS's own reactions 3 times/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The queue is idle once every reaction, and every reaction it caused, has finished. */
async function waitIdle(engine: Reactor): Promise<void> {
  for (;;) {
    await engine.queue.idle();
    await new Promise((r) => setImmediate(r));
    const { running, waiting } = engine.queue.size;
    if (running === 0 && waiting === 0) return;
  }
}

test("a minion's reactor: caller. runs through its caller client, and an event the function fires after an await still carries the chain (stopped after 3); local. is REACTION_UNSUPPORTED pointing at caller.", async () => {
  const bus = new EventBus(systemClock);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-reactor-'));
  try {
    fs.writeFileSync(path.join(dir, 'again.sls'), "again:\n  caller.event.fire:\n    - args:\n      - data: {n: {{ data['n'] + 1 }}}\n      - tag: later/{{ data['n'] + 1 }}\n");
    fs.writeFileSync(path.join(dir, 'local.sls'), 'nope:\n  local.test.ping:\n    - tgt: web1\n');
    const fired: string[] = [];
    const engine = new Reactor({
      map: parseReactorMap([{ 'later/*': [path.join(dir, 'again.sls')] }, { 'try/local': [path.join(dir, 'local.sls')] }]),
      role: 'minion',
      clients: {
        caller: async (fun, call) => {
          assert.equal(fun, 'event.fire');
          // the function fires after awaiting, as a job's would: the chain follows the async context
          await new Promise((r) => setImmediate(r));
          fired.push(String(call.kwarg.tag));
          bus.fire(String(call.kwarg.tag), call.kwarg.data as Record<string, unknown>);
          return true;
        },
      },
      readSls: async (p) => fs.readFileSync(p, 'utf8'),
      loadFile: () => undefined,
      opts: {},
      grains: () => ({ id: 'web1' }),
      workers: 10,
      hwm: 100,
      logger: silentLogger(),
      clock: systemClock,
    });
    bus.subscribe((e) => engine.onEvent(e));
    bus.fire('later/0', { n: 0 });
    bus.fire('try/local', {});
    await waitIdle(engine);
    assert.deepEqual(fired, ['later/1', 'later/2', 'later/3']);
    const limited = engine.recent.list().find((r) => r.outcome === 'limited');
    assert.equal(limited?.tag, 'later/3');
    const local = engine.recent.list().find((r) => r.id === 'nope');
    assert.equal(local?.error?.code, 'REACTION_UNSUPPORTED');
    assert.match(local!.error!.message, /a minion's reactor runs caller\.<fun> reactions only \(local\.test\.ping runs on a master's reactor\): use caller\.test\.ping/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
