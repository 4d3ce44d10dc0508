// The ApiBackend of `brine api` (the REST API as its own process): what needs the running
// master goes over its control socket, one connection per request (so the API recovers by
// itself once a stopped master is back); keys, the job cache and cached grains are read from
// the files `brine key` and `brine jobs` read. While the master is down those requests fail
// with MASTER_UNREACHABLE (503); the rest keeps working.

import type { ApiBackend, ApiJobSink } from '../../api/index.js';
import type { Authenticator } from '../../auth/index.js';
import type { JobCache } from '../../jobs/index.js';
import type { KeyStore } from '../../pki/index.js';
import type {
  ActiveJidsReply,
  ControlReply,
  ControlRequest,
  EventFired,
  HookEmitted,
  KeysReconciled,
  Matched,
  MetricsReply,
  Published,
  ReactionsReply,
  RunnerRet,
  SessionsReply,
} from '../../protocol/index.js';
import type { Clock } from '../../util/clock.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { openControl, type ControlConnection } from '../control-client.js';
import { EventRelay } from './event-relay.js';

export interface RemoteBackendDeps {
  socketPath: string;
  logger: Logger;
  clock: Clock;
  auth: Authenticator;
  keys: KeyStore;
  masterFingerprint: string;
  cache: JobCache;
  /** The master's options as this process loaded them (wheel config.values). */
  options: Record<string, unknown>;
}

export interface RemoteBackend extends ApiBackend {
  events: EventRelay;
  /** Closes every control connection still open (jobs waited for, the event stream). */
  close(): void;
}

const codeOf = (code: string) => (isErrorCode(code) ? code : 'INTERNAL');

/** One request, one reply. */
async function ask<R extends ControlReply>(socketPath: string, request: ControlRequest, expect: R['t']): Promise<R> {
  const conn = await openControl(socketPath);
  return new Promise<R>((resolve, reject) => {
    let answered = false;
    conn.onMessage((m) => {
      answered = true;
      if (m.t === 'error') reject(new BrineError(codeOf(m.code), m.message));
      else if (m.t === expect) resolve(m as R);
      else reject(new BrineError('INTERNAL', `the master answered ${request.t} with ${m.t}`));
      conn.close('shutdown');
    });
    conn.onClose((info) => {
      if (!answered) reject(new BrineError('MASTER_UNREACHABLE', `the master closed the control connection before answering ${request.t} (${info.reason}); is it restarting?`));
    });
    conn.send(request);
  });
}

interface Watch {
  conn: ControlConnection;
  published: boolean;
  /** unsubscribe came before `published`: close once it arrives. */
  leave: boolean;
}

