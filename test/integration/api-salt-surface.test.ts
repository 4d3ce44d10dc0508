// issue 25 point 9 against a real master and minion over the REST API: a JSON body sent as
// text/plain (a browser's fetch with a string body) on /login, /, /run and /minions, read as JSON
// as salt-api's text_processor does, and text that is not JSON refused with a clear 400; the
// local functions front ends call, answered as Salt answers them (pillar.obfuscate, schedule.list
// return_yaml=False, test.providers, sys.doc) and the version grains beside brine's own.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, freePort, waitUntil } from '../helpers/cluster.js';

const USER = 'ops';
const PASSWORD = 'ops pass';

// biome-ignore lint/suspicious/noExplicitAny: test code reads arbitrary response shapes
type Json = any;

describe('salt-api surface: text/plain bodies and the local functions front ends call', { timeout: 120_000 }, () => {
  let cluster: Cluster;
  let port: number;
  let token: string;
  const url = (p: string) => `http://127.0.0.1:${port}${p}`;
  /** fetch with a string body: Content-Type text/plain;charset=UTF-8, as a browser sends it. */
  const postText = async (p: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Json }> => {
    const res = await fetch(url(p), { method: 'POST', body, headers: { accept: 'application/json', ...headers } });
    return { status: res.status, json: await res.json() };
  };
  const local = async (fun: string, extra: Record<string, unknown> = {}): Promise<Json> => {
    const r = await postText('/', JSON.stringify([{ client: 'local', tgt: 'm1', fun, ...extra }]), { 'x-auth-token': token });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return r.json.return[0].m1;
  };

  before(async () => {
    cluster = await Cluster.create();
    const users = path.join(cluster.root, 'eauth-users');
    fs.writeFileSync(users, `${USER}:${PASSWORD}\n`, { mode: 0o600 });
    const pillar = path.join(cluster.root, 'master', 'srv', 'pillar');
    fs.mkdirSync(pillar, { recursive: true });
    fs.writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*':\n    - db\n");
    fs.writeFileSync(path.join(pillar, 'db.sls'), 'db:\n  password: hunter2-secret\n  port: 5432\n  ratio: 0.5\n  replicas: [a, b]\n  tls: true\n  note: null\n');
    port = await freePort();
    await cluster.startMaster({
      api: { port, host: '127.0.0.1', disable_ssl: true },
      external_auth: { file: { '^filename': users, '^filetype': 'text', '^hashtype': 'plaintext', [USER]: ['.*', '@runner', '@wheel'] } },
    });
    cluster.startMinion('m1', { schedule: { hourly: { function: 'test.ping', hours: 1 }, paused: { function: 'test.ping', minutes: 5, enabled: false } } });
    await cluster.waitForPending(['m1']);
    assert.equal((await cluster.brine(['key', '-a', 'm1', '-y'])).code, 0);
    // "m1" alone would also match "Minion did not return. [Not connected]" before m1 signs in
    await waitUntil(async () => /"m1": true/.test((await cluster.brine(['run', 'm1', 'test.ping', '--out', 'json'])).stdout), 30_000, 'm1 answering');
  });
  after(() => cluster?.cleanup());

  it('POST /login takes JSON sent as text/plain; text that is not JSON is 400 API_BAD_REQUEST saying so', async () => {
    const ok = await postText('/login', JSON.stringify({ username: USER, password: PASSWORD, eauth: 'file' }));
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    token = ok.json.return[0].token;
    assert.match(token, /^[0-9a-f]{64}$/);
    const wrong = await postText('/login', JSON.stringify({ username: USER, password: 'nope', eauth: 'file' }));
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.error.code, 'LOGIN_FAILED', 'the credentials were read from the text/plain body');
    const text = await postText('/login', 'username=ops&password=x');
    assert.equal(text.status, 400);
    assert.equal(text.json.error.code, 'API_BAD_REQUEST');
    assert.match(text.json.error.message, /text\/plain body is read as JSON, and this one is not valid JSON/);
  });

  it('POST /, /run and /minions take a lowstate sent as text/plain; a text lowstate is 400 and runs nothing', async () => {
    const root = await postText('/', JSON.stringify([{ client: 'local', tgt: 'm1', fun: 'test.echo', arg: ['plain'] }]), { 'x-auth-token': token });
    assert.equal(root.status, 200, JSON.stringify(root.json));
    assert.deepEqual(root.json.return, [{ m1: 'plain' }]);
    const run = await postText('/run', JSON.stringify([{ client: 'local', tgt: 'm1', fun: 'test.ping', username: USER, password: PASSWORD, eauth: 'file' }]));
    assert.equal(run.status, 200, JSON.stringify(run.json));
    assert.deepEqual(run.json.return, [{ m1: true }]);
    const minions = await postText('/minions', JSON.stringify({ tgt: 'm1', fun: 'test.ping' }), { 'x-auth-token': token });
    assert.equal(minions.status, 200, JSON.stringify(minions.json));
    assert.match(minions.json.return[0].jid, /^\d{20}$/);
    const before = (await cluster.brine(['jobs', 'list', '--out', 'json'])).stdout;
    const bad = await postText('/', "client=local&tgt=m1&fun=cmd.run&arg='touch /tmp/x'", { 'x-auth-token': token });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, 'API_BAD_REQUEST');
    assert.match(bad.json.error.message, /lowstate must be a list of mappings, not a string \(the body is text: a text\/plain body is read as JSON/);
    assert.equal((await cluster.brine(['jobs', 'list', '--out', 'json'])).stdout, before, 'no job was published');
  });

  it("pillar.obfuscate: every pillar value as its Python type name, keys kept, no secret shown (Salt's _obfuscate_inner)", async () => {
    const ob = await local('pillar.obfuscate');
    assert.deepEqual(ob, { db: { password: '<str>', port: '<int>', ratio: '<float>', replicas: ['<str>', '<str>'], tls: '<bool>', note: '<NoneType>' } });
  });

  it('schedule.list return_yaml=False is the bare {job: fields}; show_disabled=False drops the disabled job', async () => {
    const bare = await local('schedule.list', { kwarg: { return_yaml: false } });
    assert.deepEqual(Object.keys(bare).sort(), ['hourly', 'paused']);
    assert.equal(bare.hourly.function, 'test.ping');
    assert.equal(bare.hourly.hours, 1);
    assert.equal(bare.paused.enabled, false);
    assert.equal(bare.schedule, undefined, 'no {schedule: ...} wrapper');
    assert.deepEqual(Object.keys(await local('schedule.list', { kwarg: { return_yaml: false, show_disabled: false } })), ['hourly']);
    assert.deepEqual(Object.keys((await local('schedule.list')).schedule).sort(), ['hourly', 'paused'], "brine's default mapping is unchanged");
    // the same through brine run, Salt's CLI spelling of the keyword
    const cli = await cluster.brine(['run', 'm1', 'schedule.list', 'return_yaml=False', 'show_disabled=False', '--out', 'json']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(Object.keys(JSON.parse(cli.stdout).m1), ['hourly']);
  });

  it("test.providers is keyed by the Salt module file ({provider: module}); sys.doc 'sys.' is the sys module's docstrings", async () => {
    const providers = await local('test.providers');
    assert.equal(providers.systemd_service, 'service');
    assert.equal(providers.cmdmod, 'cmd');
    assert.equal(providers.test, 'test');
    const doc = await local('sys.doc', { arg: ['sys.'] });
    assert.deepEqual(Object.keys(doc).sort(), ['sys.doc', 'sys.list_functions', 'sys.list_modules']);
    assert.match(doc['sys.doc'], /^sys\.doc\(\*args\)\n\nShow the signature and doc/);
  });

  it("the version grains: saltversion/saltversioninfo as Salt 3007.8 reports them, brine's own version beside them", async () => {
    const g = await local('grains.item', { arg: ['saltversion', 'saltversioninfo', 'brine_version'] });
    assert.deepEqual(g, { saltversion: '3007.8', saltversioninfo: [3007, 8], brine_version: '0.1.0' });
  });
});
