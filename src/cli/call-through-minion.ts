// `brine call` without --local (salt-call against the master): the function runs as a local job
// of the minion daemon on this host, through its master session, asked over its control socket
// (<sock_dir>/minion.sock). The CLI never opens a session of its own with the minion's key: a
// second session with the same ID would displace the daemon's on the master.

import type { MinionOptions } from '../config/index.js';
import { BrineError, isErrorCode } from '../util/errors.js';
import { MINION_CONTROL_REPLIES, type MinionCallReply, type MinionControlReply, type MinionControlRequest } from '../protocol/index.js';
import { connectUnix, type FramedSocket } from '../transport/index.js';
import { minionSocketPath } from '../minion/control-server.js';

/** How long the daemon may take to accept the connection (it answers at once when running). */
const CONNECT_TIMEOUT_MS = 5000;

export interface MinionCall {
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  noReturnEvent: boolean;
  /** Aborts the call (Ctrl-C): the daemon stops the job when the socket closes. */
  signal: AbortSignal;
}

function masters(opts: MinionOptions): string {
  const list = Array.isArray(opts.master) ? opts.master : [opts.master];
  return list.join(', ');
}

async function connect(opts: MinionOptions): Promise<FramedSocket<MinionControlReply, MinionControlRequest>> {
  const socket = minionSocketPath(opts);
  try {
    return await connectUnix<MinionControlReply, MinionControlRequest>(socket, MINION_CONTROL_REPLIES, CONNECT_TIMEOUT_MS);
  } catch (err) {
    const errno = ((err as { cause?: NodeJS.ErrnoException }).cause as NodeJS.ErrnoException | undefined)?.code;
    if (errno === 'EACCES') {
      throw new BrineError('CONTROL_DENIED', `cannot reach the minion daemon at ${socket}: permission denied; only root and the minion's user may run brine call through it`, { cause: err });
    }
    if (errno === 'ENOENT' || errno === 'ECONNREFUSED' || errno === 'ENOTDIR') {
      throw new BrineError(
        'MINION_NOT_RUNNING',
        `no minion daemon is running with sock_dir ${opts.sock_dir} (no answer on ${socket}); brine call without --local runs through it to reach the master (${masters(opts)}). Start the minion ('brine minion -c ${opts.config_dir}' or its service), or pass --local to run without a master`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** Runs the call through the daemon; its coded refusals (no master, denied) come back as BrineErrors. */
export async function callThroughMinion(opts: MinionOptions, call: MinionCall): Promise<MinionCallReply> {
  const channel = await connect(opts);
  return new Promise<MinionCallReply>((resolve, reject) => {
    const onAbort = (): void => channel.close('shutdown');
    call.signal.addEventListener('abort', onAbort, { once: true });
    channel.onMessage((m) => {
      call.signal.removeEventListener('abort', onAbort);
      if (m.t === 'call_return') resolve(m);
      else if (m.t === 'error') reject(new BrineError(isErrorCode(m.code) ? m.code : 'INTERNAL', m.message));
      else reject(new BrineError('MESSAGE_UNEXPECTED', `the minion daemon answered brine call with '${m.t}'`));
      channel.close('shutdown');
    });
    channel.onClose((info) => {
      call.signal.removeEventListener('abort', onAbort);
      // after an answer this does nothing (a promise settles once)
      const why = call.signal.aborted ? 'interrupted' : `the minion daemon closed the connection without an answer (${info.reason}); see its log`;
      reject(new BrineError('EXEC_FAILED', `${call.fun}: ${why}`));
    });
    channel.send({ t: 'minion_call', fun: call.fun, arg: call.arg, kwarg: call.kwarg, ...(call.noReturnEvent ? { noReturnEvent: true } : {}) });
  });
}
