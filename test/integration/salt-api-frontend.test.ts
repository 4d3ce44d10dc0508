// issue 25 point 9, done-when: a third-party salt-api front end (test/fixtures/salt-api-frontend:
// plain HTML and JS that know only salt-api's calls) served by the master's API through
// rest_cherrypy's `app` and `static` options, driven in headless chromium against a real master
// and real minions. It logs in (fetch with a string body: text/plain, read as JSON as salt-api
// does), lists minions (runner manage.status), keys (wheel key.list_all), jobs (runner
// jobs.list_jobs), schedules (local schedule.list return_yaml=False), nodegroups (wheel
// config.values), beacons (local beacons.list return_yaml=False), runs a command (local_async)
// and follows its returns live on GET /events (salt/job/<jid>/ret/<id> in Salt's shape).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchBrowser, screenshot, until } from '../helpers/browser.js';
import { Cluster, freePort, waitUntil } from '../helpers/cluster.js';
import { repoRoot } from '../helpers/repo.js';

const USER = 'frontend';
const PASSWORD = 'front end pass';
const NODEGROUPS = { webs: 'L@m1,m2', first: 'm1' };

function rawGet(port: number, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

const skip = browserSkip('the salt-api front end in chromium');

describe('a salt-api front end served through rest_cherrypy app/static, in headless chromium', { skip, timeout: 180_000 }, () => {
  let cluster: Cluster;
  let port: number;
  let browser: Browser;
  let page: Page;
  const base = () => `http://127.0.0.1:${port}`;
  const items = (id: string) => page.evaluate(`[...document.querySelectorAll('#${id} li')].map((li) => li.dataset.name)`) as Promise<string[]>;

  before(async () => {
    cluster = await Cluster.create();
    // the front end lives outside the package, where an operator would put it
    const site = path.join(cluster.root, 'frontend');
    fs.cpSync(path.join(repoRoot(), 'test', 'fixtures', 'salt-api-frontend'), site, { recursive: true });
    const users = path.join(cluster.root, 'eauth-users');
    fs.writeFileSync(users, `${USER}:${PASSWORD}\n`, { mode: 0o600 });
    port = await freePort();
    await cluster.startMaster({
      rest_cherrypy: { port, host: '127.0.0.1', disable_ssl: true, app: path.join(site, 'index.html'), static: path.join(site, 'static') },
      external_auth: { file: { '^filename': users, '^filetype': 'text', '^hashtype': 'plaintext', [USER]: ['.*', '@runner', '@wheel'] } },
      nodegroups: NODEGROUPS,
    });
    cluster.startMinion('m1', { schedule: { nightly: { function: 'state.apply', hours: 24 } } });
    cluster.startMinion('m2', { beacons: { memusage: [{ percent: '99%' }, { interval: 3600 }] } });
    await cluster.waitForPending(['m1', 'm2']);
    for (const id of ['m1', 'm2']) assert.equal((await cluster.brine(['key', '-a', id, '-y'])).code, 0);
    cluster.startMinion('newcomer');
    await cluster.waitForPending(['newcomer']);
    await waitUntil(async () => /m1[\s\S]*m2|m2[\s\S]*m1/.test((await cluster.brine(['run', '*', 'test.ping', '--out', 'json'])).stdout), 30_000, 'm1 and m2 answering');
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
  });

  after(async () => {
    await browser?.close();
    await cluster?.cleanup();
  });

  it('serves the app at /app and at a deep link under it, and its script and stylesheet from /static', async () => {
    const res = await page.goto(`${base()}/app/minions/m1`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.title(), 'salt-api front end');
    const js = await fetch(`${base()}/static/frontend.js`);
    assert.equal(js.status, 200);
    assert.match(String(js.headers.get('content-type')), /^text\/javascript/);
    assert.equal(js.headers.get('x-content-type-options'), 'nosniff');
    assert.equal((await fetch(`${base()}/static/`)).status, 404, 'no directory listing');
    // node:http sends the path as written (fetch would normalise the encoded dots away)
    const out = await rawGet(port, '/static/%2e%2e/index.html');
    assert.equal(out.status, 400, 'no way out of static');
    assert.match(out.body, /API_STATIC_REFUSED/);
  });

  it('logs in with a text/plain JSON body (a wrong password is 401 LOGIN_FAILED) and lists minions, keys, jobs, schedules, beacons and nodegroups', async () => {
    await page.goto(`${base()}/app`);
    await page.fill('#user', USER);
    await page.fill('#password', 'wrong');
    await page.click('#login-submit');
    await until(page, "document.querySelector('#login-error').textContent !== ''");
    assert.equal(await page.textContent('#login-error'), '401 LOGIN_FAILED');

    await page.fill('#password', PASSWORD);
    await page.click('#login-submit');
    await until(page, "document.body.dataset.state === 'in'");
    assert.equal(await page.textContent('#who'), USER);
    for (const id of ['minions-up', 'keys-accepted', 'jobs-list', 'schedules-list', 'beacons-list']) await until(page, `document.querySelector('#${id}').dataset.loaded === 'true'`, 30_000);
    assert.deepEqual((await items('minions-up')).sort(), ['m1', 'm2']);
    assert.deepEqual(await items('minions-down'), []);
    assert.deepEqual((await items('keys-accepted')).sort(), ['m1', 'm2']);
    assert.deepEqual(await items('keys-pending'), ['newcomer']);
    assert.ok(
      (await items('jobs-list')).some((j) => /^\d{20} test\.ping$/.test(j)),
      `the CLI's test.ping is in jobs.list_jobs: ${await items('jobs-list')}`,
    );
    assert.deepEqual(await items('schedules-list'), ['m1 nightly state.apply'], 'schedule.list return_yaml=False is the bare {job: fields} per minion');
    assert.deepEqual(await items('beacons-list'), ['m2 memusage every 3600 s'], 'beacons.list return_yaml=False is the bare {beacon: [items]} per minion');

    // nodegroups from wheel config.values, as a front end reads the master's options
    await until(page, "document.querySelector('#nodegroups-list').dataset.loaded === 'true' || document.querySelector('#nodegroups-error').textContent !== ''", 15_000);
    assert.equal(await page.textContent('#nodegroups-error'), '', 'wheel config.values answers');
    assert.deepEqual((await items('nodegroups-list')).sort(), ['first m1', 'webs L@m1,m2']);
    await screenshot(page, 'salt-api-frontend-01-lists');
  });

  it("runs a command and follows its returns live from GET /events: one salt/job/<jid>/ret/<id> per minion, in Salt's shape", async () => {
    await until(page, "document.querySelector('#events-state').textContent === 'open'", 15_000);
    await page.fill('#run-tgt', '*');
    await page.fill('#run-fun', 'test.echo');
    await page.fill('#run-arg', 'hello from a salt-api front end');
    await page.click('#run-submit');
    await until(page, "/^\\d{20}$/.test(document.querySelector('#run-jid').textContent)", 15_000);
    const jid = (await page.textContent('#run-jid'))!;
    await until(page, `document.querySelectorAll('#returns tr[data-jid="${jid}"]').length === 2`, 30_000);
    const rows = (await page.evaluate(
      `[...document.querySelectorAll('#returns tr[data-jid="${jid}"]')].map((tr) => ({ id: tr.dataset.id, event: JSON.parse(tr.dataset.event), text: tr.textContent }))`,
    )) as Array<{
      id: string;
      event: Record<string, unknown>;
      text: string;
    }>;
    assert.deepEqual(rows.map((r) => r.id).sort(), ['m1', 'm2']);
    for (const { id, event, text } of rows) {
      assert.deepEqual(Object.keys(event).sort(), ['_stamp', 'cmd', 'fun', 'fun_args', 'id', 'jid', 'retcode', 'return', 'success', 'user'], `Salt's ret payload fields: ${JSON.stringify(event)}`);
      assert.equal(event.id, id);
      assert.equal(event.jid, jid);
      assert.equal(event.fun, 'test.echo');
      assert.deepEqual(event.fun_args, ['hello from a salt-api front end']);
      assert.equal(event.return, 'hello from a salt-api front end');
      assert.equal(event.retcode, 0);
      assert.equal(event.success, true);
      assert.equal(event.cmd, '_return');
      assert.match(String(event._stamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
      assert.match(text, /hello from a salt-api front end/);
    }
    await screenshot(page, 'salt-api-frontend-02-returns');
  });

  it('a browser navigating to an API path gets the app (html_override); an API client asking for JSON gets data', async () => {
    const nav = await page.goto(`${base()}/jobs`);
    assert.equal(nav?.status(), 200);
    assert.equal(await page.title(), 'salt-api front end');
    const data = await fetch(`${base()}/jobs`, { headers: { accept: 'application/json' } });
    assert.equal(data.status, 401, 'the API path itself still needs a token');
  });
});
