// The web view (issue 11 point 3) in headless chromium against a real master with the API on and
// real minions: log in, see the fleet, read a minion's grains, accept a pending key through the
// confirmation dialog (fingerprint shown), preview a target and run test.ping and cmd.run, the
// jobs list and one job, the live events. HTML in a grain, a cmd.run return and an event is shown
// literally and never runs (threats.md #39); the ID grammar allows no HTML, so the ID carries
// the punctuation it allows. A form posted from another origin with the session cookie is
// refused and changes nothing (CSRF). Screenshots: test-artifacts/web-view/.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSkip, launchBrowser, screenshot, until, watchForInjection } from '../helpers/browser.js';
import { Cluster, freePort, waitUntil } from '../helpers/cluster.js';
import { startWebViewMaster, USER, PASSWORD, EAUTH } from '../helpers/web-view-master.js';

const XSS_GRAIN = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>&amp;';
const XSS_ECHO = `<script>window.__xss=3</script><b onmouseover="window.__xss=4">bold</b>`;
const XSS_TARGET = '<img src=x onerror="window.__xss=5">';
const XSS_REACTOR = '<img src=x onerror="window.__xss=6">';
const ODD_ID = 'odd_@id-.x';
const ACCEPTED = ['web1', 'web2', ODD_ID];
const PENDING = 'newcomer';
const CSRF_VICTIM = 'csrf-victim';

const skip = browserSkip('the web view in chromium');

