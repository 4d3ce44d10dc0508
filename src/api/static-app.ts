// rest_cherrypy's `app` and `static` (issue 25 point 9): a third-party front end served from the
// API's own origin, so its calls to /login, / and /events are same-origin. `app` (one HTML file)
// answers at app_path and every path under it (an HTML5-history single-page app); `static` (a
// directory) answers under static_path. Files are read at request time, as CherryPy does, so a
// front end can be updated without a restart. A request path is checked segment by segment and
// then resolved through symlinks: nothing outside the directory is ever opened (threats.md #8),
// a directory is never listed, and hidden files (.git, .env) are not served. Both are public, as
// in salt-api: the files hold no data, every API call they make needs a token.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BrineError, errorMessage } from '../util/errors.js';
import type { ApiOptions } from './api-options.js';
import { errorBody, statusOf } from './http-errors.js';
import { respond } from './media.js';

/** Content types by extension (CherryPy's come from Python's mimetypes); others are octet-stream. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/vnd.microsoft.icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/**
 * The API's headers for front-end files: no MIME sniffing, no framing by another site, no
 * referrer leaking a token in a URL. No script policy: the front end is the operator's own code
 * (salt-api sets none either); brine's /ui keeps its strict CSP.
 */
export const STATIC_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'content-security-policy': "frame-ancestors 'self'",
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-cache',
};

export function contentTypeOf(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

const refused = (why: string) => new BrineError('API_STATIC_REFUSED', why);

/**
 * Pure: the relative path a request names under static_path, or the reason it is refused. The
 * router has already percent-decoded it once; a second encoding (%252e) stays literal and names
 * a file that does not exist.
 */
export function staticRelative(requested: string): string {
  if (requested.includes('\0') || requested.includes('\\')) throw refused('a static file path may not contain a backslash or NUL');
  const parts = requested.split('/').filter((p) => p !== '');
  for (const p of parts) {
    if (p === '..' || p === '.') throw refused(`a static file path may not contain '${p}' segments`);
    if (p.startsWith('.')) throw refused(`hidden files and directories ('${p.slice(0, 64)}') are not served`);
  }
  return parts.join('/');
}

/** The real path of a regular file inside root (root itself resolved), or undefined when there is none. */
export function resolveInside(root: string, rel: string): string | undefined {
  let realRoot: string;
  let real: string;
  try {
    // the directory itself may have gone since the start: then nothing is there to serve
    realRoot = fs.realpathSync(root);
    real = fs.realpathSync(path.join(realRoot, rel));
  } catch {
    return undefined;
  }
  if (real !== realRoot && !real.startsWith(`${realRoot}${path.sep}`)) throw refused('the path leads out of the static directory through a symlink');
  return isFile(real) ? real : undefined;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function notFound(req: FastifyRequest, reply: FastifyReply, what: string): FastifyReply {
  const e = new BrineError('API_NOT_FOUND', `no static file ${what.slice(0, 200)}; see docs/api.md (rest_cherrypy static)`);
  return respond(req, reply.headers(STATIC_HEADERS), errorBody(e), statusOf(e));
}

/** Sends a file with its type and Last-Modified; 304 when the client's copy is current. */
function sendFile(req: FastifyRequest, reply: FastifyReply, file: string): FastifyReply {
  const st = fs.statSync(file);
  const modified = new Date(Math.floor(st.mtimeMs / 1000) * 1000);
  reply.headers(STATIC_HEADERS).header('last-modified', modified.toUTCString());
  const since = Date.parse(String(req.headers['if-modified-since'] ?? ''));
  if (Number.isFinite(since) && modified.getTime() <= since) return reply.code(304).send();
  return reply.type(contentTypeOf(file)).header('content-length', String(st.size)).send(fs.createReadStream(file));
}

/** `app` must be a readable file, `static` a directory: said at start, not at the first visitor. */
function checkConfigured(opts: ApiOptions): void {
  const check = (key: 'app' | 'static', want: 'file' | 'directory', p: string | undefined) => {
    if (p === undefined) return;
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch (err) {
      throw new BrineError('CONFIG_VALUE', `${opts.section}: ${key} ${p} cannot be read: ${errorMessage(err)}`, { cause: err });
    }
    if (want === 'file' ? !st.isFile() : !st.isDirectory()) throw new BrineError('CONFIG_VALUE', `${opts.section}: ${key} ${p} is not a ${want}`);
  };
  check('app', 'file', opts.app);
  check('static', 'directory', opts.static);
}

export function registerStaticApp(app: FastifyInstance, opts: ApiOptions): void {
  checkConfigured(opts);
  const cfg = { config: { public: true } };
  const appFile = opts.app;
  if (appFile !== undefined) {
    // Salt's App.GET ignores the rest of the path: /app, /app/ and /app/minions/web1 all get the page
    const serveApp = (req: FastifyRequest, reply: FastifyReply) => {
      if (!isFile(appFile)) return notFound(req, reply, opts.appPath);
      return sendFile(req, reply, appFile);
    };
    app.get(opts.appPath, cfg, serveApp);
    app.get(`${opts.appPath}/*`, cfg, serveApp);
  }
  const root = opts.static;
  if (root !== undefined) {
    app.get<{ Params: { '*': string } }>(`${opts.staticPath}/*`, cfg, (req, reply) => {
      const rel = staticRelative(req.params['*']);
      const file = rel === '' ? undefined : resolveInside(root, rel);
      if (file === undefined) return notFound(req, reply, `${opts.staticPath}/${rel}`);
      return sendFile(req, reply, file);
    });
  }
}

/**
 * salt-api's html_override: with `app` set, a browser navigating to another API path (Accept
 * naming text/html) gets the app, so a deep link into an HTML5-history front end loads it.
 * Narrower than salt-api's on purpose: GET/HEAD only, text/html named explicitly (an API client
 * sending `*\/*` or nothing keeps getting data), and never for /ui, static_path or the hooks.
 */
export function wantsAppPage(req: FastifyRequest, opts: ApiOptions): boolean {
  if (opts.app === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const url = req.url.split('?')[0]!;
  const under = (prefix: string) => url === prefix || url.startsWith(`${prefix}/`);
  if (under(opts.appPath) || under(opts.staticPath) || under('/ui') || (opts.webhookUrl !== undefined && under(opts.webhookUrl))) return false;
  return String(req.headers.accept ?? '')
    .split(',')
    .some((part) => {
      const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      return type === 'text/html' && !params.some((p) => /^q=0(\.0*)?$/.test(p));
    });
}

/** Runs before the authentication hook, as salt-api's html_override runs before its auth tool. */
export function installAppOverride(app: FastifyInstance, opts: ApiOptions): void {
  const appFile = opts.app;
  if (appFile === undefined) return;
  app.addHook('onRequest', async (req, reply) => {
    if (!wantsAppPage(req, opts) || !isFile(appFile)) return;
    sendFile(req, reply, appFile);
    return reply;
  });
}
