// The file server as a minion reaches it over its master session (file_client: remote): each
// request gets an id, goes out on the first ready link and is matched to its file_reply. No
// ready link, a link going down or a master that does not answer in time is
// FILESERVER_UNAVAILABLE; the master's coded errors come back as they are.

import type { Clock } from '../util/clock.js';
import { BrineError, isErrorCode } from '../util/errors.js';
import type { FileReply } from '../protocol/index.js';
import type { FileStat } from '../modules/index.js';
import type { FileChunk, FileSource } from '../fileserver/index.js';
import { MasterRequests, type RequestLink } from './master-requests.js';

/** A link the source can send on: the minion's MasterLinks. */
export type FileLink = RequestLink;

/** How long one request may wait for its reply. */
export const FILE_REQUEST_TIMEOUT_MS = 60_000;

type Request =
  | { t: 'file_list'; kind: 'envs' | 'files' | 'dirs'; saltenv: string; prefix: string }
  | { t: 'file_stat'; saltenv: string; path: string }
  | { t: 'file_read'; saltenv: string; path: string; offset: number; length: number };

function unavailable(why: string): BrineError {
  return new BrineError(
    'FILESERVER_UNAVAILABLE',
    `${why}; salt:// files come from the master (file_client: remote). Check the connection with brine doctor, or set file_client: local to use this minion's own file_roots`,
  );
}

export class MasterFileSource implements FileSource {
  private readonly requests: MasterRequests<FileReply>;

  constructor(
    private readonly links: () => readonly FileLink[],
    clock: Clock,
    timeoutMs = FILE_REQUEST_TIMEOUT_MS,
  ) {
    this.requests = new MasterRequests(clock, timeoutMs, unavailable);
  }

  /** A file_reply from a master. */
  onReply(reply: FileReply): void {
    this.requests.onReply(reply);
  }

  /** A link went down: its outstanding requests will never be answered. */
  onLinkDown(link: FileLink): void {
    this.requests.onLinkDown(link, 'file request');
  }

  private async request(req: Request): Promise<FileReply> {
    const link = this.links().find((l) => l.ready);
    if (!link) throw unavailable('no master is connected');
    const reply = await this.requests.send(link, req.t, (rid) => ({ ...req, rid }));
    if (reply.ok) return reply;
    const code = reply.error && isErrorCode(reply.error.code) ? reply.error.code : 'FILESERVER_UNAVAILABLE';
    throw new BrineError(code, reply.error?.message ?? 'the master refused the file request');
  }

  async listEnvs(): Promise<string[]> {
    return (await this.request({ t: 'file_list', kind: 'envs', saltenv: 'base', prefix: '' })).list ?? [];
  }

  async list(saltenv: string, prefix: string, kind: 'files' | 'dirs'): Promise<string[]> {
    return (await this.request({ t: 'file_list', kind, saltenv, prefix })).list ?? [];
  }

  async stat(saltenv: string, path: string): Promise<FileStat | undefined> {
    try {
      return (await this.request({ t: 'file_stat', saltenv, path })).stat;
    } catch (err) {
      if (err instanceof BrineError && err.code === 'FILE_NOT_FOUND') return undefined;
      throw err;
    }
  }

  async read(saltenv: string, path: string, offset: number, length: number): Promise<FileChunk> {
    const reply = await this.request({ t: 'file_read', saltenv, path, offset, length });
    return { data: Buffer.from(reply.data ?? '', 'base64'), eof: reply.eof ?? true };
  }
}
