// One published job over the master's control socket: sends the publish, hands each reply to the
// caller as it arrives and settles when the master says `done` (or refuses the job).

import type { JobDone, JobReturn, Published, PublishRequest } from '../../protocol/index.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import { openControl } from '../control-client.js';

export interface JobHandlers {
  /** The jid and who is expected; return 'detach' to leave at once (--async). */
  // biome-ignore lint/suspicious/noConfusingVoidType: callers that never detach return nothing
  onPublished?(published: Published): void | 'detach';
  onReturn?(ret: JobReturn): void;
  onDone?(done: JobDone): void;
}

export interface JobStream {
  /** Known once the master answered `published`. */
  readonly jid: string | undefined;
  /** Settles when the wait is over (done or detached); rejects with the master's coded error. */
  readonly finished: Promise<void>;
  /** Why the master's end closed the connection before the job finished (a close reason, then the socket error if any). */
  readonly closeReason: string | undefined;
  close(): void;
}

export async function startJob(socketPath: string, request: PublishRequest, handlers: JobHandlers, accessGroup?: string): Promise<JobStream> {
  const conn = await openControl(socketPath, accessGroup);
  let jid: string | undefined;
  let over = false;
  let closeReason: string | undefined;
  const finished = new Promise<void>((resolve, reject) => {
    const end = (): void => {
      over = true;
      resolve();
      conn.close('shutdown');
    };
    conn.onMessage((m) => {
      switch (m.t) {
        case 'published':
          jid = m.jid;
          if (handlers.onPublished?.(m) === 'detach') end();
          return;
        case 'ret':
          handlers.onReturn?.(m);
          return;
        case 'done':
          handlers.onDone?.(m);
          end();
          return;
        case 'error':
          over = true;
          reject(new BrineError(isErrorCode(m.code) ? m.code : 'INTERNAL', m.message));
          return;
        default:
          return;
      }
    });
    conn.onClose((info) => {
      if (over) return;
      closeReason = info.error ? `${info.reason}, ${info.error.message}` : info.reason;
      reject(new BrineError('MASTER_UNREACHABLE', `the master closed the connection before the job finished (${closeReason})`));
    });
  });
  conn.send(request);
  return {
    get jid() {
      return jid;
    },
    finished,
    get closeReason() {
      return closeReason;
    },
    close: () => conn.close('shutdown'),
  };
}
