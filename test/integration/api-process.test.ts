// `brine api` (the REST API as its own process) against a real master with `api: {standalone:
// true}` and real minions: the same routes over the control socket, 503 MASTER_UNREACHABLE
// while the master is down (the process stays up), and recovery once it is back, the /events
// stream included. Also the refusals: no `api:`, or `api:` without standalone.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ApiClient, expectError } from '../helpers/api-client.js';
import { Cluster, freePort, runCli, waitUntil, type Proc } from '../helpers/cluster.js';

// every password is s3cret (openssl passwd -apr1 / {SHA})
const HTPASSWD = ['admin:{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=', 'limited:$apr1$QWERTYui$X9loan3DaNUX6PQ5FlFRC0', ''].join('\n');
const ACL = { admin: ['.*', '@runner', '@wheel'], limited: [{ m1: ['test.*'] }] };

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('brine api: the REST API as its own process', () => {
  let cluster: Cluster;
  let api: ApiClient;
  let master: Proc;
  let apiProc: Proc;
  let admin: string;
  let masterConfig: Record<string, unknown>;
  let port: number;

  const presence = async (): Promise<Array<{ id: string; state: string }>> => {
    const res = await api.post('/', admin, [{ client: 'runner', fun: 'manage.presence' }]);
    assert.equal(res.status, 200, res.text);
    return res.json.return[0];
  };
  const connected = (ids: string[]) =>
    waitUntil(async () => (await presence()).filter((s) => ids.includes(s.id) && s.state === 'connected').length === ids.length, 30_000, `${ids.join(', ')} connected`);

  before(async () => {
    cluster = await Cluster.create();
    const htpasswd = path.join(cluster.root, 'htpasswd');
    fs.writeFileSync(htpasswd, HTPASSWD, { mode: 0o600 });
    port = await freePort();
    const reactSls = path.join(cluster.root, 'react.sls');
    fs.writeFileSync(reactSls, 'ping_m1:\n  local.test.ping:\n    - tgt: m1\n');
    masterConfig = {
      api: { port, standalone: true, webhook_url: '/hook' },
      reactor: [{ 'salt/netapi/hook/react': [reactSls] }],
      external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', ...ACL } },
      log_level: 'debug',
    };
    master = await cluster.startMaster(masterConfig);
    await master.waitForOutput(/the REST API is served by `brine api`, not by the master/);
    for (const id of ['m1', 'm2']) cluster.startMinion(id);
    await cluster.waitForPending(['m1', 'm2']);
    const acc = await cluster.brine(['key', '-A', '-y']);
    assert.equal(acc.code, 0, acc.stderr);
  });
  after(() => cluster.cleanup());

  it('the master with standalone does not listen on the API port', async () => {
    assert.equal(await portOpen(port), false, 'nothing listens on the API port before brine api starts');
    assert.doesNotMatch(master.output, /serving the REST API on/);
  });

  it('brine api starts, serves HTTPS with the master-chosen certificate and logs in', async () => {
    apiProc = cluster.spawnBrine('api', ['api', '-c', cluster.masterConfigDir]);
    await apiProc.waitForOutput(/brine api serving the REST API on https:\/\/127\.0\.0\.1:\d+/);
    // the master's key is Ed25519, so the certificate is pki_dir/api.crt, as the in-master API uses
    const ca = fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8');
    api = new ApiClient(port, ca);
    admin = await api.login('admin', 's3cret');
    await connected(['m1', 'm2']);
  });

  it('POST / local test.ping returns every minion', async () => {
    const res = await api.post('/', admin, [{ client: 'local', tgt: '*', fun: 'test.ping' }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.return[0], { m1: true, m2: true });
  });

  it('local_async gives the jid, and GET /jobs/{jid} shows the returns from the job cache', async () => {
    const res = await api.post('/', admin, [{ client: 'local_async', tgt: 'm1', fun: 'test.echo', arg: ['hello'] }]);
    assert.equal(res.status, 200, res.text);
    const { jid, minions } = res.json.return[0];
    assert.match(jid, /^\d{20}$/);
    assert.deepEqual(minions, ['m1']);
    const job = await waitUntil(
      async () => {
        const r = await api.get(`/jobs/${jid}`, admin);
        return r.status === 200 && r.json.return[0].m1 !== undefined ? r : undefined;
      },
      20_000,
      'the return in the job cache',
    );
    assert.equal(job.json.return[0].m1, 'hello');
    assert.equal(job.json.info[0].Function, 'test.echo');
    assert.equal(job.json.info[0].User, 'admin', 'the job is recorded under the API user');
  });

  it('runners run in the master (same answers as its own API), recorded under the API user; wheel minions.connected', async () => {
    const res = await api.post('/', admin, [
      { client: 'runner', fun: 'test.arg', arg: ['x'], kwarg: { k: 'v' } },
      { client: 'runner', fun: 'fileserver.file_list' },
      { client: 'runner_async', fun: 'test.arg' },
      { client: 'wheel', fun: 'minions.connected' },
    ]);
    assert.equal(res.status, 200, res.text);
    const [arg, files, started, connected] = res.json.return;
    assert.deepEqual(arg, { args: ['x'], kwargs: { k: 'v' } });
    assert.deepEqual(files, []);
    assert.match(started.jid, /^\d{20}$/);
    assert.deepEqual(connected.data.return, ['m1', 'm2']);
    // the runner job is in the master's job cache, under the API user
    const job = await waitUntil(
      async () => {
        const r = await api.post('/', admin, [{ client: 'runner', fun: 'jobs.list_job', jid: started.jid }]);
        return r.status === 200 && Object.keys(r.json.return[0].Result).length > 0 ? r.json.return[0] : undefined;
      },
      20_000,
      'the runner job in the job cache',
    );
    assert.equal(job.Function, 'runner.test.arg');
    assert.equal(job.User, 'admin');
    expectError(await api.post('/', admin, [{ client: 'runner', fun: 'nope.nothing' }]), 400, 'API_BAD_REQUEST');
  });

  it('a publish outside the ACL is 403 ACL_DENIED (the target is matched by the master)', async () => {
    const limited = await api.login('limited', 's3cret');
    const ok = await api.post('/', limited, [{ client: 'local', tgt: 'm1', fun: 'test.ping' }]);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.return[0], { m1: true });
    expectError(await api.post('/', limited, [{ client: 'local', tgt: 'm2', fun: 'test.ping' }]), 403, 'ACL_DENIED');
    expectError(await api.post('/', limited, [{ client: 'local', tgt: '*', fun: 'test.ping' }]), 403, 'ACL_DENIED');
  });

  it('wheel key.accept accepts a pending minion, which then connects', async () => {
    cluster.startMinion('m3');
    await cluster.waitForPending(['m3']);
    const before = await presence();
    assert.equal(before.find((s) => s.id === 'm3')?.state, 'pending');
    const res = await api.post('/', admin, [{ client: 'wheel', fun: 'key.accept', match: 'm3' }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.return[0].data.return, { minions: ['m3'] });
    await connected(['m3']);
  });

  it('GET /events streams job events and hooks from the master', async () => {
    const stream = await api.events('/events', { 'x-auth-token': admin });
    try {
      assert.equal(stream.status, 200);
      // the relay's stream to the master opens with the first listener: publish until a job's events come through
      const jids: string[] = [];
      const seen = await waitUntil(
        async () => {
          const r = await api.post('/', admin, [{ client: 'local_async', tgt: 'm2', fun: 'test.ping' }]);
          assert.equal(r.status, 200, r.text);
          jids.push(r.json.return[0].jid as string);
          return waitUntil(() => jids.find((j) => stream.events.some((e) => e.tag === `salt/job/${j}/ret/m2`)), 1000, 'a return event').catch(() => undefined);
        },
        20_000,
        'a job event on /events',
      );
      assert.ok(
        stream.events.some((e) => e.tag === `salt/job/${seen}/new`),
        'the job_published event came too',
      );
      const hook = await api.post('/hook/deploy/done', admin, { version: 3 });
      assert.equal(hook.status, 200, hook.text);
      const ev = await waitUntil(() => stream.events.find((e) => e.tag === 'salt/netapi/hook/deploy/done'), 10_000, 'the hook event');
      assert.deepEqual((ev.data as { data: { post: unknown; user: string } }).data.post, { version: 3 });
    } finally {
      stream.close();
    }
  });

  it("GET /reactions lists the master's reactor activity over the control socket (issue 25: it was 404)", async () => {
    const hook = await api.post('/hook/react', admin, { why: 'test' });
    assert.equal(hook.status, 200, hook.text);
    const reaction = await waitUntil(
      async () => {
        const r = await api.get('/reactions', admin);
        assert.equal(r.status, 200, r.text);
        return (r.json.return[0] as Array<{ tag: string; sls: string; id?: string; fun?: string; outcome: string; jid?: string }>).find((x) => x.tag === 'salt/netapi/hook/react');
      },
      20_000,
      'the reaction to the hook in GET /reactions',
    );
    assert.equal(reaction.sls, path.join(cluster.root, 'react.sls'));
    assert.equal(reaction.id, 'ping_m1');
    assert.equal(reaction.fun, 'local.test.ping');
    assert.ok(['published', 'done'].includes(reaction.outcome), reaction.outcome);
    assert.match(reaction.jid ?? '', /^\d{20}$/);
    // the reaction's job ran on m1, as the job cache shows
    const job = await waitUntil(
      async () => {
        const r = await api.get(`/jobs/${reaction.jid}`, admin);
        return r.status === 200 && r.json.return[0].m1 !== undefined ? r.json.return[0] : undefined;
      },
      20_000,
      "the reaction's job return",
    );
    assert.equal(job.m1, true);
    expectError(await api.get('/reactions?limit=0', admin), 400, 'BAD_ARGUMENTS');
    const limited = await api.login('limited', 's3cret');
    const refused = await api.get('/reactions', limited);
    assert.equal(refused.status, 403, refused.text);
  });

  it('while the master is down: 503 MASTER_UNREACHABLE, the process stays up; back when the master is', async () => {
    const stream = await api.events('/events', { 'x-auth-token': admin });
    try {
      await master.kill('SIGTERM');
      const down = await api.post('/', admin, [{ client: 'runner', fun: 'manage.presence' }]);
      expectError(down, 503, 'MASTER_UNREACHABLE');
      assert.equal(down.json.return, 'Service Unavailable');
      expectError(await api.post('/', admin, [{ client: 'local', tgt: '*', fun: 'test.ping' }]), 503, 'MASTER_UNREACHABLE');
      // what needs only the files still works
      const keys = await api.get('/keys', admin);
      assert.equal(keys.status, 200, keys.text);
      assert.ok(apiProc.running, 'brine api is still running');

      master = await cluster.startMaster(masterConfig);
      await connected(['m1', 'm2', 'm3']);
      const res = await api.post('/', admin, [{ client: 'local', tgt: 'm1', fun: 'test.ping' }]);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.return[0], { m1: true });
      // the event stream opened before the restart reconnects by itself, with backoff: the minions
      // may be back before it is, so a job is published again until its return shows on the stream
      await waitUntil(
        async () => {
          const pub = await api.post('/', admin, [{ client: 'local_async', tgt: 'm2', fun: 'test.ping' }]);
          const jid = pub.json.return[0].jid as string;
          return waitUntil(() => stream.events.some((e) => e.tag === `salt/job/${jid}/ret/m2`), 2_000, `the return of ${jid} on the stream`).catch(() => undefined);
        },
        30_000,
        'a return event on the stream opened before the restart',
      );
      assert.ok(apiProc.running);
    } finally {
      stream.close();
    }
  });

  it('brine api refuses a config without api: (API_NOT_CONFIGURED) or without standalone (CONFIG_VALUE)', async () => {
    const dir = path.join(cluster.root, 'other');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'master'), `root_dir: ${JSON.stringify(path.join(cluster.root, 'other-root'))}\n`);
    const none = await runCli(['api', '-c', dir]);
    assert.equal(none.code, 78, none.stderr);
    assert.match(none.stderr, /API_NOT_CONFIGURED/);
    assert.match(none.stderr, /standalone: true/);
    fs.writeFileSync(path.join(dir, 'master'), `root_dir: ${JSON.stringify(path.join(cluster.root, 'other-root'))}\napi: {port: ${port}}\n`);
    const inMaster = await runCli(['api', '-c', dir]);
    assert.equal(inMaster.code, 78, inMaster.stderr);
    assert.match(inMaster.stderr, /CONFIG_VALUE/);
    assert.match(inMaster.stderr, /standalone is not true, so the master serves the API itself/);
    assert.equal(fs.existsSync(path.join(cluster.root, 'other-root')), false, 'nothing was created');
  });
});
