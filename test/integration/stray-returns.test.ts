// Issue 8 point 3, threats.md #36: a return is stored only from a minion the job was actually
// sent to, and only when its `fun` is the job's. A raw authenticated client plays the minion
// that was offline at publish and returns later, and the one that answers with another function.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster, Proc } from '../helpers/cluster.js';
import type { RawClient } from '../helpers/raw-client.js';
import { RawPeerFixture } from '../helpers/raw-peer.js';

const ret = (jid: string, fun: string, value: unknown) => ({ t: 'return', jid, fun, ret: value, retcode: 0, success: true });

describe('returns are stored only from minions the job was sent to, for its function', () => {
  let fx: RawPeerFixture;
  let cluster: Cluster;
  let master: Proc;

  /** Signs in as `late` over a raw TLS connection with our fixed key. */
  async function signIn(): Promise<RawClient> {
    const c = await fx.connect();
    c.send({ t: 'hello', versions: [1], id: 'late', agent: 'raw-client' });
    const auth = await c.nextFrame(5000);
    assert.equal(auth?.status, 'accepted', JSON.stringify(auth));
    return c;
  }

  before(async () => {
    fx = await RawPeerFixture.start({ auto_accept: true });
    ({ cluster, master } = fx);
  });
  after(() => fx.close());

  it('drops the return of a minion that was offline at publish and connects later (threats.md #36)', async () => {
    // `late` gets an accepted key, then goes away before the job is published
    const first = await signIn();
    first.destroy();
    await master.waitForOutput(/minion late disconnected/);

    const run = await cluster.brine(['run', '*', 'test.ping', '--show-jid', '-t', '5']);
    const jid = run.stdout.match(/^jid: (\d{20})$/m)?.[1];
    assert.ok(jid, run.stdout + run.stderr);
    assert.match(run.stdout, /late:\n\s+Minion did not return\. \[Not connected\]/, run.stdout);

    const again = await signIn();
    again.send(ret(jid, 'test.ping', 'forged-late'));
    const line = await master.waitForOutput(new RegExp(`^.*dropped a return from late for job ${jid}, which was never sent to it \\(it was not connected.*$`, 'm'));
    assert.match(line[0], /reason=not_sent|"reason":"not_sent"/, line[0]);
    // acknowledged, so a real minion would stop resending it
    assert.deepEqual(await again.nextFrame(3000), { t: 'ack', jid });
    const shown = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
    // exit 1 with late listed as not returned: its forged return is not in the job cache
    assert.equal(shown.code, 1, shown.stdout + shown.stderr);
    assert.doesNotMatch(shown.stdout, /forged-late/, shown.stdout);
    assert.match(shown.stdout, /"late": "Minion did not return\. \[No response\]"/, shown.stdout);
    assert.match(shown.stdout, /"good": true/, shown.stdout);
    again.destroy();
    await master.waitForOutput(/minion late disconnected[\s\S]*minion late disconnected/);
  });

  it('drops a return whose fun is not the job’s, and stores the matching one', async () => {
    const c = await signIn();
    const run = cluster.brine(['run', 'late', 'test.ping', '--out', 'json', '--show-jid', '-t', '10']);
    const job = await c.nextFrame(10_000);
    assert.equal(job?.t, 'job', JSON.stringify(job));
    const jid = String(job!.jid);
    c.send(ret(jid, 'cmd.run', 'wrong-function'));
    await master.waitForOutput(new RegExp(`dropped a return from late for job ${jid}, whose function does not match the job's`));
    assert.deepEqual(await c.nextFrame(3000), { t: 'ack', jid });
    // the job is still waited for: the real return is the one shown and stored
    c.send(ret(jid, 'test.ping', 'right-function'));
    const r = await run;
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.replace(/^jid: .*\n/m, '')), { late: 'right-function' });
    const shown = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
    assert.deepEqual(JSON.parse(shown.stdout), { late: 'right-function' });
  });

  it('a minion sending stray returns in a flood costs a few log lines, not one per return', async () => {
    const c = await signIn();
    const before = (master.output.match(/dropped a return from late/g) ?? []).length;
    const n = 60;
    const jids = Array.from({ length: n }, (_, i) => `2099010100000000${String(1000 + i)}`);
    for (const jid of jids) c.send(ret(jid, 'test.ping', 'stray'));
    // every one is acknowledged (and dropped): the acks are the observable end of the flood
    for (const jid of jids) assert.deepEqual(await c.nextFrame(5000), { t: 'ack', jid });
    await master.waitForOutput(new RegExp(`dropped a return from late for job ${jids[0]}, which was never sent to it \\(no such job`));
    const lines = (master.output.match(/dropped a return from late/g) ?? []).length - before;
    assert.ok(lines >= 1 && lines <= 3, `${lines} log lines for ${n} stray returns:\n${master.output}`);
    c.destroy();
  });
});
