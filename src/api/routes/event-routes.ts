// GET /events: the master's event bus as server-sent events in salt-api's format
// (`tag: <tag>` and `data: {"tag": ..., "data": {...}}` lines); a client that does not read is
// dropped once its buffer passes a bound (threats.md #27). The whole bus needs '@events';
// other users see what their ACL reaches (event-visibility.ts, threats.md #48), and a stream
// ends when its token stops being valid (revoked, user removed, expired). POST
// <webhook_url>/<path> (off unless webhook_url is set) turns a request body into an event.

import type { FastifyInstance } from 'fastify';
import type { SaltEvent } from '../../protocol/index.js';
import { BrineError, isBrineError } from '../../util/errors.js';
import type { ApiOptions } from '../api-options.js';
import { principalOf } from '../auth-hook.js';
import type { ApiBackend } from '../backend.js';
import { respond } from '../media.js';
import { checkedHookPath } from '../hook-path.js';
import { EventVisibility } from '../event-visibility.js';
import { mayView } from '../fleet-views.js';

/** Bytes an SSE client may leave unread before it is disconnected. */
const MAX_UNREAD = 4 * 1024 * 1024;
const KEEPALIVE_MS = 15_000;
/** Open streams allowed per user and in all: each holds a socket, a subscription and buffers. */
export const MAX_STREAMS_PER_USER = 8;
export const MAX_STREAMS = 64;
/** Events of a filtered stream waiting for their ACL decision; past it the stream is dropped. */
const MAX_UNDECIDED = 10_000;
/** How often an open stream's token is checked again. */
const RECHECK_TOKEN_MS = 5_000;

/** Headers that carry credentials: never put on the bus (Salt's hook event has them all). */
const SECRET_HEADERS = new Set(['x-auth-token', 'authorization', 'cookie', 'proxy-authorization']);

/**
 * What Salt's hook event adds to the parsed body: the body as text and the request's headers,
 * named as CherryPy names them (`Content-Type`), credentials left out.
 */
function hookRequestMeta(body: unknown, headers: Record<string, string | string[] | undefined>): { raw: string; headers: Record<string, string> } {
  const named: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || SECRET_HEADERS.has(name)) continue;
    const title = name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
    named[title] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { raw: typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body), headers: named };
}

export interface EventStreams {
  closeAll(): void;
  readonly open: number;
}

export function registerEventRoutes(app: FastifyInstance, backend: ApiBackend, opts: ApiOptions): EventStreams {
  const streams = new Set<() => void>();
  const perUser = new Map<string, number>();

  app.get('/events', (req, reply) => {
    const who = principalOf(req);
    const mine = perUser.get(who.user) ?? 0;
    if (mine >= MAX_STREAMS_PER_USER || streams.size >= MAX_STREAMS) {
      const which = mine >= MAX_STREAMS_PER_USER ? `${who.user} has ${mine} open (at most ${MAX_STREAMS_PER_USER} per user)` : `${streams.size} are open (at most ${MAX_STREAMS})`;
      backend.logger.warn({ user: who.user, source: req.ip }, `refused an /events stream for ${who.user} from ${req.ip}: ${which}`);
      throw new BrineError('API_STREAMS_LIMIT', `too many /events streams: ${which}; close the ones you no longer read`);
    }
    perUser.set(who.user, mine + 1);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write('retry: 400\n\n');
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      const left = (perUser.get(who.user) ?? 1) - 1;
      if (left > 0) perUser.set(who.user, left);
      else perUser.delete(who.user);
      sub.dispose();
      clearInterval(keepalive);
      streams.delete(close);
      res.end();
    };
    const drop = (why: string) => {
      backend.logger.warn({ user: who.user, source: req.ip }, `dropping the /events stream of ${who.user} from ${req.ip}: ${why}`);
      close();
      req.raw.socket.destroy();
    };
    const send = ({ tag, data }: SaltEvent) => {
      if (closed) return;
      if (res.writableLength > MAX_UNREAD) return drop(`it does not read (more than ${MAX_UNREAD} bytes unread)`);
      // JSON keeps every line break inside the one data: line
      res.write(`tag: ${tag.replace(/[\r\n]/g, ' ')}\ndata: ${JSON.stringify({ tag, data })}\n\n`);
    };
    // undefined: the user may see the whole bus; otherwise each event is decided, in order
    const visibility = mayView(backend, who, 'events') ? undefined : new EventVisibility(backend, who);
    let decided: Promise<void> = Promise.resolve();
    let undecided = 0;
    let tokenCheckedAt = backend.clock.monotonic();
    const sub = backend.subscribe((event) => {
      if (closed) return;
      if (backend.clock.monotonic() - tokenCheckedAt >= RECHECK_TOKEN_MS) {
        tokenCheckedAt = backend.clock.monotonic();
        try {
          backend.auth.session(who.token, req.ip);
        } catch (err) {
          return drop(`its token is no longer valid (${isBrineError(err) ? err.code : 'error'})`);
        }
      }
      if (!visibility) return send(event);
      if (++undecided > MAX_UNDECIDED) return drop(`more than ${MAX_UNDECIDED} events wait for their ACL decision`);
      decided = decided.then(async () => {
        const shown = await visibility.view(event);
        undecided--;
        if (shown) send(shown);
      });
    });
    const keepalive = setInterval(() => {
      if (!closed) res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    keepalive.unref();
    streams.add(close);
    req.raw.on('close', close);
    res.on('error', close);
  });

  if (opts.webhookUrl) {
    const prefix = opts.webhookUrl;
    app.post(`${prefix}/*`, async (req, reply) => {
      const who = principalOf(req);
      const path = (req.params as Record<string, string>)['*'] ?? '';
      await backend.emitHook(checkedHookPath(path), who.user, req.body ?? null, hookRequestMeta(req.body, req.headers));
      return respond(req, reply, { return: [{ success: true }], success: true });
    });
  }

  return {
    closeAll: () => {
      for (const close of [...streams]) close();
    },
    get open() {
      return streams.size;
    },
  };
}
