// Issue 25 point 1: the master's bus in Salt 3007's shapes, against a real master, real minions,
// the REST API and `brine events`. A test.ping's `salt/job/<jid>/new` and `.../ret/<id>` lines
// must be what Salt's `salt-run state.event` prints, field for field and in Salt's order (the
// payloads of salt/master.py _prep_pub and salt/minion.py _return_pub); `brine key -a/-d` fire
// salt/key once per key; presence_events fires salt/presence/change and .../present every
// loop_interval; a restricted API user sees presence cut down to its minions and no key events.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { Cluster, freePort, waitUntil, type Proc } from '../helpers/cluster.js';

// openssl passwd -apr1 / {SHA} vectors: every password is s3cret
const HTPASSWD = ['admin:$apr1$QWERTYui$X9loan3DaNUX6PQ5FlFRC0', 'limited:{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=', ''].join('\n');
const ACL = { admin: ['.*', '@runner', '@wheel'], limited: [{ m1: ['test.*'] }] };
/** datetime.utcnow().isoformat(): microseconds, or none when they are zero. */
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/;

type SseStream = Awaited<ReturnType<ApiClient['events']>>;
type SseEvent = SseStream['events'][number];

function sseEvent(stream: SseStream, pred: (e: SseEvent) => boolean, what: string): Promise<SseEvent> {
  return waitUntil(() => stream.events.find(pred), 20_000, what);
}

