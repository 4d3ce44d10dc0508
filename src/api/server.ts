// The REST API server (salt-api's rest_cherrypy shapes) on fastify: HTTPS by default with the
// master's key and certificate (or ssl_crt/ssl_key), bounded bodies, header and body deadlines
// for slow clients, one authentication hook for every route, and brine's coded errors.
// An HTTP server is an exception to "only src/transport touches sockets" (docs/architecture.md).

import * as http from 'node:http';
import * as https from 'node:https';
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { BrineError, isBrineError, errorMessage } from '../util/errors.js';
import type { ApiOptions } from './api-options.js';
import { installAuthHook } from './auth-hook.js';
import type { ApiBackend } from './backend.js';
import { errorBody, fromFrameworkError, statusOf } from './http-errors.js';
import { registerBodyParsers, respond } from './media.js';
import { registerEventRoutes } from './routes/event-routes.js';
import { registerLowstateRoutes } from './routes/lowstate-routes.js';
import { registerReactionRoutes } from './routes/reaction-routes.js';
import { registerReadRoutes } from './routes/read-routes.js';
import { registerSessionRoutes } from './routes/session-routes.js';
import { registerViewRoutes } from './routes/view-routes.js';
import { installAppOverride, registerStaticApp } from './static-app.js';
import { registerUi } from './ui/index.js';

const MAX_CONNECTIONS = 1024;

export interface ApiServer {
  readonly port: number;
  readonly host: string;
  readonly url: string;
  /** Every route registered (method and URL), for the "each rejects anonymous calls" test. */
  readonly routes: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}

export interface TlsMaterial {
  key: string;
  cert: string;
}

function tlsMaterial(opts: ApiOptions, fallback: TlsMaterial): TlsMaterial {
  if (!opts.sslCrt || !opts.sslKey) return fallback;
  try {
    return { cert: readFileSync(opts.sslCrt, 'utf8'), key: readFileSync(opts.sslKey, 'utf8') };
  } catch (err) {
    throw new BrineError('API_LISTEN_FAILED', `cannot read the API certificate or key (${opts.section} ssl_crt/ssl_key): ${errorMessage(err)}`, { cause: err });
  }
}

/** Builds the fastify app (routes, hooks, parsers) without listening. */
export async function buildApiApp(
  backend: ApiBackend,
  opts: ApiOptions,
  tls: TlsMaterial,
): Promise<{ app: FastifyInstance; closeStreams: () => void; routes: Array<{ method: string; url: string }> }> {
  const timeouts = {
    headersTimeout: opts.headerTimeoutS * 1000,
    requestTimeout: opts.bodyTimeoutS * 1000,
    connectionsCheckingInterval: Math.min(1000, opts.headerTimeoutS * 250),
    keepAliveTimeout: 5000,
    maxHeaderSize: 16 * 1024,
  };
  const material = opts.disableSsl ? undefined : tlsMaterial(opts, tls);
  const app = Fastify({
    logger: false,
    bodyLimit: opts.maxBody,
    routerOptions: { maxParamLength: 512 },
    forceCloseConnections: true,
    return503OnClosing: true,
    requestIdHeader: false,
    trustProxy: false,
    serverFactory: (handler) => {
      let server: http.Server;
      try {
        server = material
          ? https.createServer({ ...timeouts, key: material.key, cert: material.cert, minVersion: 'TLSv1.2', handshakeTimeout: opts.headerTimeoutS * 1000 }, handler)
          : http.createServer(timeouts, handler);
      } catch (err) {
        throw new BrineError('API_LISTEN_FAILED', `the API certificate and key cannot be used: ${errorMessage(err)}`, { cause: err });
      }
      server.headersTimeout = timeouts.headersTimeout;
      server.requestTimeout = timeouts.requestTimeout;
      server.maxHeadersCount = 100;
      // a bound on open connections (slowloris); each is also cut at header_timeout
      server.maxConnections = MAX_CONNECTIONS;
      return server;
    },
  });
  const routes: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push({ method, url: r.url });
  });
  await registerBodyParsers(app);

  app.setErrorHandler((err, req, reply) => {
    const e = fromFrameworkError(err);
    if (e.code === 'INTERNAL') backend.logger.error({ err, url: req.url, method: req.method }, 'API request failed');
    if (e.code === 'LOGIN_THROTTLED') reply.header('retry-after', String(e.details.retryAfterS ?? 60));
    if (e.code === 'TOKEN_MISSING' || e.code === 'TOKEN_INVALID' || e.code === 'TOKEN_EXPIRED' || e.code === 'TOKEN_KEY_CHANGED' || e.code === 'TOKEN_USER_REMOVED')
      reply.header('www-authenticate', 'X-Auth-Token');
    return respond(req, reply, errorBody(e), statusOf(e));
  });
  app.setNotFoundHandler((req, reply) => {
    const e = new BrineError('API_NOT_FOUND', `no endpoint ${req.method} ${req.url.split('?')[0]!.slice(0, 200)}; see docs/api.md`);
    return respond(req, reply, errorBody(e), 404);
  });
  app.addHook('onResponse', async (_req, reply) => {
    backend.metrics.countRequest(reply.statusCode);
  });

  installAppOverride(app, opts);
  installAuthHook(app, backend, opts);
  registerSessionRoutes(app, backend, opts);
  registerLowstateRoutes(app, backend);
  registerReadRoutes(app, backend);
  registerReactionRoutes(app, backend);
  registerViewRoutes(app, backend);
  const streams = registerEventRoutes(app, backend, opts);
  registerUi(app);
  registerStaticApp(app, opts);
  return { app, closeStreams: () => streams.closeAll(), routes };
}

export async function startApiServer(backend: ApiBackend, opts: ApiOptions, tls: TlsMaterial): Promise<ApiServer> {
  const { app, closeStreams, routes } = await buildApiApp(backend, opts, tls);
  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    await app.close().catch(() => {});
    if (isBrineError(err)) throw err;
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? 'the port is in use (EADDRINUSE)' : e.code === 'EACCES' ? 'permission denied (EACCES)' : e.message;
    throw new BrineError('API_LISTEN_FAILED', `cannot serve the API on ${opts.host}:${opts.port} (${opts.section} host/port): ${why}`, { cause: err });
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  const scheme = opts.disableSsl ? 'http' : 'https';
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  let closing: Promise<void> | undefined;
  return {
    port,
    host: opts.host,
    url: `${scheme}://${host}:${port}`,
    routes,
    close: () => {
      closing ??= (async () => {
        closeStreams();
        await app.close();
      })();
      return closing;
    },
  };
}
