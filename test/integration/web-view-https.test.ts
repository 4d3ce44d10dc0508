// The web view over the API's default HTTPS (no ssl_crt, no disable_ssl) in headless chromium:
// the certificate brine makes for the API (pki_dir/api.crt, EC P-256) is one a browser accepts,
// where the master's own Ed25519 certificate is refused by every browser. The certificate is
// self-signed, so the browser context accepts it as an operator does once.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { browserSkip, launchBrowser, screenshot, until } from '../helpers/browser.js';
import { Cluster, freePort } from '../helpers/cluster.js';
import { EAUTH, PASSWORD, USER } from '../helpers/web-view-master.js';

const skip = browserSkip('the web view in chromium');

describe('the web view over the default HTTPS certificate', { skip, timeout: 120_000 }, () => {
  let cluster: Cluster;
  let browser: Browser;
  let port: number;

  before(async () => {
    cluster = await Cluster.create();
    port = await freePort();
    const users = path.join(cluster.root, 'eauth-users');
    fs.writeFileSync(users, `${USER}:${PASSWORD}\n`, { mode: 0o600 });
    const master = await cluster.startMaster({
      api: { port, host: '127.0.0.1' },
      external_auth: { file: { '^filename': users, '^filetype': 'text', '^hashtype': 'plaintext', [USER]: ['.*', '@runner', '@wheel', '@jobs'] } },
    });
    await master.waitForOutput(/serving the REST API on https:/);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await cluster?.cleanup();
  });

  it('chromium opens /ui/ over TLS with the API certificate and logs in', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const res = await page.goto(`https://127.0.0.1:${port}/ui/`);
    assert.equal(res?.status(), 200);
    const tls = await res!.securityDetails();
    assert.equal(tls?.protocol, 'TLS 1.3');
    assert.equal(tls?.subjectName, 'brine-master', 'the certificate brine made for the API');
    await page.fill('#login-user', USER);
    await page.fill('#login-password', PASSWORD);
    await page.selectOption('#login-eauth', EAUTH);
    await page.click('#login-submit');
    await page.waitForSelector('#app-view', { state: 'visible' });
    await until(page, "document.querySelector('#count-connected').textContent === '0'", 20_000);
    await screenshot(page, '20-https-default-cert');
    await context.close();
  });
});
