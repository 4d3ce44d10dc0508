// The minion daemon as a list of features (issue 24 point 2, src/minion/features/): the order in
// which a sign-in reaches them (grains, then the pillar request, then the returns that link is
// owed, as the master's data cache and pillar rendering need), the messages each one takes, the
// file_client: local choice made once, and the job runner's one forward reference (JobPort).
// Real features, a real return queue on disk and a real control socket; the links are stubs
// (the MinionLink contract), the clock is fake (the scheduler's and the mine's timers).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FakeClock } from '../../../src/util/clock.js';
import { BrineError } from '../../../src/util/errors.js';
import { silentLogger } from '../../../src/util/logger.js';
import { asMinionOptions, loadConfig } from '../../../src/config/index.js';
import type { MinionMessage, Return } from '../../../src/protocol/index.js';
import type { LinkState, MasterEndpoint, MinionLink } from '../../../src/session/index.js';
import { ReturnQueue } from '../../../src/minion/return-queue.js';
import { buildMinionFeatures } from '../../../src/minion/features/index.js';
import { JobPort } from '../../../src/minion/features/job-port.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-features-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let seq = 0;

class StubLink implements MinionLink {
  readonly sent: MinionMessage[] = [];
  state: LinkState = 'ready';
  readonly attempts = 1;
  readonly connection = undefined;
  constructor(readonly endpoint: MasterEndpoint) {}
  get ready(): boolean {
    return this.state === 'ready';
  }
  start(): void {}
  stop(): void {
    this.state = 'stopped';
  }
  send(m: MinionMessage): boolean {
    if (!this.ready) return false;
    this.sent.push(m);
    return true;
  }
  kinds(): string[] {
    return this.sent.map((m) => m.t);
  }
}

function ret(n: number): Return {
  return { t: 'return', jid: `20240102030405${String(n).padStart(6, '0')}`, fun: 'test.ping', ret: true, retcode: 0, success: true };
}

/** A minion's features on a fresh cachedir, with `links` as its links. */
function build(fileClient: 'remote' | 'local', links: StubLink[], before: Return[] = []) {
  const dir = path.join(root, `m${++seq}`);
  fs.mkdirSync(dir);
  const lines = [`cachedir: ${dir}/cache`, `sock_dir: ${dir}/sock`, `pki_dir: ${dir}/pki`, `file_client: ${fileClient}`, `file_roots: {base: [${dir}/srv]}`, `pillar_roots: {base: [${dir}/pillar]}`];
  fs.writeFileSync(path.join(dir, 'minion'), `${lines.join('\n')}\n`);
  const opts = asMinionOptions(loadConfig('minion', { configDir: dir, env: {} }));
  const queue = ReturnQueue.open(path.join(dir, 'cache', 'returns'), { max: 100, fsync: false });
  for (const r of before) queue.add(r);
  const features = buildMinionFeatures({ opts, id: 'web1', logger: silentLogger(), clock: new FakeClock(), links: { all: () => links } }, queue);
  return { features, queue };
}

describe('minion features', () => {
  it('lists the features in the order each moment reaches them, masterless or not', () => {
    const order = ['presence', 'extmods', 'grains', 'pillar', 'files', 'schedule', 'startup_states', 'mine', 'returners', 'events', 'jobs', 'beacons', 'reactor', 'returns', 'control', 'malloc-trim'];
    const remote = build('remote', []).features;
    const local = build('local', []).features;
    assert.deepEqual(remote.list.names, order);
    assert.deepEqual(local.list.names, order);
    assert.equal(remote.files.local, false);
    assert.equal(local.files.local, true);
  });

  it('at a sign-in sends the grains, then asks for the pillar, then the returns owed; the replies reach their feature', async () => {
    const link = new StubLink({ host: 'm1', port: 4506 });
    const { features, queue } = build('remote', [link], [ret(1)]);
    // as in the daemon: the features start before the links do
    link.state = 'idle';
    await features.list.start();
    try {
      link.state = 'ready';
      features.list.ready(link);
      assert.deepEqual(link.kinds(), ['grains', 'pillar_request', 'return']);
      assert.equal((link.sent[0] as { grains: Record<string, unknown> }).grains.id, 'web1');
      const rid = (link.sent[1] as { rid: number }).rid;
      assert.equal(features.list.message({ t: 'pillar_reply', rid, ok: true, pillar: { role: 'web' } }, link), true);
      // the reply settles the request a few promise steps later
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(features.pillar.store.get(), { role: 'web' });
      assert.equal(features.list.message({ t: 'ack', jid: ret(1).jid }, link), true);
      assert.equal(queue.size, 0, 'the ack removed the return from the queue');
      assert.equal(features.list.message({ t: 'find_job', jid: ret(2).jid }, link), true);
      assert.deepEqual(link.sent.at(-1), { t: 'job_status', jid: ret(2).jid, running: false });
      assert.equal(features.status().links.length, 1);
    } finally {
      await features.list.stop();
    }
  });

  it("resends a published job's return only on the link its job came on", async () => {
    const a = new StubLink({ host: 'a', port: 4506 });
    const b = new StubLink({ host: 'b', port: 4506 });
    const { features, queue } = build('remote', [a, b]);
    features.returns.fromMaster(ret(5), a);
    assert.deepEqual(a.kinds(), ['return']);
    features.list.ready(b);
    assert.ok(!b.kinds().includes('return'), `b was sent ${b.kinds().join(', ')}`);
    features.list.ready(a);
    assert.deepEqual(a.kinds().filter((k) => k === 'return').length, 2);
    assert.equal(queue.size, 1);
    await features.list.stop();
  });

  it('carried acks (issue 27): one acks message forgets each of its returns, and only those', async () => {
    const link = new StubLink({ host: 'm1', port: 4506 });
    const { features, queue } = build('remote', [link], [ret(1), ret(2), ret(3)]);
    assert.equal(features.list.message({ t: 'acks', jids: [ret(1).jid, ret(3).jid, ret(9).jid] }, link), true);
    assert.deepEqual(
      queue.pending().map((r) => r.jid),
      [ret(2).jid],
      'the unacknowledged return stays queued (on disk) for the next sign-in',
    );
    await features.list.stop();
  });

  it('after the stop queues no return of its own', async () => {
    const link = new StubLink({ host: 'm1', port: 4506 });
    const { features, queue } = build('remote', [link]);
    await features.list.stop();
    features.returns.own(ret(7));
    assert.equal(queue.size, 0);
    assert.deepEqual(link.sent, []);
  });
});

describe('JobPort', () => {
  it('refuses a job before the runner is bound, and a second binding', async () => {
    const port = new JobPort();
    const internal = (e: unknown) => e instanceof BrineError && e.code === 'INTERNAL';
    assert.throws(() => port.run({ t: 'job', jid: ret(1).jid, fun: 'test.ping', arg: [], kwarg: {}, tgt: 'web1', tgtType: 'glob' }), internal);
    const { features } = build('remote', []);
    port.bind(features.jobs.runner);
    assert.throws(() => port.bind(features.jobs.runner), internal);
    await features.list.stop();
  });
});
