// Issue 27: the web view's Fleet tab re-reads every minion's session every 5 s. It did so as the
// runner manage.presence, and every runner call is a job in the job cache (Salt's RunnerClient
// stores each one): an open browser tab stored 17,280 jobs a day. It now reads GET
// /fleet/presence, checked as manage.presence, which stores nothing. Headless chromium, a real
// master with the API and a real minion; the job cache is read with `brine jobs list` (the
// SQLite file itself, so reading it stores no job either).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchBrowser, until } from '../helpers/browser.js';
import { Cluster, waitUntil } from '../helpers/cluster.js';
import { EAUTH, PASSWORD, USER, startWebViewMaster } from '../helpers/web-view-master.js';

const skip = browserSkip('the web view Fleet tab in chromium');
/** Refreshes of the Fleet tab watched: two by its 5 s timer, the rest by its Refresh button. */
const POLLS = 5;

describe('the Fleet tab polls without storing jobs', { skip, timeout: 120_000 }, () => {
  let cluster: Cluster;
  let apiPort: number;
  let browser: Browser;
  let page: Page;

  const jobs = async (): Promise<Record<string, { Function: string }>> => {
    const r = await cluster.brine(['jobs', 'list', '--limit', '1000', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, { Function: string }>;
  };
  /** The refresh stamp the tab writes after each refresh (its time and duration). */
  const stamp = () => page.evaluate("document.querySelector('#fleet-updated').textContent + '|' + document.querySelector('#fleet-updated').dataset.ms");

  before(async () => {
    cluster = await Cluster.create();
    apiPort = await startWebViewMaster(cluster, { auto_accept: true });
    await cluster.startMinion('web1').waitForOutput(/ready to receive requests/);
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
  });
  after(async () => {
    await browser?.close();
    await cluster?.cleanup();
  });

  it(`${POLLS} refreshes of the Fleet tab show the fleet and add no job to the job cache`, async () => {
    const before = await jobs();
    await page.goto(`http://127.0.0.1:${apiPort}/ui/`);
    await page.fill('#login-user', USER);
    await page.fill('#login-password', PASSWORD);
    await page.selectOption('#login-eauth', EAUTH);
    await page.click('#login-submit');
    await until(page, "document.querySelector('#count-connected').textContent === '1'", 20_000);
    assert.equal(await page.locator('#fleet-rows tr[data-id="web1"] td.id').textContent(), 'web1');
    // the timer's refreshes: the stamp changes each time (its text has the time to the second)
    for (let i = 0; i < 2; i++) {
      const last = await stamp();
      await waitUntil(async () => (await stamp()) !== last, 15_000, 'the Fleet tab to refresh itself');
    }
    for (let i = 2; i < POLLS; i++) {
      await page.evaluate("document.querySelector('#fleet-updated').dataset.ms = ''");
      await page.click('#fleet-refresh');
      await until(page, "document.querySelector('#fleet-updated').dataset.ms !== ''");
    }
    assert.equal(await page.textContent('#count-connected'), '1');
    const added = Object.entries(await jobs()).filter(([jid]) => !(jid in before));
    assert.deepEqual(
      added.map(([, j]) => j.Function),
      [],
      'the refreshes stored jobs',
    );
    // the same answer as the runner, which is still there for salt-api clients
    const res = await page.request.get(`http://127.0.0.1:${apiPort}/fleet/presence`, { headers: { 'X-Auth-Token': String(await page.evaluate("sessionStorage.getItem('brine.token')")) } });
    assert.equal(res.status(), 200);
    const listed = ((await res.json()) as { return: [Array<{ id: string; state: string }>] }).return[0];
    assert.deepEqual(
      listed.map((s) => [s.id, s.state]),
      [['web1', 'connected']],
    );
  });
});