describe('the web view in headless chromium', { skip, timeout: 240_000 }, () => {
  let cluster: Cluster;
  let apiPort: number;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let injections: () => Promise<string[]>;
  const servers: http.Server[] = [];
  const base = () => `http://127.0.0.1:${apiPort}`;

  before(async () => {
    cluster = await Cluster.create();
    // the reactor (issue 25 point 10): each pending key's salt/auth event gets one reaction that
    // runs (wheel.key.list_all changes nothing) and one whose render fails with HTML in its text
    const reactorDir = path.join(cluster.root, 'reactor');
    fs.mkdirSync(reactorDir, { recursive: true });
    fs.writeFileSync(path.join(reactorDir, 'list.sls'), "{% if data['act'] == 'pend' %}\nlist_keys:\n  wheel.key.list_all: []\n{% endif %}\n");
    fs.writeFileSync(path.join(reactorDir, 'broken.sls'), `{{ '${XSS_REACTOR}' | no_such_filter }}\n`);
    apiPort = await startWebViewMaster(cluster, { reactor: [{ 'salt/auth': [path.join(reactorDir, 'list.sls'), path.join(reactorDir, 'broken.sls')] }] });
    cluster.startMinion('web1', { grains: { role: XSS_GRAIN, team: 'blue' } });
    cluster.startMinion('web2');
    cluster.startMinion(ODD_ID);
    await cluster.waitForPending(ACCEPTED);
    for (const id of ACCEPTED) assert.equal((await cluster.brine(['key', '-a', id, '-y'])).code, 0);
    cluster.startMinion(PENDING);
    cluster.startMinion(CSRF_VICTIM);
    await cluster.waitForPending([PENDING, CSRF_VICTIM]);
    await waitUntil(async () => (await cluster.brine(['run', '*', 'test.ping', '--out', 'json'])).stdout.includes(ODD_ID), 30_000, 'accepted minions answering');
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    injections = await watchForInjection(page);
  });

  after(async () => {
    await browser?.close();
    for (const s of servers) s.close();
    await cluster?.cleanup();
  });

  it('logs in with the eauth and shows the fleet: counts and one row per minion, the odd ID literally', async () => {
    await page.goto(`${base()}/ui/`);
    await page.fill('#login-user', USER);
    await page.fill('#login-password', 'wrong');
    await page.selectOption('#login-eauth', EAUTH);
    await page.click('#login-submit');
    await until(page, "document.querySelector('#login-error').textContent.length > 0");
    assert.equal(await page.isVisible('#app-view'), false, 'a wrong password does not get in');

    await page.fill('#login-password', PASSWORD);
    await page.click('#login-submit');
    await page.waitForSelector('#app-view', { state: 'visible' });
    assert.ok(await page.evaluate("sessionStorage.getItem('brine.token')"), 'the token is kept in sessionStorage');
    await until(page, "document.querySelector('#count-connected').textContent === '3'", 20_000);
    assert.equal(await page.textContent('#count-pending'), '2');
    for (const id of ACCEPTED) {
      const cell = page.locator(`#fleet-rows tr[data-id="${id}"] td.id`);
      assert.equal(await cell.textContent(), id);
    }
    const web1 = page.locator('#fleet-rows tr[data-id="web1"]');
    assert.match((await web1.textContent()) ?? '', /connected.*127\.0\.0\.1/);
    assert.equal(await page.locator(`#fleet-rows tr[data-id="${PENDING}"] .badge`).textContent(), 'pending');

    await page.fill('#fleet-filter', 'web');
    assert.equal(await page.locator('#fleet-rows tr').count(), 2, 'the filter keeps web1 and web2');
    await page.fill('#fleet-filter', '');
    await page.selectOption('#fleet-state', 'pending');
    assert.equal(await page.locator('#fleet-rows tr').count(), 2, 'the pending filter');
    await page.selectOption('#fleet-state', '');
    await screenshot(page, '01-fleet');
  });

  it('shows HTML in a grain literally: no element made from it, no script run', async () => {
    await page.click('#fleet-rows tr[data-id="web1"]');
    await until(page, "document.querySelector('#minion-grains').textContent.includes('team')");
    const grains = (await page.textContent('#minion-grains')) ?? '';
    assert.ok(grains.includes(`role: ${XSS_GRAIN}`), `the grain is shown as text: ${grains.slice(0, 400)}`);
    assert.equal(await page.locator('main img, main script:not([src]), main b').count(), 0, 'no element came from minion data');
    await screenshot(page, '02-grains-escaped');
    assert.deepEqual(await injections(), []);
  });

  it('accepts a pending key after a confirmation dialog that shows its fingerprint', async () => {
    const finger = (await cluster.brine(['key', '-f', PENDING])).stdout.match(/([0-9a-f]{2}(?::[0-9a-f]{2}){15,})/i)?.[1];
    assert.ok(finger, 'brine key -f prints the fingerprint');
    await page.click('#tabs button[data-tab="keys"]');
    const row = page.locator(`#keys-rows tr[data-id="${PENDING}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute('data-state'), 'minions_pre');

    // cancel first: nothing moves
    await row.locator('button[data-action="accept"]').click();
    await page.waitForSelector('#confirm[open]');
    assert.match((await page.textContent('#confirm-body')) ?? '', new RegExp(finger));
    await page.click('#confirm-cancel');
    assert.match((await cluster.brine(['key', '-l', 'un'])).stdout, new RegExp(`^${PENDING}$`, 'm'));

    await row.locator('button[data-action="accept"]').click();
    await page.waitForSelector('#confirm[open]');
    const body = (await page.textContent('#confirm-body')) ?? '';
    assert.ok(body.includes(PENDING) && body.includes(finger), body);
    await screenshot(page, '03-accept-confirm');
    await page.click('#confirm-ok');
    await page.waitForSelector(`#keys-rows tr[data-id="${PENDING}"][data-state="minions"]`);
    assert.match((await cluster.brine(['key', '-l', 'acc'])).stdout, new RegExp(`^${PENDING}$`, 'm'));
    await page.click('#tabs button[data-tab="fleet"]');
    await until(page, "document.querySelector('#count-connected').textContent === '4'", 20_000);
  });

  it('previews the target, runs test.ping and shows every return', async () => {
    await page.click('#tabs button[data-tab="run"]');
    await page.fill('#run-tgt', 'web*');
    await page.fill('#run-fun', 'test.ping');
    assert.equal(await page.isDisabled('#run-submit'), true, 'Run waits for a preview');
    await page.click('#run-preview');
    await until(page, "document.querySelector('#run-matched-count').textContent === '(2)'");
    assert.deepEqual(await page.locator('#run-matched-list li').allTextContents(), ['web1', 'web2']);
    await page.fill('#run-tgt', '*');
    assert.equal(await page.isDisabled('#run-submit'), true, 'a changed target needs a new preview');
    await page.click('#run-preview');
    await until(page, "document.querySelector('#run-matched-count').textContent === '(4)'");
    await page.click('#run-submit');
    await until(page, 'document.querySelectorAll(\'#run-returns tr[data-outcome="ok"]\').length === 4', 30_000).catch(async (e) => {
      console.log('DEBUG', await page.textContent('#app-error'), await page.textContent('#run-result'));
      throw e;
    });
    for (const id of [...ACCEPTED, PENDING]) assert.equal(await page.locator(`#run-returns tr[data-id="${id}"] pre`).textContent(), 'True', id);
    await until(page, "document.querySelector('#run-progress .progress').dataset.status === 'ok'");
    await screenshot(page, '04-test-ping');
  });

  it('shows HTML in a cmd.run return literally, in the returns and the job view; HTML in a target literally in the preview and the event stream', async () => {
    await page.fill('#run-tgt', 'web1');
    await page.fill('#run-fun', 'cmd.run');
    await page.fill('#run-args', `printf '%s' '${XSS_ECHO}'`);
    await page.click('#run-preview');
    await until(page, "document.querySelector('#run-matched-count').textContent === '(1)'");
    await page.click('#run-submit');
    await page.waitForSelector('#run-returns tr[data-id="web1"] pre', { timeout: 30_000 });
    assert.equal(await page.textContent('#run-returns tr[data-id="web1"] pre'), XSS_ECHO);
    await screenshot(page, '05-cmd-run-escaped');

    await page.click('#tabs button[data-tab="jobs"]');
    const job = page.locator('#jobs-rows tr', { hasText: 'cmd.run' }).first();
    await job.waitFor({ timeout: 15_000 });
    await job.click();
    await page.waitForSelector('#job-returns tr[data-id="web1"] pre');
    assert.equal(await page.textContent('#job-returns tr[data-id="web1"] pre'), XSS_ECHO);
    assert.ok((await page.locator('#jobs-rows tr', { hasText: 'test.ping' }).count()) >= 1, 'the test.ping job is listed');
    await screenshot(page, '06-job');

    // events carry no return values, but they carry the target a user typed: a list target
    // with HTML in it is previewed (the unknown name shown literally) and published
    await page.click('#tabs button[data-tab="run"]');
    await page.selectOption('#run-tgt-type', 'list');
    await page.fill('#run-tgt', `web1,${XSS_TARGET}`);
    await page.fill('#run-fun', 'test.ping');
    await page.fill('#run-args', '');
    await page.click('#run-preview');
    // the count was (1) already (the cmd.run preview): wait for this preview's note
    await until(page, `document.querySelector('#run-matched-warn').textContent.includes(${JSON.stringify(XSS_TARGET)})`);
    assert.equal(await page.textContent('#run-matched-count'), '(1)');
    assert.match((await page.textContent('#run-matched-warn')) ?? '', /1 listed but unknown: <img src=x onerror="window\.__xss=5">/);
    await page.click('#run-submit');
    await page.waitForSelector('#run-returns tr[data-id="web1"] pre', { timeout: 30_000 });
    await page.click('#tabs button[data-tab="events"]');
    await until(
      page,
      `[...document.querySelectorAll('#events-list li[data-tag$="/new"] pre')].some((p) => p.textContent.includes(${JSON.stringify(JSON.stringify(XSS_TARGET).slice(1, -1))}))`,
      15_000,
    );
    assert.ok((await page.locator('#events-list li[data-tag*="/ret/web1"]').count()) > 0, 'return events arrive live');
    await screenshot(page, '07-events');
    assert.equal(await page.locator('main script:not([src]), main b, main img').count(), 0);
    assert.deepEqual(await injections(), []);
  });

  it('the Reactor tab lists the recent reactions: tag, SLS, reaction and outcome, a render error with its file and line as text', async () => {
    await page.click('#tabs button[data-tab="reactor"]');
    const done = page.locator('#reactions-rows tr[data-outcome="done"]').first();
    await done.waitFor({ timeout: 20_000 });
    const cells = await done.locator('td').allTextContents();
    assert.equal(cells[1], 'salt/auth');
    assert.match(cells[2]!, /reactor\/list\.sls$/);
    assert.equal(cells[3], 'list_keys: wheel.key.list_all');
    const failed = page.locator('#reactions-rows tr[data-outcome="render_error"]').first();
    await failed.waitFor();
    const text = (await failed.locator('td').nth(4).textContent()) ?? '';
    assert.match(text, /broken\.sls:1:\d+: the filter 'no_such_filter'/);
    assert.ok(text.includes(XSS_REACTOR), 'the SLS text is shown literally');
    assert.match((await page.textContent('#reactions-summary')) ?? '', /^\d+ recent reactions?, [1-9]\d* not run or failed$/);
    await screenshot(page, '07b-reactor');
    assert.equal(await page.locator('main img').count(), 0);
    assert.deepEqual(await injections(), []);
  });

  it("lists recent orchestrations with their SLS, outcome and each step's outcome (issue 25 point 10)", async () => {
    const srv = path.join(cluster.root, 'master', 'srv', 'salt', 'orch');
    fs.mkdirSync(srv, { recursive: true });
    fs.writeFileSync(
      path.join(srv, 'web.sls'),
      'ping_web:\n  salt.function:\n    - name: test.ping\n    - tgt: web1\n\nfails:\n  salt.state:\n    - tgt: web2\n    - sls: nosuch_sls\n\nneeds_fails:\n  salt.function:\n    - name: test.ping\n    - tgt: web2\n    - require:\n      - salt: fails\n',
    );
    // the run itself through the API (the web view only shows orchestrations)
    const login = await fetch(`${base()}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: USER, password: PASSWORD, eauth: EAUTH }) });
    const token = ((await login.json()) as { return: Array<{ token: string }> }).return[0]!.token;
    const run = await fetch(`${base()}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify([{ client: 'runner', fun: 'state.orchestrate', mods: 'orch.web' }]),
    });
    assert.equal(((await run.json()) as { return: Array<{ retcode: number }> }).return[0]!.retcode, 1);
    await page.click('#tabs button[data-tab="orchestrations"]');
    const row = page.locator('#orch-rows tr', { hasText: 'orch.web' }).first();
    await row.waitFor({ timeout: 15_000 });
    assert.match((await row.textContent()) ?? '', /failed/);
    assert.equal(await row.locator('li[data-step="ping_web"]').textContent(), 'ping_web succeeded');
    assert.equal(await row.locator('li[data-step="fails"]').textContent(), 'fails failed');
    assert.equal(await row.locator('li[data-step="needs_fails"]').textContent(), 'needs_fails failed');
    assert.equal(await row.locator('li[data-step="needs_fails"]').getAttribute('title'), 'One or more requisite failed: orch.web.fails');
    assert.match((await row.locator('td').first().textContent()) ?? '', /^\d{20}$/);
    await screenshot(page, '07b-orchestrations');
  });

  it('refuses a form posted from another origin with the session cookie and changes nothing (CSRF)', async () => {
    const cookies = await context.cookies(base());
    assert.ok(
      cookies.some((c) => c.name === 'session_id'),
      `the login set the session cookie: ${JSON.stringify(cookies.map((c) => c.name))}`,
    );
    // the cookie alone is a session: a same-origin read with it (and no token) works
    const read = (await page.evaluate("fetch('/keys', { headers: { 'X-Requested-With': 'XMLHttpRequest' }, credentials: 'same-origin' }).then((r) => r.status)")) as number;
    assert.equal(read, 200, 'a cookie-authenticated GET works');

    const attack = `<!doctype html><form id=f method=POST action="${base()}/"><input name=client value=wheel><input name=fun value=key.accept><input name=match value=${CSRF_VICTIM}></form><script>document.getElementById('f').submit()</script>`;
    // cross-site (localhost vs 127.0.0.1) and same-site cross-origin (another port on 127.0.0.1,
    // where SameSite=Strict still sends the cookie: the X-Requested-With / Origin check must hold)
    // localhost: SameSite=Strict keeps the cookie back, so the post has no session (401);
    // 127.0.0.1: the cookie goes along, and the missing X-Requested-With refuses it (403)
    for (const [host, status, code] of [
      ['localhost', 401, 'TOKEN_MISSING'],
      ['127.0.0.1', 403, 'CSRF_REFUSED'],
    ] as const) {
      const port = await freePort();
      const srv = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attack));
      servers.push(srv);
      await new Promise<void>((resolve) => srv.listen(port, '127.0.0.1', resolve));
      const evil = await context.newPage();
      const answered = evil.waitForResponse((r) => r.url().startsWith(base()) && r.request().method() === 'POST', { timeout: 15_000 });
      await evil.goto(`http://${host}:${port}/`);
      const res = await answered;
      const body = await res.text();
      assert.equal(res.status(), status, `the forged post from ${host}:${port}: ${body}`);
      assert.match(body, new RegExp(code));
      await evil.close();
    }
    assert.match((await cluster.brine(['key', '-l', 'un'])).stdout, new RegExp(`^${CSRF_VICTIM}$`, 'm'), 'the victim key is still pending');
    assert.doesNotMatch((await cluster.brine(['key', '-l', 'acc'])).stdout, new RegExp(`^${CSRF_VICTIM}$`, 'm'));
  });

  it('rejects and then deletes a key, each after a dialog with its fingerprint', async () => {
    const finger = (await cluster.brine(['key', '-f', CSRF_VICTIM])).stdout.match(/([0-9a-f]{2}(?::[0-9a-f]{2}){31})/i)?.[1];
    assert.ok(finger);
    await page.click('#tabs button[data-tab="keys"]');
    await page.click('#keys-refresh');
    const pending = page.locator(`#keys-rows tr[data-id="${CSRF_VICTIM}"][data-state="minions_pre"]`);
    await pending.locator('button[data-action="reject"]').click();
    await page.waitForSelector('#confirm[open]');
    assert.ok(((await page.textContent('#confirm-body')) ?? '').includes(finger));
    await page.click('#confirm-ok');
    const rejected = page.locator(`#keys-rows tr[data-id="${CSRF_VICTIM}"][data-state="minions_rejected"]`);
    await rejected.waitFor();
    assert.match((await cluster.brine(['key', '-l', 'rej'])).stdout, new RegExp(`^${CSRF_VICTIM}$`, 'm'));

    await rejected.locator('button[data-action="delete"]').click();
    await page.waitForSelector('#confirm[open]');
    assert.ok(((await page.textContent('#confirm-body')) ?? '').includes(finger));
    await page.click('#confirm-ok');
    // the minion still runs and may sign in again as pending: the rejected row is what must go
    await rejected.waitFor({ state: 'detached' });
    assert.doesNotMatch((await cluster.brine(['key', '-l', 'rej'])).stdout, new RegExp(`^${CSRF_VICTIM}$`, 'm'));
  });

  it('the page is served with a strict CSP and X-Frame-Options DENY', async () => {
    const res = await page.request.get(`${base()}/ui/`);
    assert.match(res.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    assert.equal(res.headers()['x-frame-options'], 'DENY');
    assert.ok(fs.statSync(await screenshot(page, '08-final')).size > 0);
  });

  it('logging out revokes the token on the master and shows the login form again', async () => {
    const token = (await page.evaluate("sessionStorage.getItem('brine.token')")) as string;
    assert.equal((await page.request.get(`${base()}/minions`, { headers: { 'X-Auth-Token': token } })).status(), 200);
    await page.click('#logout');
    await page.waitForSelector('#login-view', { state: 'visible' });
    assert.equal(await page.evaluate("sessionStorage.getItem('brine.token')"), null);
    assert.equal((await page.request.get(`${base()}/minions`, { headers: { 'X-Auth-Token': token } })).status(), 401, 'the old token is revoked');
  });
});
