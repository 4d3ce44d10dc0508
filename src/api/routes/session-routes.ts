// GET / (the index), POST /login and POST /logout, in salt-api's shapes.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BrineError } from '../../util/errors.js';
import type { ApiOptions } from '../api-options.js';
import { principalOf, SESSION_COOKIE } from '../auth-hook.js';
import type { ApiBackend } from '../backend.js';
import { CLIENTS, textBodyHint } from '../lowstate.js';
import { respond } from '../media.js';

function field(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const v = (body as Record<string, unknown>)[name];
  // a form field given twice is a list; only one value counts
  return Array.isArray(v) ? undefined : v;
}

function cookie(value: string, maxAgeS: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`;
}

export function registerSessionRoutes(app: FastifyInstance, backend: ApiBackend, opts: ApiOptions): void {
  const secure = !opts.disableSsl;

  app.get('/', { config: { public: true } }, (req, reply) => respond(req, reply, { return: 'Welcome', clients: [...CLIENTS] }));

  app.post('/login', { config: { public: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.body === undefined || req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      throw new BrineError('API_BAD_REQUEST', `POST /login takes username, password and eauth as JSON (also sent as text/plain), a form or YAML${textBodyHint(req.body)}`);
    }
    const res = await backend.auth.login(field(req.body, 'username'), field(req.body, 'password'), field(req.body, 'eauth'), req.ip);
    reply.header('x-auth-token', res.token);
    reply.header('set-cookie', cookie(res.token, Math.max(0, Math.floor(res.expire - res.start)), secure));
    return respond(req, reply, { return: [{ token: res.token, expire: res.expire, start: res.start, user: res.user, eauth: res.eauth, perms: res.perms }] });
  });

  app.post('/logout', (req, reply) => {
    const who = principalOf(req);
    backend.auth.logout(who.token);
    backend.logger.info({ user: who.user, source: req.ip }, `API logout of ${who.user}`);
    reply.header('set-cookie', cookie('', 0, secure));
    return respond(req, reply, { return: 'Your token has been cleared' });
  });
}
