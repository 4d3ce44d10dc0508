// The web view's file server (src/api/ui): the allow-listed files with their types, the strict
// CSP and framing headers on every answer, and nothing outside the folder.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { UI_CSP, loadUiAssets, registerUi, uiAssetDir } from '../../../src/api/ui/index.js';

describe('registerUi', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    registerUi(app);
    await app.ready();
  });
  after(() => app.close());

  it('redirects /ui to /ui/ and serves index.html there with a strict CSP, no framing and nosniff', async () => {
    const r = await app.inject({ method: 'GET', url: '/ui' });
    assert.equal(r.statusCode, 302);
    assert.equal(r.headers.location, '/ui/');
    const page = await app.inject({ method: 'GET', url: '/ui/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<script type="module" src="\/ui\/app\.js"><\/script>/);
    assert.equal(page.headers['content-security-policy'], UI_CSP);
    assert.match(UI_CSP, /script-src 'self'(;|$)/);
    assert.doesNotMatch(UI_CSP, /unsafe-inline|unsafe-eval|\*/);
    assert.match(UI_CSP, /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
  });

  it('serves every script the page loads with a JavaScript type, and the stylesheet as CSS', async () => {
    const html = (await app.inject({ method: 'GET', url: '/ui/' })).body;
    const js = await app.inject({ method: 'GET', url: '/ui/app.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
    // every module app.js imports is served too (a missing one breaks the page silently)
    for (const m of js.body.matchAll(/from '\.\/([a-z-]+\.js)'/g)) {
      const dep = await app.inject({ method: 'GET', url: `/ui/${m[1]}` });
      assert.equal(dep.statusCode, 200, m[1]);
    }
    const css = await app.inject({ method: 'GET', url: '/ui/style.css' });
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.match(html, /href="\/ui\/style\.css"/);
  });

  it('has no inline script or style and loads nothing from another host (works offline)', () => {
    const dir = uiAssetDir();
    for (const name of fs.readdirSync(dir)) {
      // an XML namespace name is an identifier, never fetched
      const text = fs.readFileSync(path.join(dir, name), 'utf8').replaceAll('http://www.w3.org/2000/svg', '');
      assert.doesNotMatch(text, /https?:\/\//, `${name} refers to another host`);
      if (name.endsWith('.html')) {
        assert.doesNotMatch(text, /<script(?![^>]*\bsrc=)/, `${name} has an inline script`);
        assert.doesNotMatch(text, /\son[a-z]+=/, `${name} has an inline event handler`);
        assert.doesNotMatch(text, /\sstyle=/, `${name} has an inline style`);
      }
      if (name.endsWith('.js')) assert.doesNotMatch(text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, `${name} parses HTML`);
    }
  });

  it('answers 404 for names outside the folder, traversal and encoded traversal included', async () => {
    for (const url of ['/ui/nope.js', '/ui/../package.json', '/ui/%2e%2e/index.ts', '/ui/..%2Findex.ts', '/ui/static/app.js', '/ui/index.ts']) {
      const r = await app.inject({ method: 'GET', url });
      assert.ok(r.statusCode === 404 || r.statusCode === 400, `${url}: ${r.statusCode}`);
      assert.doesNotMatch(r.body, /registerUi|"name": "brine"/, url);
      if (r.statusCode === 404 && !/\.\.|%2e/i.test(url)) assert.equal(r.headers['x-frame-options'], 'DENY', url);
    }
  });

  it('a folder without index.html is refused with the fix', () => {
    const empty = fs.mkdtempSync(path.join(uiAssetDir(), '..', 'empty-'));
    try {
      assert.throws(() => loadUiAssets(empty), /no index\.html .*npm run build/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
