// The web view's results (issue 26 point 1) in headless chromium against a real master and real
// minions: the login form defaults to the only configured eauth; a state.apply with a failing
// cmd.run is shown as the highstate outputter (summary, one block per state, the failure red with
// its comment, the diff folded) and marked failed in the job list, the job detail (opened at the
// top) and the fleet (last highstate); a job followed live (one minion returned, one running, one
// not connected, then the slow one returns); the jobs filter by outcome; the fleet's OS, roles
// and one-day chart; every tab at 360 px without sideways overflow. Screenshots:
// test-artifacts/web-view/ (printed).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchBrowser, screenshot, until, watchForInjection } from '../helpers/browser.js';
import { Cluster, type Proc, waitUntil } from '../helpers/cluster.js';
import { startWebViewMaster, USER, PASSWORD } from '../helpers/web-view-master.js';

const skip = browserSkip('the web view results in chromium');
/** The slow minion's cmd.run sleeps this long: long enough to see it running, short for the test. */
const DELAY_S = 8;
/** A user who may only run test.ping: the fleet-wide views are refused to it. */
const PINGER = 'pinger';
const PINGER_PASSWORD = 'only pings';

describe('the web view: state results, live progress, job outcomes, narrow layout', { skip, timeout: 300_000 }, () => {
  let cluster: Cluster;
  let apiPort: number;
  let browser: Browser;
  let page: Page;
  let injections: () => Promise<string[]>;
  let gone: Proc;
  let motd: string;
  const base = () => `http://127.0.0.1:${apiPort}`;

  before(async () => {
    cluster = await Cluster.create();
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(srv, { recursive: true });
    motd = path.join(cluster.root, 'motd');
    fs.writeFileSync(motd, 'old line\n');
    // a file changed with a diff, a cmd.run exiting 3 (result False), a state needing it, one that succeeds
    fs.writeFileSync(
      path.join(srv, 'broken.sls'),
      [
        'motd:',
        '  file.managed:',
        `    - name: ${motd}`,
        '    - contents: new line',
        'fails:',
        '  cmd.run:',
        "    - name: echo 'disk is full' >&2; exit 3",
        'needs_fails:',
        '  test.succeed_without_changes:',
        '    - require:',
        '      - cmd: fails',
        'fine:',
        '  test.succeed_without_changes: []',
        '',
      ].join('\n'),
    );
    apiPort = await startWebViewMaster(cluster, {}, { [PINGER]: [PINGER_PASSWORD, ['test.ping']] });
    cluster.startMinion('web1', { grains: { roles: ['web', 'db'] } });
    cluster.startMinion('slow', {}, { WEB_VIEW_DELAY: String(DELAY_S) });
    gone = cluster.startMinion('gone');
    const ids = ['web1', 'slow', 'gone'];
    // generous: three minions signing in on a loaded shared machine
    await cluster.waitForPending(ids, 60_000);
    for (const id of ids) assert.equal((await cluster.brine(['key', '-a', id, '-y'])).code, 0);
    await waitUntil(async () => (await cluster.brine(['run', '-L', ids.join(','), 'test.ping', '--out', 'json'])).stdout.split('true').length === 4, 30_000, 'all three answering');
    // `gone` stays accepted but stops: a job to it shows it as not connected
    await gone.kill();
    await waitUntil(async () => (await cluster.brine(['minions', 'down', '--out', 'json'])).stdout.includes('"gone"'), 30_000, 'gone disconnected');
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    injections = await watchForInjection(page);
  });

  after(async () => {
    await browser?.close();
    await cluster?.cleanup();
  });

  async function login(p: Page): Promise<void> {
    await p.goto(`${base()}/ui/`);
    // the master configures only `file`: the form offers it alone, selected
    await until(p, "[...document.querySelectorAll('#login-eauth option')].map((o) => o.value).join() === 'file'");
    assert.equal(await p.inputValue('#login-eauth'), 'file');
    await p.fill('#login-user', USER);
    await p.fill('#login-password', PASSWORD);
    await p.click('#login-submit');
    await p.waitForSelector('#app-view', { state: 'visible' });
  }

  async function runInView(tgt: string, tgtType: string, fun: string, args: string): Promise<string> {
    await page.click('#tabs button[data-tab="run"]');
    await page.selectOption('#run-tgt-type', tgtType);
    await page.fill('#run-tgt', tgt);
    await page.fill('#run-fun', fun);
    await page.fill('#run-args', args);
    await page.click('#run-preview');
    await page.waitForSelector('#run-submit:not([disabled])');
    await page.click('#run-submit');
    await until(page, "/^\\d{20}$/.test(document.querySelector('#run-result').dataset.jid)", 15_000);
    return (await page.getAttribute('#run-result', 'data-jid')) ?? '';
  }

  it('the login form defaults to the configured eauth (file, the only one)', async () => {
    await login(page);
    assert.ok(await page.evaluate("sessionStorage.getItem('brine.token')"));
    const res = await page.request.get(`${base()}/login`);
    assert.equal(res.status(), 401);
    assert.deepEqual((await res.json()).eauth, ['file']);
  });

  it('shows a state run as the highstate outputter: the failing cmd.run red with its comment, the diff folded', async () => {
    const jid = await runInView('web1', 'glob', 'state.apply', 'broken');
    await until(page, "document.querySelector('#run-progress .progress')?.dataset.status === 'failed'", 60_000);
    const row = page.locator('#run-returns tr[data-id="web1"]');
    assert.equal(await row.getAttribute('data-outcome'), 'failed', 'the minion is marked failed');
    assert.equal(await row.locator('.badge').first().textContent(), 'failed');
    const summary = (await row.locator('.hs-summary').textContent()) ?? '';
    assert.match(summary, /^2 succeeded \(1 changed\), 2 failed; 4 states in \d+\.\d{3} m?s$/, summary);
    assert.match((await row.locator('.hs-summary').getAttribute('class')) ?? '', /\bfailed\b/);
    // in run order, each with its result colour
    const order = await row.locator('.state').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-state-id')}:${e.getAttribute('data-result')}`));
    assert.deepEqual(order, ['motd:changed', 'fails:failed', 'needs_fails:failed', 'fine:ok']);
    const fails = row.locator('.state[data-state-id="fails"]');
    assert.equal(await fails.getAttribute('data-result'), 'failed');
    assert.equal(await fails.locator('.state-fun').textContent(), 'cmd.run');
    assert.match((await fails.locator('.comment').textContent()) ?? '', /Command "echo 'disk is full' >&2; exit 3" run/);
    const red = await page.evaluate(`getComputedStyle(document.querySelector('#run-returns tr[data-id="web1"] .state[data-state-id="fails"]')).borderLeftColor`);
    assert.equal(red, 'rgb(207, 34, 46)', 'a failed state has the red border');
    assert.match((await row.locator('.state[data-state-id="needs_fails"] .comment').textContent()) ?? '', /requisite/i);
    // the file's diff is folded until opened
    const diff = row.locator('.state[data-state-id="motd"] details.changes');
    assert.equal(await diff.getAttribute('open'), null);
    await diff.locator('summary').click();
    assert.equal(await diff.locator('pre.diff span.del').first().textContent(), '-old line\n');
    assert.equal(await diff.locator('pre.diff span.add').first().textContent(), '+new line\n');
    assert.equal(fs.readFileSync(motd, 'utf8').trim(), 'new line');
    await screenshot(page, '10-highstate-failed');

    // the jobs list marks it failed with its arguments; the detail opens at the top of the page
    await page.click('#tabs button[data-tab="jobs"]');
    const listed = page.locator(`#jobs-rows tr[data-jid="${jid}"]`);
    await listed.waitFor({ timeout: 15_000 });
    assert.equal(await listed.getAttribute('data-status'), 'failed');
    const cells = await listed.locator('td').allTextContents();
    assert.deepEqual([cells[0], cells[2], cells[3], cells[4], cells[7]], ['failed', 'state.apply', 'broken', 'web1', '1/1']);
    await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    await listed.click();
    await page.waitForSelector('#job-returns tr[data-id="web1"][data-outcome="failed"] .state[data-state-id="fails"]');
    assert.equal(await page.evaluate('window.scrollY'), 0, 'the detail is shown from the top of the page');
    const box = await page.locator('#job-detail').boundingBox();
    assert.ok(box && box.y < 200, `the detail is at the top, above the list (y=${box?.y})`);
    assert.equal(await page.locator('#job-progress .progress').getAttribute('data-status'), 'failed');
    await screenshot(page, '11-job-detail-failed');
    assert.deepEqual(await injections(), []);
  });

  it('follows a job live: one minion returned, one running, one not connected, then the slow one returns', async () => {
    const jid = await runInView('web1,slow,gone', 'list', 'cmd.run', 'sleep $((WEB_VIEW_DELAY + 0)); echo "slept $((WEB_VIEW_DELAY + 0))"');
    await until(page, "(() => { const p = document.querySelector('#run-progress .progress'); return p && p.dataset.returned === '1' && p.dataset.running === '1'; })()", 15_000);
    assert.equal(await page.getAttribute('#run-returns tr[data-id="web1"]', 'data-outcome'), 'ok');
    assert.equal(await page.textContent('#run-returns tr[data-id="web1"] pre'), 'slept 0');
    assert.equal(await page.getAttribute('#run-returns tr[data-id="slow"]', 'data-outcome'), 'running');
    assert.equal(await page.getAttribute('#run-returns tr[data-id="gone"]', 'data-outcome'), 'not_connected');
    assert.equal(await page.getAttribute('#run-progress .progress', 'data-status'), 'running');
    assert.match((await page.textContent('#run-progress .progress-text')) ?? '', /^1 of 3 returned, 1 running, 1 not connected$/);
    await screenshot(page, '12-live-running');

    // the jobs list shows it running meanwhile
    const apiStatus = async () => {
      const r = await page.request.get(`${base()}/jobs/${jid}/outcome`, { headers: { 'X-Auth-Token': (await page.evaluate("sessionStorage.getItem('brine.token')")) as string } });
      return (await r.json()).return[0];
    };
    assert.equal((await apiStatus()).status, 'running');

    await until(page, "document.querySelector('#run-returns tr[data-id=\"slow\"]').dataset.outcome === 'ok'", (DELAY_S + 20) * 1000);
    assert.equal(await page.textContent('#run-returns tr[data-id="slow"] pre'), `slept ${DELAY_S}`);
    // the master ends the job when its timeout passes for the minion that is not connected
    await until(page, "document.querySelector('#run-progress .progress').dataset.status === 'partial'", 60_000);
    assert.match((await page.textContent('#run-progress .progress-text')) ?? '', /^2 of 3 returned, 0 running, 1 not connected$/);
    const done = await apiStatus();
    assert.deepEqual(done.minions, { web1: 'ok', slow: 'ok', gone: 'not_connected' });
    assert.equal(done.status, 'partial');
    await screenshot(page, '13-live-done');
  });

  it('filters the jobs list by outcome', async () => {
    // one job that is simply ok
    await runInView('web1', 'glob', 'test.ping', '');
    await until(page, "document.querySelector('#run-progress .progress')?.dataset.status === 'ok'", 30_000);
    await page.click('#tabs button[data-tab="jobs"]');
    await page.click('#jobs-refresh');
    await until(page, "document.querySelectorAll('#jobs-rows tr').length >= 3");
    const statuses = async () => page.locator('#jobs-rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')));
    const all = await statuses();
    for (const s of ['ok', 'failed', 'partial']) assert.ok(all.includes(s), `${s} in ${all.join()}`);
    assert.equal(await page.locator('#jobs-rows tr', { hasText: 'runner.' }).count(), 0, "the view's own runner reads are hidden");
    for (const s of ['failed', 'partial', 'ok']) {
      await page.selectOption('#jobs-status', s);
      const shown = await statuses();
      assert.ok(shown.length > 0 && shown.every((x) => x === s), `${s}: ${shown.join()}`);
    }
    await page.selectOption('#jobs-status', 'failed');
    assert.deepEqual(await page.locator('#jobs-rows tr td:nth-child(3)').allTextContents(), ['state.apply']);
    const red = String(await page.evaluate("getComputedStyle(document.querySelector('#jobs-rows tr td')).boxShadow"));
    assert.match(red, /rgb\(207, 34, 46\)/, 'a failed job is marked red');
    await screenshot(page, '14-jobs-failed-filter');
    await page.check('#jobs-runners');
    await page.selectOption('#jobs-status', '');
    // the Run tab's target preview (the Fleet tab's reads store no job: GET /fleet/presence)
    assert.ok((await page.locator('#jobs-rows tr', { hasText: 'runner.manage.match' }).count()) > 0, 'runner jobs on request');
    await page.uncheck('#jobs-runners');
  });

  it('the fleet shows OS, roles, the last highstate (failed, red) and the one-day chart', async () => {
    await page.click('#tabs button[data-tab="fleet"]');
    await page.click('#fleet-refresh');
    const web1 = page.locator('#fleet-rows tr[data-id="web1"]');
    await until(page, "document.querySelector('#fleet-rows tr[data-id=\"web1\"] td.roles')?.textContent === 'web, db'", 15_000);
    assert.match((await web1.locator('td.os').textContent()) ?? '', /\S/, 'the os grain is shown');
    assert.equal(await web1.locator('.badge.hs-failed').textContent(), 'failed');
    assert.match((await web1.getAttribute('class')) ?? '', /\bfailed\b/);
    assert.equal(await page.locator('#fleet-rows tr[data-id="slow"] .badge.hs-failed').count(), 0, 'slow ran no highstate');
    // the chart: the connected count now, and the failed job's bar in this hour
    await until(page, "document.querySelector('#fleet-chart circle.connected-now')?.getAttribute('data-connected') === '2'", 15_000);
    // the chart drawn when the tab first opened may still be there: wait for Refresh's to replace it
    await until(page, "[...document.querySelectorAll('#fleet-chart rect.bar-failed')].reduce((n, r) => n + Number(r.getAttribute('data-count')), 0) >= 1", 15_000);
    const failed = await page.locator('#fleet-chart rect.bar-failed').evaluateAll((rs) => rs.reduce((n, r) => n + Number(r.getAttribute('data-count')), 0));
    assert.ok(failed >= 1, `failed jobs in the chart: ${failed}`);
    assert.match((await page.textContent('#fleet-chart-text')) ?? '', /^2 connected now; jobs in the last day: \d+ ok, [1-9]\d* failed, [1-9]\d* partial, 0 running$/);
    await screenshot(page, '15-fleet-chart');
  });

  it("refuses the job outcomes and the fleet's summary and history to a user whose ACL does not reach them", async () => {
    const login = await page.request.post(`${base()}/login`, { data: { username: PINGER, password: PINGER_PASSWORD, eauth: 'file' } });
    const token = ((await login.json()) as { return: Array<{ token: string }> }).return[0]!.token;
    const jid = (
      (await (await page.request.get(`${base()}/jobs/outcomes?limit=1`, { headers: { 'X-Auth-Token': (await page.evaluate("sessionStorage.getItem('brine.token')")) as string } })).json()) as {
        return: [[{ jid: string }]];
      }
    ).return[0][0].jid;
    for (const url of ['/jobs/outcomes', `/jobs/${jid}/outcome`, '/fleet/summary', '/fleet/history']) {
      const res = await page.request.get(`${base()}${url}`, { headers: { 'X-Auth-Token': token } });
      assert.equal(res.status(), 403, url);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'ACL_DENIED', url);
    }
    const bad = await page.request.get(`${base()}/jobs/outcomes?limit=0`, { headers: { 'X-Auth-Token': token } });
    assert.equal(bad.status(), 400, 'a bad limit is refused before the ACL');
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'BAD_ARGUMENTS');
  });

  it('every tab fits a 360 px wide window: no sideways overflow', async () => {
    const narrow = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
    try {
      await login(narrow);
      const fits = async (what: string) => {
        const w = (await narrow.evaluate('document.documentElement.scrollWidth')) as number;
        assert.ok(w <= 360, `${what}: the page is ${w} px wide`);
      };
      await fits('login');
      for (const tab of ['fleet', 'keys', 'run', 'jobs', 'orchestrations', 'events', 'reactor']) {
        await narrow.click(`#tabs button[data-tab="${tab}"]`);
        await until(narrow, `!document.querySelector('#tab-${tab}').hidden`);
        if (tab === 'fleet') await narrow.waitForSelector('#fleet-rows tr[data-id="web1"]');
        if (tab === 'jobs') await narrow.waitForSelector('#jobs-rows tr');
        await fits(tab);
        await screenshot(narrow, `20-narrow-${tab}`);
      }
      // a job's detail with a state run, the widest thing the view draws
      await narrow.click('#tabs button[data-tab="jobs"]');
      await narrow.selectOption('#jobs-status', 'failed');
      await narrow.locator('#jobs-rows tr').first().click();
      await narrow.waitForSelector('#job-returns .state[data-state-id="fails"]');
      await narrow.locator('#job-returns .state[data-state-id="motd"] details summary').click();
      await fits('job detail');
      await screenshot(narrow, '21-narrow-job-detail');
    } finally {
      await narrow.context().close();
    }
  });
});
