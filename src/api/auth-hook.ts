// The one authentication check every API route goes through (threats.md #3): an onRequest hook
// on the whole app, so a route added later is protected without doing anything. Only GET /,
// POST /login, POST /run (credentials inline, checked per chunk) and the /ui static files are
// public. A request authenticated by the session cookie alone that changes anything must also
// carry X-Requested-With: XMLHttpRequest or an allowed Origin (CSRF defence).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/index.js';
import { BrineError } from '../util/errors.js';
import type { ApiOptions } from './api-options.js';
import type { ApiBackend } from './backend.js';

export interface ApiPrincipal extends Principal {
  token: string;
  via: 'header' | 'cookie' | 'query';
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: ApiPrincipal;
  }
  interface FastifyContextConfig {
    /** Served without a token (the route checks credentials itself, or needs none). */
    public?: boolean;
  }
}

export const SESSION_COOKIE = 'session_id';

/** The session_id cookie's value, if the request has one. */
export function sessionCookie(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() !== SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      throw new BrineError('TOKEN_INVALID', 'the session_id cookie is not a token; log in again');
    }
  }
  return undefined;
}

/** The token of a request and how it came; TOKEN_MISSING when there is none. */
export function tokenOf(req: FastifyRequest, allowQuery: boolean): { token: string; via: ApiPrincipal['via'] } {
  const header = req.headers['x-auth-token'];
  if (Array.isArray(header)) throw new BrineError('TOKEN_INVALID', 'send one X-Auth-Token header, not several');
  if (typeof header === 'string') return { token: header, via: 'header' };
  // `Authorization: Bearer <token>` too, for clients that can send no other header (Prometheus
  // 2's scrape config); a browser never sends the Bearer scheme by itself, so no CSRF concern
  const authorization = req.headers.authorization;
  if (typeof authorization === 'string' && /^bearer\s/i.test(authorization)) return { token: authorization.replace(/^bearer\s+/i, '').trim(), via: 'header' };
  const cookie = sessionCookie(req);
  if (cookie !== undefined) return { token: cookie, via: 'cookie' };
  if (allowQuery) {
    const q = (req.query as Record<string, unknown> | undefined)?.token;
    if (typeof q === 'string') return { token: q, via: 'query' };
    if (q !== undefined) throw new BrineError('TOKEN_INVALID', 'give one ?token= parameter');
  }
  throw new BrineError('TOKEN_MISSING', 'no token: log in with POST /login and send the token in the X-Auth-Token header');
}

function ownOrigin(req: FastifyRequest): string {
  return `${req.protocol}://${String(req.headers.host ?? '')}`;
}

/** CSRF defence for cookie sessions: X-Requested-With: XMLHttpRequest, or an Origin allowed. */
export function checkCsrf(req: FastifyRequest, opts: ApiOptions): void {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  if (String(req.headers['x-requested-with'] ?? '').toLowerCase() === 'xmlhttprequest') return;
  const origin = req.headers.origin;
  if (typeof origin === 'string' && (origin === ownOrigin(req) || opts.corsOrigins.includes(origin))) return;
  throw new BrineError(
    'CSRF_REFUSED',
    `a ${req.method} authenticated only by the session cookie needs X-Requested-With: XMLHttpRequest or an allowed Origin${typeof origin === 'string' ? ` (not ${origin.slice(0, 100)})` : ''}; nothing was changed`,
  );
}

function isPublic(req: FastifyRequest): boolean {
  if (req.routeOptions.config?.public === true) return true;
  const url = req.routeOptions.url;
  // the web view's static files (src/api/ui) are public; its API calls are not
  return (req.method === 'GET' || req.method === 'HEAD') && typeof url === 'string' && (url === '/ui' || url.startsWith('/ui/'));
}

export function installAuthHook(app: FastifyInstance, backend: ApiBackend, opts: ApiOptions): void {
  app.addHook('onRequest', async (req) => {
    if (isPublic(req)) return;
    const { token, via } = tokenOf(req, req.method === 'GET' && req.routeOptions.url === '/events');
    const session = backend.auth.session(token, req.ip);
    if (via === 'cookie') checkCsrf(req, opts);
    req.principal = { user: session.user, eauth: session.eauth, groups: session.groups, token, via };
  });
}

/** The principal the hook set; a route that runs without one is a bug, refused all the same. */
export function principalOf(req: FastifyRequest): ApiPrincipal {
  if (!req.principal) throw new BrineError('TOKEN_MISSING', 'no token: log in with POST /login');
  return req.principal;
}
