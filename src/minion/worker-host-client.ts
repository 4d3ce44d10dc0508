// The worker thread's side of its host services: ExecContext.files (asynchronous: requests
// posted to the host thread, replies matched by id) and ExecContext.syncHost (blocking: the
// worker posts a request with a MessagePort and a shared flag, then Atomics.wait until the host
// has answered, and reads the answer with receiveMessageOnPort). A job's timeout or kill ends a
// blocked worker with terminate(), which interrupts Atomics.wait.

import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { BrineError, isErrorCode } from '../util/errors.js';
import type { ExecResult, FileClient, SyncHost } from '../modules/index.js';
import type { FileOp, FilesReply, SyncAnswer, WireFailure, WorkerReply } from './worker-messages.js';

/** A blocked worker gives up after this long even if the host never answers (it should always). */
export const SYNC_CALL_TIMEOUT_MS = 3_600_000;

export function fromWire(f: WireFailure | undefined): BrineError {
  return new BrineError(f && isErrorCode(f.code) ? f.code : 'INTERNAL', f?.message ?? 'the host thread failed without a message');
}

export class WorkerHostClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly post: (m: WorkerReply, transfer?: MessagePort[]) => void) {}

  onFilesReply(m: FilesReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(fromWire(m.error));
  }

  /** Fails every outstanding request (the call ended). */
  reset(): void {
    for (const p of this.pending.values()) p.reject(new BrineError('EXEC_FAILED', 'the call ended before the file server answered'));
    this.pending.clear();
  }

  private request(op: FileOp, args: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ t: 'files', id, op, args });
    });
  }

  files(): FileClient {
    return {
      listEnvs: () => this.request('listEnvs', []) as Promise<string[]>,
      listFiles: (saltenv, prefix) => this.request('listFiles', [saltenv, prefix ?? '']) as Promise<string[]>,
      listDirs: (saltenv, prefix) => this.request('listDirs', [saltenv, prefix ?? '']) as Promise<string[]>,
      stat: (url, saltenv) => this.request('stat', [url, saltenv]) as ReturnType<FileClient['stat']>,
      cacheFile: (url, saltenv) => this.request('cacheFile', [url, saltenv]) as ReturnType<FileClient['cacheFile']>,
    };
  }

  private blocking(op: 'call' | 'readFile', args: unknown[]): unknown {
    const { port1, port2 } = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    const word = new Int32Array(flag);
    try {
      this.post({ t: 'sync', op, args, port: port2, flag }, [port2]);
      if (Atomics.wait(word, 0, 0, SYNC_CALL_TIMEOUT_MS) === 'timed-out') {
        throw new BrineError('EXEC_FAILED', `a blocking ${op} to the minion did not finish within ${SYNC_CALL_TIMEOUT_MS / 1000} s`);
      }
      const got = receiveMessageOnPort(port1 as MessagePort) as { message: SyncAnswer } | undefined;
      if (!got) throw new BrineError('INTERNAL', `the host thread signalled a ${op} answer but sent none`);
      if (!got.message.ok) throw fromWire(got.message.error);
      return got.message.value;
    } finally {
      port1.close();
    }
  }

  /** ExecContext.pillarFor through the host thread, which has the master session. */
  pillarFor(pillarenv: string): Promise<Record<string, unknown>> {
    return this.request('pillarFor', [pillarenv]) as Promise<Record<string, unknown>>;
  }

  syncHost(): SyncHost {
    return {
      call: (fun, arg, kwarg) => this.blocking('call', [fun, arg, kwarg]) as ExecResult,
      readFile: (url, saltenv) => this.blocking('readFile', [url, saltenv]) as string | undefined,
    };
  }
}
