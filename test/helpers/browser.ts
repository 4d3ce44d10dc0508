// Headless Debian chromium through playwright-core for the web view tests. A machine without
// /usr/bin/chromium skips them (CI, with BRINE_REQUIRE_PRIVILEGED, fails instead: .ci/run
// installs chromium). Screenshots go to test-artifacts/web-view/ (gitignored); each path is
// printed so a run's log says where to look.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { privilegedSkip } from './privileged.js';
import { waitUntil } from './cluster.js';
import { repoRoot } from './repo.js';

export const CHROMIUM = process.env.BRINE_CHROMIUM ?? '/usr/bin/chromium';

/** `skip` for a suite that needs the browser. */
export function browserSkip(what: string): string | false {
  return privilegedSkip(what, fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium)`);
}

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: the tests run as root in CI, where chromium's sandbox refuses to start
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export const ARTIFACTS = path.join(repoRoot(), 'test-artifacts', 'web-view');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  process.stdout.write(`screenshot: ${file}\n`);
  return file;
}

/**
 * Watches a page for script that should never run: a CSP violation (an inline handler or
 * script that a broken escaping let into the DOM), a dialog (alert), and window.__xss (set by
 * the payloads). Returns a reader of what was seen.
 */
export async function watchForInjection(page: Page): Promise<() => Promise<string[]>> {
  const seen: string[] = [];
  page.on('dialog', (d) => {
    seen.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) seen.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.push(`page error: ${e.message}`));
  // strings, not functions: tsconfig has no DOM lib (these run in the page)
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => { (window.__cspViolations ??= []).push(e.violatedDirective + ' ' + e.blockedURI); });",
  });
  return async () => {
    const inPage = (await page.evaluate("[...(window.__cspViolations ?? []).map((v) => 'csp: ' + v), ...(window.__xss !== undefined ? ['window.__xss = ' + String(window.__xss)] : [])]")) as string[];
    return [...seen, ...inPage];
  };
}

/**
 * Polls a JavaScript expression in the page until it is truthy. page.waitForFunction with a
 * string compiles it with new Function inside the page, which the web view's CSP (no
 * 'unsafe-eval') refuses; page.evaluate goes through the DevTools protocol and is not subject
 * to it.
 */
export async function until(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  await waitUntil(async () => Boolean(await page.evaluate(expression)), timeoutMs, `the page to satisfy ${expression}`);
}
