// rest_cherrypy's app/app_path/static/static_path (issue 25 point 9) on a real fastify instance:
// the app page at every path under app_path, files under static_path with their types and the
// API's headers, no directory listing, and every way out of the directory refused with
// API_STATIC_REFUSED (threats.md #8). Also the text/plain body parser (salt-api's text_processor)
// and the options' refusals.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { apiOptionsFrom, type ApiOptions } from '../../../src/api/index.js';
import { fromFrameworkError } from '../../../src/api/http-errors.js';
import { parseTextBody, registerBodyParsers } from '../../../src/api/media.js';
import { installAppOverride, registerStaticApp, STATIC_HEADERS, staticRelative, wantsAppPage } from '../../../src/api/static-app.js';
import { isBrineError } from '../../../src/util/errors.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-static-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function code(fn: () => unknown, want: string, msg?: RegExp): void {
  try {
    fn();
  } catch (err) {
    assert.ok(isBrineError(err), String(err));
    assert.equal(err.code, want);
    if (msg) assert.match(err.message, msg);
    return;
  }
  assert.fail(`expected ${want}`);
}

describe('static front end (app / static)', () => {
  let app: FastifyInstance;
  let opts: ApiOptions;
  const staticDir = path.join(root, 'www');
  const appFile = path.join(root, 'index.html');

  before(async () => {
    fs.mkdirSync(path.join(staticDir, 'js'), { recursive: true });
    fs.mkdirSync(path.join(staticDir, 'empty'));
    fs.writeFileSync(appFile, '<!doctype html><title>front</title>');
    fs.writeFileSync(path.join(staticDir, 'js', 'app.js'), 'console.log(1);');
    fs.writeFileSync(path.join(staticDir, 'style.css'), 'body{}');
    fs.writeFileSync(path.join(staticDir, 'data.bin'), Buffer.from([0, 1, 2]));
    fs.writeFileSync(path.join(staticDir, '.env'), 'SECRET=1');
    fs.writeFileSync(path.join(root, 'outside.txt'), 'outside');
    fs.symlinkSync(path.join(root, 'outside.txt'), path.join(staticDir, 'link-out.txt'));
    fs.symlinkSync(path.join(staticDir, 'style.css'), path.join(staticDir, 'link-in.css'));
    opts = apiOptionsFrom({ rest_cherrypy: { disable_ssl: true, app: appFile, static: staticDir, webhook_url: '/hook' } })!;
    app = Fastify();
    // the API's error handler, as server.ts installs it
    app.setErrorHandler((err, _req, reply) => {
      const e = fromFrameworkError(err);
      return reply.code(e.code === 'API_STATIC_REFUSED' ? 400 : 500).send({ error: { code: e.code, message: e.message } });
    });
    installAppOverride(app, opts);
    registerStaticApp(app, opts);
    app.get('/minions', async () => ({ return: [] }));
    await app.ready();
  });
  after(() => app.close());

  it("serves app at app_path and every path under it (Salt's App ignores the rest), as HTML with the API's headers", async () => {
    for (const url of ['/app', '/app/', '/app/minions/web1']) {
      const r = await app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 200, url);
      assert.match(String(r.headers['content-type']), /^text\/html/);
      assert.equal(r.body, '<!doctype html><title>front</title>');
      for (const [k, v] of Object.entries(STATIC_HEADERS)) assert.equal(r.headers[k], v, `${url} ${k}`);
    }
  });

  it('serves static files under static_path with their content types; a symlink inside is followed', async () => {
    const js = await app.inject({ method: 'GET', url: '/static/js/app.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
    assert.equal(js.body, 'console.log(1);');
    assert.equal(js.headers['x-content-type-options'], 'nosniff');
    assert.match(String((await app.inject({ method: 'GET', url: '/static/style.css' })).headers['content-type']), /^text\/css/);
    assert.equal((await app.inject({ method: 'GET', url: '/static/data.bin' })).headers['content-type'], 'application/octet-stream');
    const linked = await app.inject({ method: 'GET', url: '/static/link-in.css' });
    assert.equal(linked.statusCode, 200);
    assert.equal(linked.body, 'body{}');
  });

  it('answers If-Modified-Since with 304 when the file has not changed', async () => {
    const first = await app.inject({ method: 'GET', url: '/static/style.css' });
    const lm = String(first.headers['last-modified']);
    assert.ok(Date.parse(lm) > 0, lm);
    const again = await app.inject({ method: 'GET', url: '/static/style.css', headers: { 'if-modified-since': lm } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('lists no directory: a directory, the bare prefix and a missing file are 404 API_NOT_FOUND', async () => {
    for (const url of ['/static/', '/static/empty', '/static/empty/', '/static/js', '/static/nope.js', '/static/%252e%252e/outside.txt']) {
      const r = await app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 404, url);
      assert.equal(JSON.parse(r.body).error.code, 'API_NOT_FOUND', url);
      assert.ok(!r.body.includes('app.js'), `${url} lists nothing`);
    }
  });

  it('refuses every way out of the directory, and hidden files, with API_STATIC_REFUSED; nothing outside is read', async () => {
    for (const url of [
      '/static/../outside.txt',
      '/static/%2e%2e/outside.txt',
      '/static/js/%2E%2E/%2E%2E/outside.txt',
      '/static/.env',
      '/static/js/..%2f..%2foutside.txt',
      '/static/a%5c..%5cb',
      '/static/link-out.txt',
      '/static/x%00.js',
    ]) {
      const r = await app.inject({ method: 'GET', url });
      assert.ok(r.statusCode === 400 || r.statusCode === 404, `${url}: ${r.statusCode}`);
      assert.ok(!r.body.includes('outside') || r.body.includes('error'), `${url} leaked the file: ${r.body}`);
      assert.ok(!r.body.includes('SECRET'), url);
      if (r.statusCode === 400) assert.equal(JSON.parse(r.body).error.code, 'API_STATIC_REFUSED', url);
    }
    assert.equal(JSON.parse((await app.inject({ method: 'GET', url: '/static/link-out.txt' })).body).error.code, 'API_STATIC_REFUSED');
    assert.equal(JSON.parse((await app.inject({ method: 'GET', url: '/static/.env' })).body).error.code, 'API_STATIC_REFUSED');
  });

  it("html_override: a browser navigating to an API path gets the app; an API client's */* or JSON Accept gets the data", async () => {
    const nav = await app.inject({ method: 'GET', url: '/minions', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.match(nav.body, /<title>front<\/title>/);
    assert.equal((await app.inject({ method: 'GET', url: '/minions', headers: { accept: '*/*' } })).body, '{"return":[]}');
    assert.equal((await app.inject({ method: 'GET', url: '/minions', headers: { accept: 'application/json, text/plain, */*' } })).body, '{"return":[]}');
    assert.equal((await app.inject({ method: 'GET', url: '/minions' })).body, '{"return":[]}');
    assert.equal((await app.inject({ method: 'GET', url: '/minions', headers: { accept: 'text/html;q=0' } })).body, '{"return":[]}');
  });

  it('wantsAppPage: GET/HEAD only, never for app_path, static_path, /ui or the hooks', () => {
    const req = (method: string, url: string) => ({ method, url, headers: { accept: 'text/html' } }) as never;
    assert.equal(wantsAppPage(req('GET', '/jobs'), opts), true);
    assert.equal(wantsAppPage(req('POST', '/login'), opts), false);
    for (const url of ['/app/x', '/static/js/app.js', '/ui/', '/hook/x']) assert.equal(wantsAppPage(req('GET', url), opts), false, url);
    const noApp = apiOptionsFrom({ api: { static: staticDir } })!;
    assert.equal(wantsAppPage(req('GET', '/jobs'), noApp), false, 'only with app set');
  });

  it('staticRelative: the pure path check', () => {
    assert.equal(staticRelative('js//app.js'), 'js/app.js');
    assert.equal(staticRelative(''), '');
    code(() => staticRelative('../x'), 'API_STATIC_REFUSED', /'\.\.'/);
    code(() => staticRelative('a/./b'), 'API_STATIC_REFUSED');
    code(() => staticRelative('.git/config'), 'API_STATIC_REFUSED', /hidden/);
    code(() => staticRelative('a\\b'), 'API_STATIC_REFUSED', /backslash/);
  });
});

describe('rest_cherrypy app / static options', () => {
  it("Salt's defaults /app and /static; app_path as Salt writes it ('app' or '/app'); refusals are CONFIG_VALUE", () => {
    const d = apiOptionsFrom({ rest_cherrypy: {} })!;
    assert.deepEqual([d.appPath, d.staticPath, d.app, d.static], ['/app', '/static', undefined, undefined]);
    const o = apiOptionsFrom({ rest_cherrypy: { app: '/srv/ui/index.html', app_path: 'console', static: '/srv/ui', static_path: '/assets/v1/' } })!;
    assert.deepEqual([o.app, o.appPath, o.static, o.staticPath], ['/srv/ui/index.html', '/console', '/srv/ui', '/assets/v1']);
    code(() => apiOptionsFrom({ api: { app_path: '/a/b' } }), 'CONFIG_VALUE', /app_path must be a URL path/);
    code(() => apiOptionsFrom({ api: { static_path: '/x/../y' } }), 'CONFIG_VALUE', /static_path/);
    code(() => apiOptionsFrom({ api: { static_path: '/login' } }), 'CONFIG_VALUE', /hide the API's own \/login/);
    code(() => apiOptionsFrom({ api: { app_path: 'ui' } }), 'CONFIG_VALUE', /\/ui/);
    code(() => apiOptionsFrom({ api: { webhook_url: '/in', static_path: '/in' } }), 'CONFIG_VALUE', /hide/);
    code(() => apiOptionsFrom({ api: { app_path: '/web', static_path: '/web/static' } }), 'CONFIG_VALUE', /overlap/);
    code(() => apiOptionsFrom({ api: { app: '' } }), 'CONFIG_VALUE', /app must be a non-empty string/);
  });

  it('a missing app file or static directory is refused when the API starts, naming the option', () => {
    const f = Fastify();
    code(() => registerStaticApp(f, apiOptionsFrom({ rest_cherrypy: { app: path.join(root, 'nope.html') } })!), 'CONFIG_VALUE', /rest_cherrypy: app .*nope\.html cannot be read/);
    code(() => registerStaticApp(f, apiOptionsFrom({ rest_cherrypy: { static: path.join(root, 'outside.txt') } })!), 'CONFIG_VALUE', /is not a directory/);
    void f.close();
  });
});

describe("text/plain bodies (salt-api's text_processor)", () => {
  it('are read as JSON when they are JSON, kept as text otherwise; __proto__ keys are refused', async () => {
    assert.deepEqual(parseTextBody('[{"client":"local","fun":"test.ping","tgt":"*"}]'), [{ client: 'local', fun: 'test.ping', tgt: '*' }]);
    assert.equal(parseTextBody('not json'), 'not json');
    assert.equal(parseTextBody(''), '');
    code(() => parseTextBody('{"__proto__": {"x": 1}}'), 'API_BAD_REQUEST');
    const f = Fastify();
    await registerBodyParsers(f);
    f.post('/echo', async (req) => ({ body: req.body }));
    await f.ready();
    const r = await f.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'text/plain;charset=UTF-8' }, payload: '{"username":"u"}' });
    assert.deepEqual(JSON.parse(r.body), { body: { username: 'u' } });
    await f.close();
  });
});
