// Issue 21 (second outside review), points 7, 9 and 10, against a real master, real minions and
// the REST API over HTTPS on loopback, with a real htpasswd eauth file: parallel logins racing the
// failed-login limit (threats.md #46); what a user limited to some minions sees on /events,
// /stats and /metrics (#48); the token of a user removed from the eauth file, and revoking tokens
// with `brine api tokens revoke` and wheel token.revoke (#49).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bcryptHash } from '../../src/auth/index.js';
import { ApiClient, expectError } from '../helpers/api-client.js';
import { Cluster, freePort, waitUntil, type Proc } from '../helpers/cluster.js';

const SHA1_S3CRET = '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg='; // every password is s3cret
// a real bcrypt cost, so each password check takes long enough for the logins to overlap
const BCRYPT_S3CRET = bcryptHash('s3cret', '2y', 10, 'abcdefghijklmnopqrstuu');

const USERS: Record<string, string> = {
  admin: SHA1_S3CRET,
  web: SHA1_S3CRET,
  watcher: SHA1_S3CRET,
  counter: SHA1_S3CRET,
  racer: BCRYPT_S3CRET,
  leaver: SHA1_S3CRET,
  revoked: SHA1_S3CRET,
};

const ACL = {
  admin: ['.*', '@runner', '@wheel'],
  web: [{ 'web*': ['test.*'] }, '@jobs'],
  watcher: [{ 'web*': ['test.*'] }, '@events'],
  counter: [{ 'web*': ['test.*'] }, '@stats', '@metrics'],
  racer: ['test.ping'],
  leaver: ['@jobs'],
  revoked: ['@jobs'],
};

function writeUsers(file: string, users: Record<string, string>): void {
  // written to a new file and renamed, as an editor or htpasswd does
  fs.writeFileSync(
    `${file}.new`,
    `${Object.entries(users)
      .map(([u, h]) => `${u}:${h}`)
      .join('\n')}\n`,
  );
  fs.renameSync(`${file}.new`, file);
}

