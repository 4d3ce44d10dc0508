// The minion's local control socket, `<sock_dir>/minion.sock` (mode 0600): how `brine doctor`
// sees the running daemon's own view (links, RTT, return queue). One read-only operation.

import * as path from 'node:path';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { MINION_CONTROL_REQUESTS, type MinionControlReply, type MinionControlRequest, type MinionStatus } from '../protocol/index.js';
import { listenUnix, type FramedSocket, type UnixListener } from '../transport/index.js';

export const MINION_SOCKET_FILE = 'minion.sock';

export function minionSocketPath(opts: { sock_dir: string }): string {
  return path.join(opts.sock_dir, MINION_SOCKET_FILE);
}

type Channel = FramedSocket<MinionControlRequest, MinionControlReply>;

export interface MinionControlDeps {
  logger: Logger;
  status(): MinionStatus;
}

export async function startMinionControl(socketPath: string, deps: MinionControlDeps): Promise<UnixListener> {
  const handlers = new Map<string, (req: MinionControlRequest, channel: Channel) => void>([
    [
      'minion_status',
      (_req, channel) => {
        channel.send(deps.status());
        channel.close('shutdown');
      },
    ],
  ]);
  return listenUnix<MinionControlRequest, MinionControlReply>(socketPath, MINION_CONTROL_REQUESTS, (channel) => {
    channel.onMessage((req) => {
      try {
        const handler = handlers.get(req.t);
        if (!handler) throw new BrineError('UNKNOWN_METHOD', `unknown minion control operation "${req.t}"`);
        handler(req, channel);
      } catch (err) {
        const e = toBrineError(err);
        if (e.code === 'INTERNAL') deps.logger.error({ err: e }, 'minion control request failed');
        channel.send({ t: 'error', code: e.code, message: e.message });
        channel.close('shutdown');
      }
    });
  });
}