export function createRemoteBackend(d: RemoteBackendDeps): RemoteBackend {
  const startedAt = d.clock.now();
  const sock = d.socketPath;
  const events = new EventRelay(sock, d.clock, d.logger);
  const watches = new Map<ApiJobSink, Set<Watch>>();
  let requests = 0;

  const forget = (sink: ApiJobSink, w: Watch) => {
    const set = watches.get(sink);
    set?.delete(w);
    if (set?.size === 0) watches.delete(sink);
  };

  const publish = async (req: Parameters<ApiBackend['publish']>[0], sink: ApiJobSink): Promise<Published> => {
    const conn = await openControl(sock);
    const w: Watch = { conn, published: false, leave: false };
    const set = watches.get(sink) ?? new Set<Watch>();
    set.add(w);
    watches.set(sink, set);
    return new Promise<Published>((resolve, reject) => {
      let jid = '';
      let done = false;
      conn.onMessage((m) => {
        switch (m.t) {
          case 'published':
            w.published = true;
            jid = m.jid;
            resolve(m);
            if (w.leave) conn.close('shutdown');
            return;
          case 'ret':
            if (!w.leave) sink.onReturn(m);
            return;
          case 'done':
            done = true;
            if (!w.leave) sink.onDone(m);
            conn.close('shutdown');
            return;
          case 'error':
            done = true;
            reject(new BrineError(codeOf(m.code), m.message));
            return;
          default:
            return;
        }
      });
      conn.onClose((info) => {
        forget(sink, w);
        if (!w.published) {
          reject(new BrineError('MASTER_UNREACHABLE', `the master closed the control connection before publishing (${info.reason}); is it restarting?`));
        } else if (!done && !w.leave) {
          // the master went away mid-job: the wait ends with what has returned
          d.logger.warn({ jid }, `the master went away while the API waited for job ${jid}; answering with the returns so far`);
          sink.onDone({ t: 'done', jid, noResponse: [] });
        }
      });
      // the job is recorded under the API user, not this process's account
      conn.send({ ...req, ...(req.user ? { apiUser: req.user } : {}) });
    });
  };

  return {
    logger: d.logger,
    clock: d.clock,
    auth: d.auth,
    keys: d.keys,
    masterFingerprint: d.masterFingerprint,
    events,
    publish,
    unsubscribe: (sink) => {
      for (const w of watches.get(sink) ?? []) {
        w.leave = true;
        if (w.published) w.conn.close('shutdown');
      }
    },
    activeJids: async () => (await ask<ActiveJidsReply>(sock, { t: 'active_jids' }, 'active_jids')).jids,
    jobs: d.cache,
    presence: async () => (await ask<SessionsReply>(sock, { t: 'sessions' }, 'sessions')).sessions,
    grainsOf: (id) => {
      // grains sent under a key that is no longer the accepted one are never inherited
      const rec = d.cache.getMinionData(id);
      return rec !== undefined && rec.fingerprint === d.keys.fingerprintOf('accepted', id) ? rec.grains : undefined;
    },
    matchTarget: async (tgt, tgtType, within) => {
      const m = await ask<Matched>(sock, { t: 'match', tgt, tgtType, ...(within === undefined ? {} : { within: [...within] }) }, 'matched');
      return { matched: m.matched, missing: m.missing };
    },
    subscribe: (fn) => events.subscribe(fn),
    emitHook: async (path, user, body, meta) => {
      await ask<HookEmitted>(sock, { t: 'emit_hook', path, user, body: body as never, ...(meta ? { raw: meta.raw, headers: meta.headers } : {}) }, 'hook_emitted');
    },
    // runners run in the master (its bus, file server, job cache): the same answer as its own API's
    runner: async (req) => {
      const r = await ask<RunnerRet>(
        sock,
        { t: 'runner', fun: req.fun, arg: req.arg as never, kwarg: req.kwarg as never, apiUser: req.user, ...(req.async === undefined ? {} : { async: req.async }) },
        'runner_ret',
      );
      if (!r.done) return { jid: r.jid, done: false };
      return { jid: r.jid, done: true, return: r.return, success: r.success ?? false, retcode: r.retcode ?? 1, ...(r.error ? { error: r.error } : {}) };
    },
    // the reactor runs in the master: its recent reactions come over the control socket (GET /reactions)
    reactions: async (limit) => (await ask<ReactionsReply>(sock, { t: 'reactions', limit }, 'reactions')).reactions,
    fire: async (tag, data) => {
      await ask<EventFired>(sock, { t: 'fire_event', tag, data: data as never }, 'event_fired');
    },
    masterOptions: () => ({ ...d.options }),
    reconcileKeys: async (changes) => (await ask<KeysReconciled>(sock, { t: 'keys_changed', ...(changes && changes.length > 0 ? { changes: [...changes] } : {}) }, 'keys_reconciled')).closed,
    metrics: {
      render: async () => {
        const m = await ask<MetricsReply>(sock, { t: 'metrics' }, 'metrics');
        return { text: m.text, contentType: m.contentType };
      },
      // the master's registry counts its own API's requests; this process keeps only a total for /stats
      countRequest: () => {
        requests++;
      },
    },
    stats: async () => {
      const [presence, jids] = await Promise.all([ask<SessionsReply>(sock, { t: 'sessions' }, 'sessions'), ask<ActiveJidsReply>(sock, { t: 'active_jids' }, 'active_jids')]);
      return {
        uptime_s: Math.round((d.clock.now() - startedAt) / 1000),
        minions_connected: presence.sessions.filter((s) => s.state === 'connected').length,
        minions_known: presence.sessions.length,
        jobs_active: jids.jids.length,
        api_requests: requests,
        master_events_stream: events.connected,
      };
    },
    close: () => {
      events.stop();
      for (const set of watches.values()) for (const w of set) w.conn.close('shutdown');
      watches.clear();
    },
  };
}