describe('API visibility and token lifetime (issue 21, points 7, 9, 10)', () => {
  let cluster: Cluster;
  let api: ApiClient;
  let master: Proc;
  let admin: string;
  let htpasswd: string;
  const streams: Array<{ close: () => void }> = [];

  before(async () => {
    cluster = await Cluster.create();
    htpasswd = path.join(cluster.root, 'htpasswd');
    writeUsers(htpasswd, USERS);
    const port = await freePort();
    master = await cluster.startMaster({
      api: { port, webhook_url: '/hook' },
      external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', ...ACL } },
      api_login_failures: 5,
    });
    await master.waitForOutput(/serving the REST API on https:\/\/127\.0\.0\.1:\d+/);
    api = new ApiClient(port, fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8'));
    admin = await api.login('admin', 's3cret');
  });
  after(async () => {
    for (const s of streams) s.close();
    await cluster.cleanup();
  });

  it('100 parallel wrong logins and then the right one race a limit of 5: at most 5 passwords are checked and the right one is 429 LOGIN_THROTTLED', async () => {
    const login = (password: string) => api.request('/login', { method: 'POST', body: { username: 'racer', password, eauth: 'file' }, localAddress: '127.0.0.21' });
    const wrong = Array.from({ length: 100 }, (_, i) => login(`wrong-${i}`));
    // the right password arrives while the wrong ones are still being checked (the review's race)
    await Promise.race(wrong);
    const right = await login('s3cret');
    const answers = await Promise.all(wrong);
    expectError(right, 429, 'LOGIN_THROTTLED');
    const failed = answers.filter((r) => r.status === 401);
    const throttled = answers.filter((r) => r.status === 429);
    for (const r of failed) expectError(r, 401, 'LOGIN_FAILED');
    for (const r of throttled) expectError(r, 429, 'LOGIN_THROTTLED');
    assert.equal(failed.length + throttled.length, 100, 'every wrong login is refused');
    assert.ok(failed.length <= 5, `the password was checked ${failed.length} times (at most 5)`);
    // each password check that failed is logged; throttled attempts never reach the check
    const checked = master.output.split('\n').filter((l) => l.includes('login refused for racer') && l.includes('LOGIN_FAILED'));
    assert.ok(checked.length <= 5, `${checked.length} password checks logged`);
    // from another address the user is still throttled
    expectError(await api.request('/login', { method: 'POST', body: { username: 'racer', password: 's3cret', eauth: 'file' }, localAddress: '127.0.0.22' }), 429, 'LOGIN_THROTTLED');
  });

  it('a web*-restricted user sees on /events only its minions and the jobs it could run; no keys, other minions or hook bodies', async () => {
    const web = await api.login('web', 's3cret');
    const watcher = await api.login('watcher', 's3cret');
    const webStream = await api.events('/events', { 'x-auth-token': web });
    const watchStream = await api.events('/events', { 'x-auth-token': watcher });
    const adminStream = await api.events('/events', { 'x-auth-token': admin });
    streams.push(webStream, watchStream, adminStream);
    for (const s of [webStream, watchStream, adminStream]) assert.equal(s.status, 200);

    const minions = ['web1', 'db1'].map((id) => cluster.startMinion(id));
    await cluster.waitForPending(['web1', 'db1']);
    const acc = await api.post('/', admin, [{ client: 'wheel', fun: 'key.accept', match: ['web1', 'db1'] }]);
    assert.deepEqual(acc.json.return[0].data.return, { minions: ['db1', 'web1'] });
    for (const m of minions) await m.waitForOutput(/ready to receive requests/, 30_000);

    const run = async (tgt: string, fun = 'test.ping') => {
      const r = await api.post('/', admin, [{ client: 'local', tgt, fun }]);
      assert.equal(r.status, 200, r.text);
      return r;
    };
    await run('db1');
    await run('*');
    assert.equal((await api.post('/hook/deploy/secret', admin, { password: 'hunter2' })).status, 200);
    const last = await api.post('/', admin, [{ client: 'local_async', tgt: 'web1', fun: 'test.echo', arg: ['last'] }]);
    const jid = last.json.return[0].jid as string;
    // events reach each stream in order: once the last job's return is there, all the earlier ones are
    for (const s of [webStream, watchStream, adminStream]) await waitUntil(() => s.events.some((e) => e.tag === `salt/job/${jid}/ret/web1`), 20_000, 'the last return');

    const tags = webStream.events.map((e) => e.tag);
    assert.ok(tags.includes('brine/minion/web1/connected'), tags.join('\n'));
    assert.ok(tags.includes(`salt/job/${jid}/new`), 'a job the user could run is shown');
    assert.equal(webStream.events.find((e) => e.tag === 'brine/minion/web1/connected')?.data.data.remote.startsWith('127.0.0.1'), true, "the user's own minion keeps its address");
    const leaks = webStream.events.filter(
      (e) => JSON.stringify(e).includes('db1') || e.tag.startsWith('brine/auth/') || e.tag === 'salt/auth' || e.tag.startsWith('salt/netapi/') || JSON.stringify(e).includes('hunter2'),
    );
    assert.deepEqual(leaks, [], 'nothing about db1, keys or hooks');
    // the job on '*' targeted db1 too: its publish is hidden, web1's return of test.ping is the user's business
    const star = adminStream.events.find((e) => /^salt\/job\/\d+\/new$/.test(e.tag) && e.data.data.tgt === '*');
    assert.ok(star, 'the admin sees the job on *');
    assert.ok(!tags.includes(star.tag), 'the publish of a job on * is hidden');
    assert.ok(tags.includes(`salt/job/${star.data.data.jid}/ret/web1`), "web1's return of test.ping is shown");

    // @events and an admin (@runner) see everything, the hook body included
    for (const s of [watchStream, adminStream]) {
      const all = s.events.map((e) => e.tag);
      for (const t of ['brine/minion/db1/connected', 'salt/netapi/hook/deploy/secret', star.tag]) assert.ok(all.includes(t), `${t} in ${all.join(', ')}`);
      assert.ok(
        s.events.some((e) => e.tag === 'salt/auth' && e.data.data.id === 'db1' && e.data.data.act === 'pend'),
        'the pending key of db1 (salt/auth, act pend)',
      );
    }
  });

  it('/stats and /metrics are 403 ACL_DENIED without @stats / @metrics (logged); with them, and for an admin, they work', async () => {
    const web = await api.login('web', 's3cret');
    const counter = await api.login('counter', 's3cret');
    const stats = await api.get('/stats', web);
    expectError(stats, 403, 'ACL_DENIED');
    assert.match(stats.json.error.message, /@stats/);
    const metrics = await api.request('/metrics', { headers: { authorization: `Bearer ${web}` } });
    expectError(metrics, 403, 'ACL_DENIED');
    assert.match(metrics.json.error.message, /@metrics/);
    assert.doesNotMatch(metrics.text, /brine_/);
    await master.waitForOutput(/API request denied for web \(metrics\.read\)/);
    assert.equal((await api.get('/stats', counter)).json.return.minions_connected, 2);
    const scraped = await api.request('/metrics', { headers: { authorization: `Bearer ${counter}` } });
    assert.equal(scraped.status, 200, scraped.text);
    assert.match(scraped.text, /brine_api_requests_total\{status="403"\} \d+/);
    assert.equal((await api.get('/stats', admin)).status, 200);
    assert.equal((await api.get('/metrics', admin)).status, 200);
  });

  it("GET /reactions (the reactor's recent reactions) needs '@events' or '@runner' as the whole-fleet /events does; an empty list without reactor:", async () => {
    const web = await api.login('web', 's3cret');
    const watcher = await api.login('watcher', 's3cret');
    const denied = await api.get('/reactions', web);
    expectError(denied, 403, 'ACL_DENIED');
    assert.match(denied.json.error.message, /@events/);
    for (const token of [watcher, admin]) {
      const r = await api.get('/reactions', token);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.return, [[]]);
    }
  });

  it('a user removed from the eauth file: its token is 401 TOKEN_USER_REMOVED at the next request, its /events stream ends, and its tokens stay revoked if the user comes back', async () => {
    const token = await api.login('leaver', 's3cret');
    assert.equal((await api.get('/jobs', token)).status, 200);
    const stream = await api.events('/events', { 'x-auth-token': token });
    streams.push(stream);
    assert.equal(stream.status, 200);
    const { leaver: _gone, ...rest } = USERS;
    writeUsers(htpasswd, rest);
    const refused = await api.get('/jobs', token);
    expectError(refused, 401, 'TOKEN_USER_REMOVED');
    assert.match(refused.json.error.message, /leaver is no longer in the file eauth's users/);
    await master.waitForOutput(/API token refused.*TOKEN_USER_REMOVED|TOKEN_USER_REMOVED.*API token refused/);
    // the open stream ends at its first event once its token is checked again (every 5 s): a job
    // every half second brings events until then
    await waitUntil(
      async () => {
        if (stream.ended()) return true;
        await api.post('/', admin, [{ client: 'local_async', tgt: 'web1', fun: 'test.ping' }]);
        return stream.ended();
      },
      20_000,
      "the removed user's /events stream to end",
      500,
    );
    await master.waitForOutput(/dropping the \/events stream of leaver .*its token is no longer valid/);
    writeUsers(htpasswd, USERS);
    expectError(await api.get('/jobs', token), 401, 'TOKEN_INVALID');
    // a new login works again
    assert.equal((await api.get('/jobs', await api.login('leaver', 's3cret'))).status, 200);
  });

  it('brine api tokens revoke --user U and TOKEN revoke tokens at once; wheel token.revoke does for an admin', async () => {
    const a = await api.login('revoked', 's3cret');
    const b = await api.login('revoked', 's3cret');
    const c = await api.login('revoked', 's3cret');
    const one = await cluster.brine(['api', 'tokens', 'revoke', a]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /revoked 1 token/);
    expectError(await api.get('/jobs', a), 401, 'TOKEN_INVALID');
    assert.equal((await api.get('/jobs', b)).status, 200);
    const all = await cluster.brine(['api', 'tokens', 'revoke', '--user', 'revoked']);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /revoked 2 tokens of revoked/);
    for (const t of [b, c]) expectError(await api.get('/jobs', t), 401, 'TOKEN_INVALID');
    const neither = await cluster.brine(['api', 'tokens', 'revoke']);
    assert.notEqual(neither.code, 0);
    assert.match(neither.stderr, /CLI_USAGE|give a token or --user/);

    const d = await api.login('revoked', 's3cret');
    const wheel = await api.post('/', admin, [{ client: 'wheel', fun: 'token.revoke', kwarg: { user: 'revoked' } }]);
    assert.equal(wheel.status, 200, wheel.text);
    assert.deepEqual(wheel.json.return[0].data.return, { revoked: 1 });
    expectError(await api.get('/jobs', d), 401, 'TOKEN_INVALID');
    // wheel token.revoke needs @wheel (or @token)
    const web = await api.login('web', 's3cret');
    expectError(await api.post('/', web, [{ client: 'wheel', fun: 'token.revoke', kwarg: { user: 'admin' } }]), 403, 'ACL_DENIED');
    assert.equal((await api.get('/stats', admin)).status, 200, 'the admin token is untouched');
  });
});
