// The REST API (issue 11, points 1-2) against a real master and real minions over HTTPS on
// loopback, with a real htpasswd eauth file: login, lowstate clients, jobs, keys, events, and
// every bad input the issue lists that applies to the API. The master and minions must be
// unaffected afterwards.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import YAML from 'yaml';
import { ApiClient, expectError } from '../helpers/api-client.js';
import { Cluster, freePort, waitUntil, type Proc } from '../helpers/cluster.js';

// libxcrypt / openssl vectors: every password is s3cret
const HTPASSWD = [
  'admin:$2y$04$abcdefghijklmnopqrstuuLZYjhNQAOdpbzt4WxWlUHjv1wsyH5DG',
  'limited:$apr1$QWERTYui$X9loan3DaNUX6PQ5FlFRC0',
  'jobsonly:{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=',
  'victim:{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=',
  '',
].join('\n');

const ACL = {
  admin: ['.*', '@runner', '@wheel'],
  limited: [{ m1: ['test.*'] }],
  jobsonly: ['@jobs'],
  victim: ['test.ping'],
};

describe('REST API with a real master and minions', () => {
  let cluster: Cluster;
  let api: ApiClient;
  let master: Proc;
  let admin: string;
  const minions: Proc[] = [];
  let masterConfig: Record<string, unknown>;

  before(async () => {
    cluster = await Cluster.create();
    const htpasswd = path.join(cluster.root, 'htpasswd');
    fs.writeFileSync(htpasswd, HTPASSWD, { mode: 0o600 });
    const port = await freePort();
    masterConfig = {
      api: { port, header_timeout: 2, body_timeout: 3, max_body: 65536, webhook_url: '/hook' },
      external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', ...ACL } },
      api_login_failures: 3,
      log_level: 'debug',
    };
    master = await cluster.startMaster(masterConfig);
    await master.waitForOutput(/serving the REST API on https:\/\/127\.0\.0\.1:\d+/);
    const ca = fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8');
    api = new ApiClient(port, ca);
    for (const id of ['m1', 'm2']) minions.push(cluster.startMinion(id));
    await cluster.waitForPending(['m1', 'm2']);
    admin = await api.login('admin', 's3cret');
  });
  after(() => cluster.cleanup());

  it('GET / needs no token and names the clients', async () => {
    const res = await api.get('/');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { return: 'Welcome', clients: ['local', 'local_async', 'local_batch', 'runner', 'runner_async', 'wheel'] });
  });

  it('POST /login gives the token in the body, X-Auth-Token and an HttpOnly SameSite=Strict Secure cookie; a form works too', async () => {
    const res = await api.request('/login', { method: 'POST', body: { username: 'admin', password: 's3cret', eauth: 'file' } });
    assert.equal(res.status, 200);
    const r = res.json.return[0];
    assert.deepEqual(Object.keys(r).sort(), ['eauth', 'expire', 'perms', 'start', 'token', 'user']);
    assert.equal(r.user, 'admin');
    assert.deepEqual(r.perms, ACL.admin);
    assert.equal(Math.round(r.expire - r.start), 43200, "Salt's token_expire default");
    assert.equal(res.headers['x-auth-token'], r.token);
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, new RegExp(`session_id=${r.token}`));
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Secure/);
    const form = await api.request('/login', { method: 'POST', body: 'username=limited&password=s3cret&eauth=file', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(form.status, 200, form.text);
    assert.deepEqual(form.json.return[0].perms, ACL.limited);
  });

  it('a wrong password is 401 LOGIN_FAILED; repeated failures are 429 LOGIN_THROTTLED per user and per address', async () => {
    expectError(await api.request('/login', { method: 'POST', body: { username: 'admin', password: 'nope', eauth: 'file' }, localAddress: '127.0.0.2' }), 401, 'LOGIN_FAILED');
    expectError(await api.request('/login', { method: 'POST', body: { username: 'admin', password: 's3cret', eauth: 'ldap' }, localAddress: '127.0.0.2' }), 401, 'EAUTH_UNAVAILABLE');
    for (let i = 0; i < 3; i++)
      expectError(await api.request('/login', { method: 'POST', body: { username: 'victim', password: 'guess', eauth: 'file' }, localAddress: '127.0.0.3' }), 401, 'LOGIN_FAILED');
    // the right password no longer gets checked for this user, from anywhere
    const throttled = await api.request('/login', { method: 'POST', body: { username: 'victim', password: 's3cret', eauth: 'file' }, localAddress: '127.0.0.4' });
    expectError(throttled, 429, 'LOGIN_THROTTLED');
    assert.ok(Number(throttled.headers['retry-after']) > 0);
    // and 127.0.0.3 is used up for every user
    expectError(await api.request('/login', { method: 'POST', body: { username: 'limited', password: 's3cret', eauth: 'file' }, localAddress: '127.0.0.3' }), 429, 'LOGIN_THROTTLED');
    // the secrets never reach the log
    assert.doesNotMatch(master.output, /s3cret|guess"|"nope/);
    assert.match(master.output, /login refused for victim.*127\.0\.0\.3/);
  });

  it('every registered route rejects an anonymous call (one auth hook, threats.md #3)', async () => {
    const line = master.output.match(/REST API routes: (.*?) routes=/);
    assert.ok(line, 'the master logs its routes at debug');
    const routes = line[1]!.split(', ').map((r) => r.split(' ') as [string, string]);
    assert.ok(routes.length >= 16, `routes: ${line[1]}`);
    const PUBLIC = new Set(['GET /', 'POST /login', 'GET /login', 'GET /ui', 'GET /ui/*']);
    for (const [method, url] of routes) {
      const concrete = url.replace(':id', 'm1').replace(':jid', '20240101000000000000').replace('*', 'x');
      const res = await api.request(concrete, { method, ...(method === 'POST' ? { body: [{ client: 'local', tgt: '*', fun: 'test.ping' }] } : {}) });
      if (PUBLIC.has(`${method} ${url}`)) continue;
      expectError(res, 401, 'TOKEN_MISSING');
    }
    // an unknown path is also refused before anything else
    expectError(await api.get('/nosuch'), 401, 'TOKEN_MISSING');
  });

  it('empty, null, forged and wrong-type tokens are 401 TOKEN_INVALID, each separately', async () => {
    for (const token of ['', 'null', 'a'.repeat(64), `${admin.slice(0, 63)}0`.replace(admin, 'f'.repeat(64)), 'x'.repeat(10_000), '{"token":1}']) {
      if (token === admin) continue;
      expectError(await api.get('/minions', undefined, { 'x-auth-token': token }), 401, 'TOKEN_INVALID');
    }
    expectError(await api.get('/events?token='), 401, 'TOKEN_INVALID');
    expectError(await api.get('/minions', undefined, { cookie: 'session_id=%E0%A4%A' }), 401, 'TOKEN_INVALID');
    expectError(await api.get('/minions', undefined, { cookie: 'session_id=' }), 401, 'TOKEN_INVALID');
  });

  it('a flood of bad tokens from one address is logged in summary: 20 full lines, then counts', async () => {
    for (let i = 0; i < 45; i++) {
      const r = await api.request('/minions', { headers: { 'x-auth-token': `forged-${i}` }, localAddress: '127.0.0.9' });
      assert.equal(r.status, 401);
    }
    const full = await waitUntil(
      () => {
        const lines = master.output.split('\n').filter((l) => l.includes('API token refused') && l.includes('127.0.0.9'));
        return master.output.includes('more connection attempts from 127.0.0.9') ? lines : undefined;
      },
      10_000,
      'the summary line for 127.0.0.9',
    );
    assert.equal(full.length, 20, 'full lines are capped per address');
    assert.match(master.output, /refused \d+ more connection attempts from 127\.0\.0\.9 .*api:TOKEN_INVALID/);
  });

  it('wheel key.accept accepts the pending minions through the key store, and they connect', async () => {
    const list = await api.post('/', admin, [{ client: 'wheel', fun: 'key.list_all' }]);
    assert.equal(list.status, 200, list.text);
    const data = list.json.return[0].data;
    assert.match(list.json.return[0].tag, /^salt\/wheel\/\d{20}$/);
    assert.equal(data.success, true);
    assert.equal(data.user, 'admin');
    assert.deepEqual(data.return.minions_pre, ['m1', 'm2']);
    assert.deepEqual(data.return.minions, []);
    // a fingerprint that matches neither key moves nothing
    const wrong = await api.post('/', admin, [{ client: 'wheel', fun: 'key.accept', match: 'm1', finger: 'ab'.repeat(32) }]);
    assert.deepEqual(wrong.json.return[0].data.return, { minions: [] });
    const finger = await api.post('/', admin, [{ client: 'wheel', fun: 'key.finger', match: 'm1' }]);
    const fp = finger.json.return[0].data.return.minions_pre.m1;
    assert.match(fp, /^[0-9a-f:]{95}$/);
    const acc1 = await api.post('/', admin, [{ client: 'wheel', fun: 'key.accept', match: 'm1', finger: fp }]);
    assert.deepEqual(acc1.json.return[0].data.return, { minions: ['m1'] });
    const acc2 = await api.post('/', admin, [{ client: 'wheel', fun: 'key.accept', match: ['m2'] }]);
    assert.deepEqual(acc2.json.return[0].data.return, { minions: ['m2'] });
    // the CLI sees the same key store
    const keys = await cluster.brine(['key', '-L']);
    assert.match(keys.stdout, /Accepted Keys:\nm1\nm2\n/);
    for (const m of minions) await m.waitForOutput(/ready to receive requests/, 30_000);
    const up = await waitUntil(
      async () => {
        const r = await api.post('/', admin, [{ client: 'runner', fun: 'manage.status' }]);
        return r.json.return[0].up.length === 2 ? r.json.return[0] : undefined;
      },
      20_000,
      'both minions up',
    );
    assert.deepEqual(up, { up: ['m1', 'm2'], down: [] });
  });

  it('POST / local runs test.ping and returns {minion: true}; YAML is returned for Accept: application/x-yaml', async () => {
    const res = await api.post('/', admin, [{ client: 'local', tgt: '*', fun: 'test.ping' }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { return: [{ m1: true, m2: true }] });
    const y = await api.post('/', admin, [{ client: 'local', tgt: 'm1', fun: 'test.echo', arg: ['hi there'] }], { accept: 'application/x-yaml' });
    assert.match(String(y.headers['content-type']), /application\/x-yaml/);
    assert.deepEqual(YAML.parse(y.text), { return: [{ m1: 'hi there' }] });
    // a YAML request body, and a form body (arg repeated)
    const yb = await api.request('/', {
      method: 'POST',
      body: '- client: local\n  tgt: m2\n  fun: test.echo\n  arg: [yaml]\n',
      headers: { 'x-auth-token': admin, 'content-type': 'application/x-yaml' },
    });
    assert.deepEqual(yb.json, { return: [{ m2: 'yaml' }] });
    const fb = await api.request('/', {
      method: 'POST',
      body: 'client=local&tgt=m1&fun=test.arg&arg=a&arg=b',
      headers: { 'x-auth-token': admin, 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.deepEqual(fb.json.return[0].m1.args, ['a', 'b']);
    // a target that matches nothing returns {} (Salt), nothing published
    assert.deepEqual((await api.post('/', admin, [{ client: 'local', tgt: 'nosuch*', fun: 'test.ping' }])).json, { return: [{}] });
  });

  it('local_async returns the jid; GET /jobs/{jid} shows the returns and the API user as the job user; GET /jobs lists it', async () => {
    const res = await api.post('/', admin, [{ client: 'local_async', tgt: ['m1', 'm2'], tgt_type: 'list', fun: 'test.echo', arg: ['async'] }]);
    assert.equal(res.status, 200, res.text);
    const { jid, minions: expected } = res.json.return[0];
    assert.match(jid, /^\d{20}$/);
    assert.deepEqual(expected.sort(), ['m1', 'm2']);
    const job = await waitUntil(
      async () => {
        const r = await api.get(`/jobs/${jid}`, admin);
        return Object.keys(r.json?.return?.[0] ?? {}).length === 2 ? r.json : undefined;
      },
      20_000,
      'both returns in /jobs/{jid}',
    );
    assert.deepEqual(job.return, [{ m1: 'async', m2: 'async' }]);
    assert.equal(job.info[0].User, 'admin');
    assert.equal(job.info[0].Function, 'test.echo');
    assert.deepEqual(job.info[0].Result.m1, { return: 'async' });
    const list = await api.get('/jobs', admin);
    assert.equal(list.json.return[0][jid].User, 'admin');
    assert.match(list.json.return[0][jid].StartTime, /^\d{4}, [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
    // the CLI's job listing sees the same job cache
    const cli = await cluster.brine(['jobs', 'list']);
    assert.match(cli.stdout, new RegExp(jid), cli.stderr);
    // POST /minions is local_async with a _links entry
    const pm = await api.post('/minions', admin, [{ tgt: 'm1', fun: 'test.ping' }]);
    assert.equal(pm.status, 200, pm.text);
    assert.equal(pm.json._links.jobs[0].href, `/jobs/${pm.json.return[0].jid}`);
    expectError(await api.get('/jobs/../../etc', admin), 404, 'API_NOT_FOUND');
    expectError(await api.get('/jobs/123', admin), 400, 'INVALID_JID');
    expectError(await api.get('/jobs/20200101000000000000', admin), 404, 'API_NOT_FOUND');
  });

  it('runner calls: jobs.list_jobs, jobs.lookup_jid, manage.presence, manage.match; local_batch; /run with inline credentials', async () => {
    const r = await api.post('/', admin, [
      { client: 'runner', fun: 'jobs.list_jobs' },
      { client: 'runner', fun: 'manage.presence' },
      { client: 'runner', fun: 'manage.match', tgt: 'm*' },
      { client: 'local_batch', tgt: '*', fun: 'test.ping', batch: '1' },
    ]);
    assert.equal(r.status, 200, r.text);
    const [jobs, presence, match, batch] = r.json.return;
    const jid = Object.keys(jobs)[0]!;
    const lookup = await api.post('/', admin, [{ client: 'runner', fun: 'jobs.lookup_jid', jid }]);
    assert.ok(Object.keys(lookup.json.return[0]).length > 0);
    assert.deepEqual(
      presence.map((s: { id: string; state: string }) => [s.id, s.state]),
      [
        ['m1', 'connected'],
        ['m2', 'connected'],
      ],
    );
    assert.deepEqual(match, { minions: ['m1', 'm2'], not_connected: [], missing: [] });
    assert.deepEqual(
      batch.sort((a: object, b: object) => Object.keys(a)[0]!.localeCompare(Object.keys(b)[0]!)),
      [{ m1: true }, { m2: true }],
    );
    const run = await api.request('/run', { method: 'POST', body: [{ client: 'local', tgt: 'm1', fun: 'test.ping', username: 'limited', password: 's3cret', eauth: 'file' }] });
    assert.deepEqual(run.json, { return: [{ m1: true }] });
    expectError(await api.request('/run', { method: 'POST', body: [{ client: 'local', tgt: 'm1', fun: 'test.ping', username: 'limited', password: 'bad', eauth: 'file' }] }), 401, 'LOGIN_FAILED');
  });

  it('GET /minions, /minions/{id}, /keys, /keys/{id}, /stats and /metrics', async () => {
    const all = await api.get('/minions', admin);
    assert.deepEqual(Object.keys(all.json.return[0]).sort(), ['m1', 'm2']);
    const one = await api.get('/minions/m1', admin);
    assert.equal(one.json.return[0].m1.id, 'm1');
    expectError(await api.get('/minions/nosuch', admin), 404, 'API_NOT_FOUND');
    expectError(await api.get('/minions/..%2f..%2fetc', admin), 400, 'INVALID_ID');
    const keys = await api.get('/keys', admin);
    assert.deepEqual(keys.json.return, { minions: ['m1', 'm2'], minions_pre: [], minions_rejected: [], minions_denied: [] });
    const key = await api.get('/keys/m2', admin);
    assert.match(key.json.return.minions.m2, /^[0-9a-f:]{95}$/);
    const stats = await api.get('/stats', admin);
    assert.equal(stats.json.return.minions_connected, 2);
    const metrics = await api.get('/metrics', admin);
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /brine_api_requests_total\{status="200"\} \d+/);
    assert.match(metrics.text, /brine_api_requests_total\{status="401"\} \d+/);
    // Prometheus 2 can send only Authorization: Bearer (no custom headers)
    const bearer = await api.request('/metrics', { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(bearer.status, 200, bearer.text);
    assert.match(bearer.text, /brine_api_requests_total/);
    expectError(await api.request('/metrics', { headers: { authorization: 'Bearer forged' } }), 401, 'TOKEN_INVALID');
    expectError(await api.request('/metrics', { headers: { authorization: `Basic ${Buffer.from(`admin:${admin}`).toString('base64')}` } }), 401, 'TOKEN_MISSING');
  });

  it('GET /events streams events as salt-api does (tag: and data: lines), token by header or ?token=', async () => {
    const stream = await api.events(`/events?token=${admin}`);
    assert.equal(stream.status, 200);
    const byHeader = await api.events('/events', { 'x-auth-token': admin });
    assert.equal(byHeader.status, 200);
    try {
      const res = await api.post('/', admin, [{ client: 'local_async', tgt: 'm2', fun: 'test.ping' }]);
      const jid = res.json.return[0].jid;
      const ret = await waitUntil(() => stream.events.find((e) => e.tag === `salt/job/${jid}/ret/m2`), 20_000, 'the return event');
      assert.equal(ret.data.tag, ret.tag);
      assert.equal(ret.data.data.id, 'm2');
      assert.equal(ret.data.data.return, true, 'the return itself, as Salt sends it');
      assert.ok(stream.events.some((e) => e.tag === `salt/job/${jid}/new`));
      await waitUntil(() => byHeader.events.find((e) => e.tag === `salt/job/${jid}/new`), 20_000, 'the event on the header stream');
      // a hook becomes an event
      const hook = await api.post('/hook/deploy/done', admin, { version: '1.2' });
      assert.equal(hook.status, 200, hook.text);
      const ev = await waitUntil(() => stream.events.find((e) => e.tag === 'salt/netapi/hook/deploy/done'), 10_000, 'the hook event');
      assert.deepEqual(ev.data.data.post, { version: '1.2' });
      assert.equal(ev.data.data.user, 'admin');
    } finally {
      stream.close();
      byHeader.close();
    }
  });

  it('GET /events streams are capped per user: the 9th is 429 API_STREAMS_LIMIT; closing one frees its slot', async () => {
    const open = [];
    try {
      for (let i = 0; i < 8; i++) {
        const s = await api.events('/events', { 'x-auth-token': admin });
        assert.equal(s.status, 200);
        open.push(s);
      }
      const refused = await api.get('/events', admin);
      expectError(refused, 429, 'API_STREAMS_LIMIT');
      open.pop()!.close();
      const again = await waitUntil(
        async () => {
          const s = await api.events('/events', { 'x-auth-token': admin });
          if (s.status === 200) return s;
          s.close();
          return undefined;
        },
        10_000,
        'a stream once one was closed',
      );
      open.push(again);
    } finally {
      for (const s of open) s.close();
    }
  });

  it('bad lowstate: not a list, unknown client, no fun, unknown runner are 400 API_BAD_REQUEST', async () => {
    expectError(await api.post('/', admin, 'just a string', { 'content-type': 'application/json' }), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, '"just a string"', { 'content-type': 'application/json' }), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, '42', { 'content-type': 'application/json' }), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, [], {}), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, ['test.ping']), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, [{ client: 'wheel_async', fun: 'key.accept', match: '*' }]), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, [{ client: 'local', tgt: '*' }]), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, [{ client: 'runner', fun: 'cloud.list_sizes' }]), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, [{ client: 'local', tgt: 'a and (', tgt_type: 'compound', fun: 'test.ping' }]), 400, 'TARGET_INVALID');
    expectError(await api.post('/', admin, '{"__proto__": {"x": 1}}', { 'content-type': 'application/json' }), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', admin, '- !!js/function "x"', { 'content-type': 'application/x-yaml' }), 400, 'API_BAD_REQUEST');
  });

  it('outside the ACL: a function, a target, a target matching nothing, a runner, a wheel function are 403 ACL_DENIED and logged', async () => {
    const limited = await api.login('limited', 's3cret');
    expectError(await api.post('/', limited, [{ client: 'local', tgt: 'm1', fun: 'cmd.run', arg: ['id'] }]), 403, 'ACL_DENIED');
    expectError(await api.post('/', limited, [{ client: 'local', tgt: '*', fun: 'test.ping' }]), 403, 'ACL_DENIED');
    expectError(await api.post('/', limited, [{ client: 'local', tgt: 'm1 or m2', tgt_type: 'compound', fun: 'test.ping' }]), 403, 'ACL_DENIED');
    expectError(await api.post('/', limited, [{ client: 'local', tgt: 'nosuch', fun: 'test.ping' }]), 403, 'ACL_DENIED');
    expectError(await api.post('/', limited, [{ client: 'runner', fun: 'jobs.list_jobs' }]), 403, 'ACL_DENIED');
    expectError(await api.post('/', limited, [{ client: 'wheel', fun: 'key.delete', match: '*' }]), 403, 'ACL_DENIED');
    expectError(await api.get('/keys', limited), 403, 'ACL_DENIED');
    expectError(await api.get('/jobs', limited), 403, 'ACL_DENIED');
    expectError(await api.get('/minions', limited), 403, 'ACL_DENIED');
    // GET /minions/{id} is grains.items on that minion: outside test.*
    expectError(await api.get('/minions/m1', limited), 403, 'ACL_DENIED');
    // every chunk is checked before the first runs: an allowed chunk next to a refused one runs nothing
    const before = Object.keys((await api.get('/jobs', admin)).json.return[0]).length;
    expectError(
      await api.post('/', limited, [
        { client: 'local_async', tgt: 'm1', fun: 'test.ping' },
        { client: 'local', tgt: 'm2', fun: 'test.ping' },
      ]),
      403,
      'ACL_DENIED',
    );
    assert.equal(Object.keys((await api.get('/jobs', admin)).json.return[0]).length, before, 'no job was published');
    assert.deepEqual((await api.post('/', limited, [{ client: 'local', tgt: 'm1', fun: 'test.ping' }])).json, { return: [{ m1: true }] });
    const jobsonly = await api.login('jobsonly', 's3cret');
    assert.equal((await api.post('/', jobsonly, [{ client: 'runner', fun: 'jobs.list_jobs' }])).status, 200);
    expectError(await api.post('/', jobsonly, [{ client: 'runner', fun: 'manage.status' }]), 403, 'ACL_DENIED');
    // every denial is logged with user, source, target and function
    await master.waitForOutput(/API request denied for limited \(cmd\.run\) from 127\.0\.0\.1.*tgt=m1/);
    await master.waitForOutput(/API request denied for limited \(test\.ping\) from 127\.0\.0\.1: the target matches none of the minions you may run test\.ping on/);
    // the keys are untouched
    assert.match((await cluster.brine(['key', '-L'])).stdout, /Accepted Keys:\nm1\nm2\n/);
  });

  it('a CSRF attempt with the session cookie only is 403 CSRF_REFUSED; with X-Requested-With it runs', async () => {
    const cookie = { cookie: `session_id=${admin}` };
    expectError(await api.request('/', { method: 'POST', body: [{ client: 'wheel', fun: 'key.delete', match: '*' }], headers: cookie }), 403, 'CSRF_REFUSED');
    expectError(
      await api.request('/', {
        method: 'POST',
        body: 'client=wheel&fun=key.delete&match=*',
        headers: { ...cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      }),
      403,
      'CSRF_REFUSED',
    );
    expectError(await api.request('/logout', { method: 'POST', headers: cookie }), 403, 'CSRF_REFUSED');
    assert.match((await cluster.brine(['key', '-L'])).stdout, /Accepted Keys:\nm1\nm2\n/, 'nothing was deleted');
    // GET with the cookie is fine, and so is a POST the web view sends
    assert.equal((await api.request('/minions', { headers: cookie })).status, 200);
    const ok = await api.request('/', { method: 'POST', body: [{ client: 'local', tgt: 'm1', fun: 'test.ping' }], headers: { ...cookie, 'x-requested-with': 'XMLHttpRequest' } });
    assert.deepEqual(ok.json, { return: [{ m1: true }] });
  });

  it('an oversized body is 413 API_BODY_TOO_LARGE', async () => {
    const big = [{ client: 'local', tgt: 'm1', fun: 'test.echo', arg: ['x'.repeat(70_000)] }];
    expectError(await api.post('/', admin, big), 413, 'API_BODY_TOO_LARGE');
  });

  it('slow clients: headers not finished within header_timeout, or a body not finished within body_timeout, are cut off', async () => {
    const started = Date.now();
    const slowHeaders = await api.connect();
    slowHeaders.write('POST / HTTP/1.1\r\nHost: x\r\n');
    const headerReply = await new Promise<string>((resolve) => {
      let got = '';
      slowHeaders.on('data', (d) => (got += d.toString()));
      slowHeaders.on('close', () => resolve(got));
    });
    assert.ok(Date.now() - started < 10_000, 'cut off within the deadline');
    assert.ok(headerReply === '' || /^HTTP\/1\.1 408/.test(headerReply), headerReply);
    const slowBody = await api.connect();
    const t0 = Date.now();
    slowBody.write(`POST / HTTP/1.1\r\nHost: x\r\nX-Auth-Token: ${admin}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[{"client":`);
    const bodyReply = await new Promise<string>((resolve) => {
      let got = '';
      slowBody.on('data', (d) => (got += d.toString()));
      slowBody.on('close', () => resolve(got));
    });
    assert.ok(Date.now() - t0 < 12_000, 'cut off within the body deadline');
    assert.ok(bodyReply === '' || /^HTTP\/1\.1 408/.test(bodyReply), bodyReply);
    // the API still answers
    assert.equal((await api.get('/', undefined)).status, 200);
  });

  it('POST /logout revokes the token', async () => {
    const t = await api.login('admin', 's3cret');
    const out = await api.post('/logout', t, {});
    assert.equal(out.status, 200, out.text);
    assert.deepEqual(out.json, { return: 'Your token has been cleared' });
    expectError(await api.get('/minions', t), 401, 'TOKEN_INVALID');
  });

  it('afterwards the master and minions are unaffected', async () => {
    assert.ok(master.running, 'the master still runs');
    for (const m of minions) assert.ok(m.running);
    const r = await cluster.brine(['run', '*', 'test.ping', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const objs = r.stdout
      .trim()
      .split(/\n(?=\{)/)
      .map((x) => JSON.parse(x) as Record<string, unknown>);
    assert.deepEqual(Object.assign({}, ...objs), { m1: true, m2: true });
    assert.deepEqual((await api.post('/', admin, [{ client: 'local', tgt: '*', fun: 'test.ping' }])).json, { return: [{ m1: true, m2: true }] });
  });
});
