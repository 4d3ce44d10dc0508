// The master's file server: answers accepted minions' file requests over their own session,
// from file_roots (src/fileserver), with a bound on each session's outstanding requests.
// Refused paths are logged with the minion's ID (from the session, never the request).

import type { Logger } from '../util/logger.js';
import { printable } from '../util/printable.js';
import type { FileReply, FileRequest } from '../protocol/index.js';
import { FileRoots, serveFileRequest, type FileRootsConfig } from '../fileserver/index.js';

/** What the service needs of a session. */
export interface FileSession {
  readonly id: string;
  readonly ready: boolean;
  sendFileReply(reply: FileReply): boolean;
}

export interface FileServiceOptions extends FileRootsConfig {
  file_buffer_size: number;
}

/** Requests one session may have waiting; a minion pipelines a few chunks per file. */
export const MAX_OUTSTANDING_PER_SESSION = 32;

export class FileService {
  readonly roots: FileRoots;
  private readonly outstanding = new WeakMap<FileSession, number>();
  private readonly chunkSize: number;
  /** Refused paths so far (threats.md #8), for tests and diagnostics. */
  refusedCount = 0;

  constructor(
    opts: FileServiceOptions,
    private readonly logger: Logger,
  ) {
    this.roots = new FileRoots(opts);
    this.chunkSize = opts.file_buffer_size;
  }

  handle(session: FileSession, req: FileRequest): void {
    const n = this.outstanding.get(session) ?? 0;
    if (n >= MAX_OUTSTANDING_PER_SESSION) {
      session.sendFileReply({
        t: 'file_reply',
        rid: req.rid,
        ok: false,
        error: { code: 'RATE_LIMITED', message: `more than ${MAX_OUTSTANDING_PER_SESSION} file server requests outstanding on this session; wait for replies before asking for more` },
      });
      return;
    }
    this.outstanding.set(session, n + 1);
    // answered on a later turn of the event loop, so a burst of requests is bounded by the count above
    setImmediate(() => {
      this.outstanding.set(session, (this.outstanding.get(session) ?? 1) - 1);
      if (!session.ready) return;
      let result: ReturnType<typeof serveFileRequest>;
      try {
        result = serveFileRequest(this.roots, req, { chunkSize: this.chunkSize });
      } catch (err) {
        this.logger.error({ err, id: session.id }, 'the file server failed on a request');
        session.sendFileReply({ t: 'file_reply', rid: req.rid, ok: false, error: { code: 'INTERNAL', message: 'the file server failed; see the master log' } });
        return;
      }
      if (result.refused) {
        this.refusedCount++;
        const what = 'path' in req ? printable(req.path) : printable(req.prefix);
        this.logger.warn(
          { id: session.id, saltenv: printable(req.saltenv), path: what, code: 'PATH_REFUSED' },
          `refused a file server request from minion ${session.id}: ${printable(result.reply.error?.message ?? '')}`,
        );
      }
      if (result.served !== undefined && 'path' in req) {
        this.logger.debug({ id: session.id, saltenv: req.saltenv, path: printable(req.path), bytes: result.served }, `served salt://${printable(req.path)} to ${session.id}`);
      }
      session.sendFileReply(result.reply);
    });
  }
}
