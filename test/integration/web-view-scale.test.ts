// The web view with thousands of minions (issue 11 point 3: usable with 10,000): a real master
// with the API and `brine emulate` minions; the fleet tab keeps one page of rows in the DOM,
// pages through the rest and filters over all of them. Prints what it measured (presence call
// and render time) so the numbers are in the run's log.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchBrowser, screenshot, until } from '../helpers/browser.js';
import { Cluster, type Proc, waitUntil } from '../helpers/cluster.js';
import { EAUTH, PASSWORD, USER, startWebViewMaster } from '../helpers/web-view-master.js';

const COUNT = Number(process.env.BRINE_WEB_VIEW_MINIONS ?? 3000);
const PAGE = 100;

describe(`the web view with ${COUNT} emulated minions`, { skip: browserSkip('the web view at scale'), timeout: 180_000 + COUNT * 40 }, () => {
  let cluster: Cluster;
  let apiPort: number;
  let emu: Proc;
  let browser: Browser;
  let page: Page;

  before(async () => {
    cluster = await Cluster.create();
    // every emulated minion connects from 127.0.0.1: the per-source limits must not hold them back
    apiPort = await startWebViewMaster(cluster, { auto_accept: true, auth_rate_per_source: 1000, preauth_max_connections_per_source: 0, preauth_max_connections: 0 });
    emu = cluster.spawnBrine('emulator', [
      'emulate',
      '--master',
      `127.0.0.1:${cluster.port}`,
      '--count',
      String(COUNT),
      '--prefix',
      'emu-',
      '--pki-dir',
      path.join(cluster.root, 'emu-pki'),
      '--ramp',
      '500',
      '--stats-interval',
      '1',
      // warnings from thousands of sign-ins (busy answers while the master paces them) would
      // bury the stats lines
      '--log-level',
      'error',
    ]);
    // the last stats line's ready count (stdout and stderr share the output, so match, not split)
    const lastStats = () => [...emu.output.matchAll(/\{"at":\d+,[^\n]*?"ready":(\d+)/g)].at(-1);
    // the master signs in about 200 a second (auth_rate); a shared CI core is slower
    await waitUntil(() => Number(lastStats()?.[1]) === COUNT, 60_000 + COUNT * 25, `${COUNT} emulated minions ready`).catch((err: Error) => {
      throw new Error(`${err.message} (last stats: ${lastStats()?.[0]})`);
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  });

  after(async () => {
    await browser?.close();
    await cluster?.cleanup();
  });

  it('counts every minion, draws one page of rows, pages and filters over all of them', async () => {
    await page.goto(`http://127.0.0.1:${apiPort}/ui/`);
    await page.fill('#login-user', USER);
    await page.fill('#login-password', PASSWORD);
    await page.selectOption('#login-eauth', EAUTH);
    await page.click('#login-submit');
    await until(page, `document.querySelector('#count-connected').textContent === '${COUNT}'`, 30_000);
    assert.equal(await page.locator('#fleet-rows tr').count(), PAGE, 'one page of rows in the DOM');
    assert.equal(await page.textContent('#fleet-pager .range'), `1\u2013${PAGE} of ${COUNT}`);

    // measured in the page: the presence call and drawing the table after it
    const timing = (await page.evaluate(`(async () => {
      const t0 = performance.now();
      const r = await fetch('/fleet/presence', { headers: { 'X-Auth-Token': sessionStorage.getItem('brine.token'), 'X-Requested-With': 'XMLHttpRequest' } });
      const text = await r.text();
      const t1 = performance.now();
      document.querySelector('#fleet-refresh').click();
      await new Promise((resolve) => { const check = () => (document.querySelector('#fleet-updated').dataset.ms ? resolve() : requestAnimationFrame(check)); document.querySelector('#fleet-updated').dataset.ms = ''; requestAnimationFrame(check); });
      return { fetchMs: t1 - t0, bytes: text.length, renderMs: Number(document.querySelector('#fleet-updated').dataset.ms) };
    })()`)) as { fetchMs: number; bytes: number; renderMs: number };
    process.stdout.write(
      `web view with ${COUNT} minions: GET /fleet/presence ${Math.round(timing.fetchMs)} ms for ${Math.round(timing.bytes / 1024)} KiB; refresh + draw ${Math.round(timing.renderMs)} ms\n`,
    );
    assert.ok(timing.renderMs < 2000, `a refresh took ${timing.renderMs} ms`);

    await page.click('#fleet-pager .next');
    assert.equal(await page.textContent('#fleet-pager .range'), `${PAGE + 1}\u2013${2 * PAGE} of ${COUNT}`);
    const last = `emu-${COUNT - 1}`;
    const t0 = Date.now();
    await page.fill('#fleet-filter', last);
    await until(page, `document.querySelectorAll('#fleet-rows tr').length === 1`);
    const filterMs = Date.now() - t0;
    process.stdout.write(`filtering ${COUNT} rows to one: ${filterMs} ms\n`);
    assert.equal(await page.textContent('#fleet-rows tr td.id'), last);
    assert.equal(await page.textContent('#fleet-pager .range'), '1\u20131 of 1', 'a new filter starts at page one');
    await page.fill('#fleet-filter', '');
    await screenshot(page, `10-fleet-${COUNT}`);
  });
});
