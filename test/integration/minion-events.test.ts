// Issue 25 point 2, events from minions end to end: a real master and minion over loopback TLS.
// event.send from a job and from a state's module.run (a job worker, through the host thread)
// arrives on `brine events` under its own tag with Salt's _minion_event payload; the minion's ID
// comes from the session; tags in the master's namespaces (and another minion's) are refused with
// EVENT_TAG_RESERVED, logged on the master, and never reach the bus (threats.md #4, #19).
// `brine event send` (salt-run event.send) fires on the master's bus through the control socket.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { runJson } from '../helpers/run-json.js';
import { openEventStream, type EventTail } from '../helpers/event-tail.js';

describe('minion events: event.send, fire_master, reserved tags', () => {
  let cluster: Cluster;
  let master: Proc;
  let stream: EventTail;

  const run = (args: string[]) => runJson(cluster, 'm1', args);

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster({ auto_accept: true });
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(srv, { recursive: true });
    fs.writeFileSync(path.join(srv, 'notify.sls'), "notify:\n  module.run:\n    - event.send:\n      - tag: myco/state/done\n      - data:\n          step: {{ grains['role'] }}\n");
    const m1 = cluster.startMinion('m1', { grains: { role: 'web', secret_grain: 'not sent' } });
    await m1.waitForOutput(/ready to receive requests/);
    stream = await openEventStream(cluster, 'm1');
  });
  after(async () => {
    await stream?.close();
    await cluster?.cleanup();
  });

  it('event.send with_grains arrives under its tag with Salt payload and the session ID', async () => {
    const r = await run(['event.send', 'myco/build/done', '{"result": "ok", "id": "forged"}', 'with_grains=["role"]', 'extra=1']);
    assert.equal(r.ret, true, r.raw);
    const [e] = await stream.waitFor('myco/build/done', 1, 15_000);
    assert.equal(e!.data.cmd, '_minion_event');
    assert.equal(e!.data.id, 'm1', 'the ID is the session, not the payload');
    assert.equal(e!.data.tag, 'myco/build/done');
    assert.equal(e!.data.pretag, null);
    assert.match(String(e!.data._stamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    assert.deepEqual(e!.data.data, { result: 'ok', id: 'forged', grains: { role: 'web' }, extra: 1 });
  });

  it('event.fire_master from a state run in a job worker reaches the bus through the host', async () => {
    const r = await run(['state.apply', 'notify']);
    assert.equal(r.code, 0, r.raw);
    const [e] = await stream.waitFor('myco/state/done', 1, 15_000);
    assert.deepEqual(e!.data.data, { step: 'web' });
    assert.equal(e!.data.id, 'm1');
  });

  for (const tag of ['salt/job/20260101000000000000/ret/m2', 'salt/auth', 'salt/key', 'salt//presence/change', 'salt/beacon/m2/inotify/', 'brine/minion/m2/connected', 'SALT/RUN/1/new']) {
    it(`refuses ${tag} with EVENT_TAG_RESERVED and logs it on the master`, async () => {
      const r = await run(['event.send', tag, '{"x": 1}']);
      assert.notEqual(r.code, 0, r.raw);
      assert.match(r.raw, /minion m1 may not fire/);
      const logged = await waitUntil(
        () =>
          master.output
            .split('\n')
            .find(
              (l) =>
                l.includes(`refused an event from minion m1: minion m1 may not fire ${JSON.stringify(tag).replace(/^"|"$/g, '')}`) ||
                (l.includes('refused an event from minion m1') && l.includes(tag)),
            ),
        10_000,
        `the refusal of ${tag} in the master log\n${master.output.slice(-3000)}`,
      );
      assert.match(logged, /EVENT_TAG_RESERVED/, logged);
      assert.equal(stream.lines(tag).filter((l) => l.data.x === 1).length, 0, 'nothing was fired');
    });
  }

  it('brine event send fires on the master bus (salt-run event.send): JSON data and key=value pairs', async () => {
    const r = await cluster.brine(['event', 'send', 'myco/deploy/start', '{"a": 1}', 'b=2', 'c=text', '-c', cluster.masterConfigDir]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout, 'True\n');
    const [e] = await stream.waitFor('myco/deploy/start', 1, 15_000);
    const { _stamp, ...data } = e!.data;
    assert.deepEqual(data, { a: 1, b: 2, c: 'text' });
    assert.equal(typeof _stamp, 'string');
    const bad = await cluster.brine(['event', 'send', 'myco/x', 'not-json', '-c', cluster.masterConfigDir]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /USAGE.*event data must be a JSON object/s);
  });

  it('event.fire fires on the minion only (nothing on the master bus)', async () => {
    const r = await run(['event.fire', '{"local": true}', 'myco/local/only']);
    assert.equal(r.ret, true, r.raw);
    // a later event on the master proves the stream is past the point where the local one would be
    await run(['event.send', 'myco/after/local']);
    await stream.waitFor('myco/after/local', 1, 15_000);
    assert.equal(stream.lines('myco/local/only').length, 0);
  });
});
