// The web view (issue 11 point 3): static HTML/CSS/JS shipped in the package, served at /ui by the
// API server. The files are read once from ./static (copied beside the compiled module by
// scripts/copy-ui-assets.mjs) into an allow-list: a request names a file of that list or gets a
// 404, never a path. Every response carries a strict CSP (no inline script, same-origin fetches
// only), X-Frame-Options DENY and nosniff. The page talks to the API with X-Auth-Token and
// X-Requested-With (docs/web-view.md); nothing here authenticates, the files hold no data.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Content types by extension; anything else in the folder is not served. */
const TYPES = new Map<string, string>([
  ['.html', 'text/html; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
]);

/** 'self' only: no inline script or style, no eval, no framing, no form posts anywhere. */
export const UI_CSP = ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'", "form-action 'none'", "frame-ancestors 'none'", "base-uri 'none'"].join(
  '; ',
);

export const UI_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': UI_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-cache',
};

interface Asset {
  type: string;
  body: Buffer;
}

/** The folder holding index.html and the rest: ./static beside this module (src or dist). */
export function uiAssetDir(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'static');
}

/** Reads the shipped files into name -> asset; a missing index.html is a broken install. */
export function loadUiAssets(dir = uiAssetDir()): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of fs.readdirSync(dir)) {
    const type = TYPES.get(path.extname(name));
    if (type === undefined || !/^[a-z0-9][a-z0-9.-]*$/.test(name)) continue;
    assets.set(name, { type, body: fs.readFileSync(path.join(dir, name)) });
  }
  if (!assets.has('index.html')) throw new Error(`web view files are missing: no index.html in ${dir} (rebuild with npm run build)`);
  return assets;
}

function send(reply: FastifyReply, asset: Asset): FastifyReply {
  return reply.headers(UI_HEADERS).type(asset.type).send(asset.body);
}

export function registerUi(app: FastifyInstance): void {
  const assets = loadUiAssets();
  const index = assets.get('index.html')!;
  app.get('/ui', (_req, reply) => reply.headers(UI_HEADERS).redirect('/ui/', 302));
  app.get<{ Params: { '*': string } }>('/ui/*', (req, reply) => {
    const name = req.params['*'];
    if (name === '' || name === 'index.html') return send(reply, index);
    const asset = assets.get(name);
    if (asset === undefined) return reply.headers(UI_HEADERS).code(404).type('text/plain; charset=utf-8').send(`no such web view file: ${name}\n`);
    return send(reply, asset);
  });
}