describe("the event bus in Salt's shapes (issue 25 point 1)", () => {
  let cluster: Cluster;
  let api: ApiClient;
  let cli: Proc;
  let admin: SseStream;
  let limited: SseStream;
  let adminToken: string;
  const minions = new Map<string, Proc>();

  /** `brine events` lines (tag, raw JSON text) from the CLI's output. */
  const cliLines = (): Array<{ tag: string; json: string; line: string }> =>
    cli.output
      .split('\n')
      .filter((l) => l.includes('\t'))
      .map((line) => ({ tag: line.slice(0, line.indexOf('\t')), json: line.slice(line.indexOf('\t') + 1), line }));
  const cliEvent = (tag: string) => waitUntil(() => cliLines().find((l) => l.tag === tag), 30_000, `${tag} from brine events\n${cli.output}`);

  before(async () => {
    cluster = await Cluster.create();
    const htpasswd = path.join(cluster.root, 'htpasswd');
    fs.writeFileSync(htpasswd, HTPASSWD, { mode: 0o600 });
    const port = await freePort();
    await cluster.startMaster({
      api: { port, webhook_url: '/hook' },
      external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', ...ACL } },
      presence_events: true,
      loop_interval: 1,
    });
    const ca = fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8');
    api = new ApiClient(port, ca);
    adminToken = await api.login('admin', 's3cret');
    admin = await api.events('/events', { 'x-auth-token': adminToken });
    limited = await api.events('/events', { 'x-auth-token': await api.login('limited', 's3cret') });
    cli = cluster.spawnBrine('events', ['events', '-c', cluster.masterConfigDir, '--timeout', '300']);
    // the CLI's stream is subscribed once a hook fired after its start shows up on it
    let n = 0;
    await waitUntil(
      async () => {
        n++;
        await api.post(`/hook/ready/${n}`, adminToken, {});
        return waitUntil(() => cli.output.includes(`salt/netapi/hook/ready/${n}\t`), 2000, 'probe').then(
          () => true,
          () => false,
        );
      },
      20_000,
      'brine events to be subscribed',
    );
    for (const id of ['m1', 'm2']) minions.set(id, cluster.startMinion(id));
    await cluster.waitForPending(['m1', 'm2']);
  });
  after(async () => {
    // docs/events.md's examples come from this run: BRINE_EVENTS_CAPTURE=<file> keeps the stream
    if (process.env.BRINE_EVENTS_CAPTURE && cli) fs.writeFileSync(process.env.BRINE_EVENTS_CAPTURE, cli.output);
    admin?.close();
    limited?.close();
    await cluster.cleanup();
  });

  it('brine key -a fires salt/key {result, act, id} once per key; the sign-in fires salt/auth accept with the PEM and the start events', async () => {
    const r = await cluster.brine(['key', '-a', 'm1', '-y']);
    assert.equal(r.code, 0, r.stderr);
    const key = await cliEvent('salt/key');
    const data = JSON.parse(key.json);
    assert.deepEqual(Object.keys(data), ['result', 'act', 'id', '_stamp'], "salt/key.py's eload, then _stamp");
    assert.deepEqual({ ...data, _stamp: undefined }, { result: true, act: 'accept', id: 'm1', _stamp: undefined });
    assert.match(data._stamp, STAMP);
    assert.equal(key.line, `salt/key\t{"result": true, "act": "accept", "id": "m1", "_stamp": "${data._stamp}"}`, "Python's json.dumps separators");
    const auth = await waitUntil(() => cliLines().find((l) => l.tag === 'salt/auth' && JSON.parse(l.json).act === 'accept'), 30_000, 'salt/auth accept');
    const a = JSON.parse(auth.json);
    assert.deepEqual(Object.keys(a), ['result', 'act', 'id', 'pub', '_stamp']);
    assert.equal(a.result, true);
    assert.equal(a.id, 'm1');
    const stored = fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'minions', 'm1'), 'utf8');
    assert.equal(a.pub, stored, 'the public key as the key store keeps it');
    const start = JSON.parse((await cliEvent('salt/minion/m1/start')).json);
    assert.deepEqual(Object.keys(start), ['id', 'cmd', 'pretag', 'data', 'tag', '_stamp'], "_fire_master's load order");
    assert.equal(start.cmd, '_minion_event');
    assert.equal(start.tag, 'salt/minion/m1/start');
    assert.equal(start.pretag, null);
    assert.match(start.data, /^Minion m1 started at [A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}$/, 'time.asctime()');
    assert.equal(JSON.parse((await cliEvent('minion_start')).json).tag, 'minion_start');
    assert.equal(cliLines().filter((l) => l.tag === 'salt/key').length, 1, 'one event per key');
    // the restricted user sees no key or sign-in events
    assert.ok(!limited.events.some((e) => e.tag === 'salt/key' || e.tag === 'salt/auth'), JSON.stringify(limited.events.map((e) => e.tag)));
  });

  it("a test.ping's salt/job/<jid>/new and .../ret/<id> equal Salt's payloads field for field, on brine events and on /events", async () => {
    assert.equal((await cluster.brine(['key', '-a', 'm2', '-y'])).code, 0);
    await waitUntil(async () => (await cluster.brine(['run', '*', 'test.ping'])).stdout.match(/m[12]:\n\s+True/g)?.length === 2, 30_000, 'both minions to answer');
    const r = await cluster.brine(['run', '-L', 'm1,m2,ghost', 'test.ping', '-v']);
    const jid = /Executing job with jid (\d+)/.exec(r.stdout + r.stderr)?.[1];
    assert.ok(jid, r.stdout + r.stderr);
    const bare = await cliEvent(jid);
    const newLine = await cliEvent(`salt/job/${jid}/new`);
    const lines = cliLines();
    assert.ok(lines.findIndex((l) => l.tag === jid) < lines.findIndex((l) => l.tag === `salt/job/${jid}/new`), 'the bare <jid> event comes first, as in _prep_pub');
    const b = JSON.parse(bare.json);
    assert.deepEqual(Object.keys(b), ['minions', '_stamp']);
    assert.deepEqual([...b.minions].sort(), ['m1', 'm2']);
    const n = JSON.parse(newLine.json);
    assert.deepEqual(Object.keys(n), ['jid', 'tgt_type', 'tgt', 'user', 'fun', 'arg', 'minions', 'missing', '_stamp'], "_prep_pub's new_job_load");
    assert.equal(n.jid, jid);
    assert.equal(n.tgt_type, 'list');
    assert.deepEqual(n.tgt, ['m1', 'm2', 'ghost']);
    assert.equal(typeof n.user, 'string');
    assert.equal(n.fun, 'test.ping');
    assert.deepEqual(n.arg, []);
    assert.deepEqual([...n.minions].sort(), ['m1', 'm2']);
    assert.deepEqual(n.missing, ['ghost']);
    assert.match(n._stamp, STAMP);
    for (const id of ['m1', 'm2']) {
      const ret = await cliEvent(`salt/job/${jid}/ret/${id}`);
      const stamp = JSON.parse(ret.json)._stamp;
      assert.match(stamp, STAMP);
      // exactly what Salt's state.event prints for a test.ping return
      assert.equal(
        ret.line,
        `salt/job/${jid}/ret/${id}\t{"cmd": "_return", "id": "${id}", "success": true, "return": true, "retcode": 0, "jid": "${jid}", "fun": "test.ping", "fun_args": [], "user": "${n.user}", "_stamp": "${stamp}"}`,
      );
      const sse = await sseEvent(admin, (e) => e.tag === `salt/job/${jid}/ret/${id}`, `the ${id} return on /events`);
      assert.deepEqual(sse.data, { tag: `salt/job/${jid}/ret/${id}`, data: JSON.parse(ret.json) }, '/events carries the same payload');
    }
    const sseNew = await sseEvent(admin, (e) => e.tag === `salt/job/${jid}/new`, 'the new event on /events');
    assert.deepEqual(Object.keys(sseNew.data.data), Object.keys(n));
    assert.deepEqual(sseNew.data.data, n);
  });

  it('brine events takes a tagmatch glob, -n and --pretty (sorted keys, indent 4) as state.event does', async () => {
    const follow = cluster.spawnBrine('events ret', ['events', 'salt/job/*/ret/m1', '-n', '1', '--pretty', '-c', cluster.masterConfigDir, '--timeout', '60']);
    // the stream subscribes asynchronously: ping until it prints one return of m1 and exits
    await waitUntil(
      async () => {
        if (!follow.running) return true;
        await cluster.brine(['run', 'm1', 'test.ping']);
        return !follow.running;
      },
      30_000,
      'brine events -n 1 to print a return and exit',
    );
    const out = follow.output;
    assert.match(
      out,
      /^salt\/job\/\d+\/ret\/m1\t\{\n {4}"_stamp": "[^"]+",\n {4}"cmd": "_return",\n {4}"fun": "test.ping",\n {4}"fun_args": \[\],\n {4}"id": "m1",\n {4}"jid": "\d+",\n {4}"retcode": 0,\n {4}"return": true,\n {4}"success": true,\n {4}"user": "[^"]+"\n\}\n$/,
    );
  });

  it('presence_events: salt/presence/change then .../present every loop_interval; a lost minion is reported; the restricted user sees only m1', async () => {
    const present = await waitUntil(() => admin.events.find((e) => e.tag === 'salt/presence/present' && [...e.data.data.present].sort().join() === 'm1,m2'), 20_000, 'both minions present');
    assert.deepEqual(Object.keys(present.data.data), ['present', '_stamp']);
    const change = admin.events.find((e) => e.tag === 'salt/presence/change' && e.data.data.new.includes('m2'));
    assert.ok(change, 'the change that brought m2 in');
    assert.deepEqual(Object.keys(change.data.data), ['new', 'lost', '_stamp']);
    // rounds repeat: at least two presents a second apart
    await waitUntil(() => admin.events.filter((e) => e.tag === 'salt/presence/present').length >= 3, 10_000, 'presence rounds');
    const d = await cluster.brine(['key', '-d', 'm2', '-y']);
    assert.equal(d.code, 0, d.stderr);
    const del = await waitUntil(() => admin.events.find((e) => e.tag === 'salt/key' && e.data.data.act === 'delete'), 20_000, 'salt/key delete');
    assert.deepEqual({ ...del.data.data, _stamp: undefined }, { result: true, act: 'delete', id: 'm2', _stamp: undefined });
    const lost = await waitUntil(() => admin.events.find((e) => e.tag === 'salt/presence/change' && e.data.data.lost.includes('m2')), 20_000, 'm2 lost');
    assert.deepEqual(lost.data.data.new, []);
    // the restricted user's presence names m1 only, and it never saw m2's change
    const mine = limited.events.filter((e) => e.tag.startsWith('salt/presence/'));
    assert.ok(
      mine.some((e) => e.tag === 'salt/presence/present' && e.data.data.present.includes('m1')),
      JSON.stringify(mine),
    );
    for (const e of mine) assert.ok(!JSON.stringify(e.data.data).includes('m2'), JSON.stringify(e));
    assert.ok(!limited.events.some((e) => e.tag === 'salt/key'));
  });
});
