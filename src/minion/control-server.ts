// The minion's local control socket, `<sock_dir>/minion.sock` (mode 0600): how `brine doctor`
// sees the running daemon's own view (links, RTT, return queue), how `brine call` without
// --local runs a function through the daemon's master session (control-call.ts), and how
// event.fire in a brine call of its own reaches the daemon's bus (fire_event).

import * as path from 'node:path';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { printable } from '../util/printable.js';
import { MINION_CONTROL_REQUESTS, type MinionCallReply, type MinionCallRequest, type MinionControlReply, type MinionControlRequest, type MinionStatus } from '../protocol/index.js';
import type { FramedSocket } from '../transport/framed-socket.js';
import { listenUnix, type UnixListener, type UnixPeer } from '../transport/unix.js';

export const MINION_SOCKET_FILE = 'minion.sock';

export function minionSocketPath(opts: { sock_dir: string }): string {
  return path.join(opts.sock_dir, MINION_SOCKET_FILE);
}

type Channel = FramedSocket<MinionControlRequest, MinionControlReply>;

export interface MinionControlDeps {
  logger: Logger;
  status(): MinionStatus;
  /** Runs `brine call`'s function as a local job; `cancelled` aborts when the caller goes away. */
  call(req: MinionCallRequest, cancelled: AbortSignal): Promise<MinionCallReply>;
  /** Fires an event on the daemon's own bus (event.fire from another process). */
  fire(tag: string, data: Record<string, unknown>): void;
  /** The daemon's uid; with root, the only peer allowed to run functions. Default: this process's at the time of the request. */
  uid?: number;
}

/**
 * Who may run a function through the daemon: root and the minion's own user, by the kernel's
 * peer credentials (the socket's mode says the same; this holds even if sock_dir is shared).
 */
export function mayCall(peer: UnixPeer, daemonUid: number): boolean {
  return !('error' in peer) && (peer.uid === 0 || peer.uid === daemonUid);
}

export async function startMinionControl(socketPath: string, deps: MinionControlDeps): Promise<UnixListener> {
  // read at each request: the daemon opens the socket as root and then switches to `user:`
  const daemonUid = (): number => deps.uid ?? process.getuid?.() ?? 0;
  const reply = (channel: Channel, m: MinionControlReply): void => {
    channel.send(m);
    channel.close('shutdown');
  };
  const handlers = new Map<string, (req: MinionControlRequest, channel: Channel, peer: UnixPeer) => void | Promise<void>>([
    ['minion_status', (_req, channel) => reply(channel, deps.status())],
    [
      'fire_event',
      (req, channel, peer) => {
        if (req.t !== 'fire_event') return;
        const uid = daemonUid();
        // the daemon's bus runs its reactor's reactions: the same people as brine call
        if (!mayCall(peer, uid)) throw new BrineError('CONTROL_DENIED', `only root and the minion's user (uid ${uid}) may fire events on the minion's bus (event.fire)`);
        deps.fire(req.tag, { ...req.data });
        reply(channel, { t: 'event_fired', tag: req.tag });
      },
    ],
    [
      'minion_call',
      async (req, channel, peer) => {
        // the map's key says so; the check narrows the type
        if (req.t !== 'minion_call') return;
        const uid = daemonUid();
        if (!mayCall(peer, uid)) throw new BrineError('CONTROL_DENIED', `only root and the minion's user (uid ${uid}) may run functions through the minion (brine call)`);
        // who ran what through the daemon: salt-call leaves no trace on a minion, this does
        if (!('error' in peer)) deps.logger.info({ fun: req.fun, uid: peer.uid, pid: peer.pid }, `brine call ${printable(req.fun)} from local uid ${peer.uid} (pid ${peer.pid})`);
        const cancelled = new AbortController();
        channel.onClose(() => cancelled.abort());
        reply(channel, await deps.call(req, cancelled.signal));
      },
    ],
  ]);
  const failed = (channel: Channel, err: unknown): void => {
    const e = toBrineError(err);
    if (e.code === 'INTERNAL') deps.logger.error({ err: e }, 'minion control request failed');
    reply(channel, { t: 'error', code: e.code, message: e.message });
  };
  return listenUnix<MinionControlRequest, MinionControlReply>(socketPath, MINION_CONTROL_REQUESTS, (channel, peer) => {
    channel.onMessage((req) => {
      try {
        const handler = handlers.get(req.t);
        if (!handler) throw new BrineError('UNKNOWN_METHOD', `unknown minion control operation "${req.t}"`);
        const done = handler(req, channel, peer);
        if (done) done.catch((err: unknown) => failed(channel, err));
      } catch (err) {
        failed(channel, err);
      }
    });
  });
}
