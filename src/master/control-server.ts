// The master's control socket: the CLI's only way in. Requests are dispatched through an
// explicit Map of operations; anything else is answered with UNKNOWN_METHOD.

import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { CONTROL_REQUESTS, type ControlReply, type ControlRequest, type EventsRequest, type KeysChangedRequest, type PublishRequest, type SessionsRequest } from '../protocol/index.js';
import { listenUnix, type FramedSocket, type UnixListener } from '../transport/index.js';
import type { JobSink, JobTracker } from './job-tracker.js';
import type { EventBus } from './event-bus.js';
import type { SessionInfo } from '../protocol/index.js';

type ControlChannel = FramedSocket<ControlRequest, ControlReply>;

export interface ControlDeps {
  logger: Logger;
  jobs: JobTracker;
  /** Every accepted minion with its presence, connected or not. */
  presence(): SessionInfo[];
  events: EventBus;
  /** Closes sessions whose key is no longer accepted; returns their IDs. */
  reconcileKeys(): string[];
}

type Handler<R> = (req: R, channel: ControlChannel) => void;

export async function startControlServer(socketPath: string, deps: ControlDeps): Promise<UnixListener> {
  const handlers = new Map<string, Handler<never>>();
  const on = <R extends ControlRequest>(name: R['t'], fn: Handler<R>) => handlers.set(name, fn as Handler<never>);

  on<PublishRequest>('publish', (req, channel) => {
    const sink: JobSink = {
      onReturn: (ret) => channel.send(ret),
      onDone: (done) => {
        channel.send(done);
        channel.close('shutdown');
      },
    };
    channel.onClose(() => deps.jobs.unsubscribe(sink));
    channel.send(deps.jobs.publish(req, sink));
  });

  on<SessionsRequest>('sessions', (_req, channel) => {
    channel.send({ t: 'sessions', sessions: deps.presence() });
    channel.close('shutdown');
  });

  on<KeysChangedRequest>('keys_changed', (_req, channel) => {
    channel.send({ t: 'keys_reconciled', closed: deps.reconcileKeys() });
    channel.close('shutdown');
  });

  on<EventsRequest>('events', (req, channel) => {
    const sub = deps.events.subscribe((tag, event) => {
      if (!channel.send({ t: 'event', tag, event })) sub.dispose();
    }, req.kinds);
    channel.onClose(() => sub.dispose());
  });

  return listenUnix<ControlRequest, ControlReply>(socketPath, CONTROL_REQUESTS, (channel) => {
    channel.onMessage((req) => {
      const handler = handlers.get(req.t) as Handler<ControlRequest> | undefined;
      try {
        if (!handler) throw new BrineError('UNKNOWN_METHOD', `unknown control operation "${req.t}"`);
        handler(req, channel);
      } catch (err) {
        const e = toBrineError(err);
        if (e.code === 'INTERNAL') deps.logger.error({ err: e }, 'control request failed');
        channel.send({ t: 'error', code: e.code, message: e.message });
        channel.close('shutdown');
      }
    });
  });
}
