// The CLI's side of the master's control socket: one request, then a stream of replies.

import { CONTROL_REPLIES, type ControlReply, type ControlRequest } from '../protocol/index.js';
// the Unix-socket client only: the transport barrel would also load node:tls and the dialer
import { connectUnix } from '../transport/unix.js';
import type { FramedSocket } from '../transport/framed-socket.js';
import { BrineError, isErrorCode } from '../util/errors.js';

export type ControlConnection = FramedSocket<ControlReply, ControlRequest>;

/** `accessGroup`: the master's sock_group, named when the socket refuses this user (EACCES). */
export async function openControl(socketPath: string, accessGroup?: string): Promise<ControlConnection> {
  return connectUnix<ControlReply, ControlRequest>(socketPath, CONTROL_REPLIES, undefined, accessGroup === '' ? undefined : accessGroup);
}

/** Sends one request and resolves with the single reply (for non-streaming operations). */
export async function requestOnce<R extends ControlReply>(socketPath: string, request: ControlRequest, expect: R['t']): Promise<R> {
  const conn = await openControl(socketPath);
  return new Promise<R>((resolve, reject) => {
    conn.onMessage((m) => {
      if (m.t === 'error') reject(new BrineError(isErrorCode(m.code) ? m.code : 'INTERNAL', m.message));
      else if (m.t === expect) resolve(m as R);
      conn.close('shutdown');
    });
    conn.onClose((info) => reject(new BrineError('MASTER_UNREACHABLE', `the master closed the control connection (${info.reason})`)));
    conn.send(request);
  });
}
