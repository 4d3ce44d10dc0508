// event.fire from a `brine call` of its own (masterless, or --local): the event goes to the
// running minion daemon's bus over its control socket (fire_event), as salt-call's event.fire
// writes to the minion's IPC socket, so the daemon's reactor and listeners hear it. No daemon:
// false, as Salt's fire_event answers when it cannot connect; the caller says why.

import type { MinionOptions } from '../config/index.js';
import { MINION_CONTROL_REPLIES, type MinionControlReply, type MinionControlRequest } from '../protocol/index.js';
import { connectUnix } from '../transport/unix.js';
import { BrineError, isErrorCode } from '../util/errors.js';
import { minionSocketPath } from './control-server.js';

const CONNECT_TIMEOUT_MS = 5000;

export type BusFire = { fired: true } | { fired: false; why: string };

export async function fireOnMinionBus(opts: Pick<MinionOptions, 'sock_dir'>, tag: string, data: Record<string, unknown>): Promise<BusFire> {
  const socket = minionSocketPath(opts);
  let channel: Awaited<ReturnType<typeof connectUnix<MinionControlReply, MinionControlRequest>>>;
  try {
    channel = await connectUnix<MinionControlReply, MinionControlRequest>(socket, MINION_CONTROL_REPLIES, CONNECT_TIMEOUT_MS);
  } catch (err) {
    const errno = ((err as { cause?: NodeJS.ErrnoException }).cause as NodeJS.ErrnoException | undefined)?.code ?? (err as NodeJS.ErrnoException).code;
    return { fired: false, why: `no minion daemon answers on ${socket} (${errno ?? 'no answer'}): start it ('brine minion') for its reactor to hear event.fire, or check sock_dir` };
  }
  return new Promise<BusFire>((resolve, reject) => {
    channel.onMessage((m) => {
      if (m.t === 'event_fired') resolve({ fired: true });
      else if (m.t === 'error') reject(new BrineError(isErrorCode(m.code) ? m.code : 'EVENT_REFUSED', m.message));
      else reject(new BrineError('MESSAGE_UNEXPECTED', `the minion daemon answered fire_event with '${m.t}'`));
      channel.close('shutdown');
    });
    // after an answer this does nothing (a promise settles once)
    channel.onClose((info) => resolve({ fired: false, why: `the minion daemon closed ${socket} without an answer (${info.reason}); see its log` }));
    channel.send({ t: 'fire_event', tag, data });
  });
}
