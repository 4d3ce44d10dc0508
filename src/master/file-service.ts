// The master's file server: answers accepted minions' file requests over their own session,
// from the backends of fileserver_backend in order (file_roots, gitfs; src/fileserver), with a
// bound on each session's outstanding requests.
// Refused paths are logged with the minion's ID (from the session, never the request).

import type { Logger } from '../util/logger.js';
import { printable } from '../util/printable.js';
import type { FileReply, FileRequest } from '../protocol/index.js';
import type { Clock } from '../util/clock.js';
import { BrineError } from '../util/errors.js';
import { FileBackends, FileRoots, serveFileRequest, type FileBackend, type FileRootsConfig } from '../fileserver/index.js';
import { GitfsBackend, type GitfsBackendOptions, type RemoteUpdate } from '../fileserver/git/index.js';
import { GITFS_STATUS_FILE, GitRemotesUpdater } from './gitfs-updater.js';

/** What the service needs of a session. */
export interface FileSession {
  readonly id: string;
  readonly ready: boolean;
  sendFileReply(reply: FileReply): boolean;
}

export interface FileServiceOptions extends FileRootsConfig, Omit<GitfsBackendOptions, 'cachedir'> {
  file_buffer_size: number;
  /** Where gitfs keeps its clones (the master's cachedir); needed only with gitfs. */
  cachedir?: string;
  fileserver_backend?: unknown;
}

/** Salt's backend names (with or without the `fs` suffix) to brine's backends. */
function backendsOf(opts: FileServiceOptions, logger: Logger): { backends: FileBackend[]; roots: FileRoots; gitfs?: GitfsBackend } {
  const names = typeof opts.fileserver_backend === 'string' ? [opts.fileserver_backend] : Array.isArray(opts.fileserver_backend) ? opts.fileserver_backend.map(String) : ['roots'];
  const roots = new FileRoots(opts);
  const backends: FileBackend[] = [];
  let gitfs: GitfsBackend | undefined;
  for (const name of names) {
    if (name === 'roots' || name === 'root') {
      if (!backends.includes(roots)) backends.push(roots);
    } else if (name === 'gitfs' || name === 'git') {
      if (opts.cachedir === undefined) throw new BrineError('INTERNAL', 'gitfs needs the master cachedir');
      gitfs ??= new GitfsBackend({ ...opts, cachedir: opts.cachedir }, logger);
      if (!backends.includes(gitfs)) backends.push(gitfs);
    }
    // other names were a start-up warning (config/start-warnings.ts)
  }
  return gitfs ? { backends, roots, gitfs } : { backends, roots };
}

/** A file request without its rid, paths made printable: what the trace log records. */
function fileRequestSummary(req: FileRequest): Record<string, unknown> {
  const { rid: _rid, ...rest } = req as FileRequest & { rid: number };
  const out: Record<string, unknown> = { ...rest };
  if (typeof out.path === 'string') out.path = printable(out.path);
  if (typeof out.prefix === 'string') out.prefix = printable(out.prefix);
  return out;
}

/** Requests one session may have waiting; a minion pipelines a few chunks per file. */
export const MAX_OUTSTANDING_PER_SESSION = 32;
/**
 * Milliseconds of answering file requests per event-loop turn; the rest wait for the next turn,
 * in arrival order. 1,000 minions each asking at once are ~1,000 answers in one turn otherwise.
 */
export const FILE_BUDGET_MS = 10;

interface QueuedRequest {
  session: FileSession;
  req: FileRequest;
}

export class FileService {
  readonly roots: FileRoots;
  /** What minions are served from: the backends in fileserver_backend order. */
  readonly backends: FileBackends;
  private readonly gitfs: GitRemotesUpdater | undefined;
  private readonly outstanding = new WeakMap<FileSession, number>();
  private readonly chunkSize: number;
  /** Refused paths so far (threats.md #8), for tests and diagnostics. */
  refusedCount = 0;
  /** Requests waiting for their turn (from `head` on), and whether a turn is scheduled. */
  private queue: Array<QueuedRequest | undefined> = [];
  private head = 0;
  private scheduled = false;
  private readonly monotonic: () => number;

  constructor(
    opts: FileServiceOptions,
    private readonly logger: Logger,
    clock?: Clock,
  ) {
    this.monotonic = clock ? () => clock.monotonic() : () => performance.now();
    const { backends, roots, gitfs } = backendsOf(opts, logger);
    this.roots = roots;
    this.backends = new FileBackends(backends);
    this.chunkSize = opts.file_buffer_size;
    if (gitfs && clock) {
      this.gitfs = new GitRemotesUpdater(gitfs, GITFS_STATUS_FILE, opts.cachedir ?? '', clock, logger);
      this.gitfs.start();
    }
  }

  /** `brine fileserver update`: fetches the gitfs remotes now. */
  update(backend?: string): Promise<RemoteUpdate[]> {
    if (backend !== undefined && backend !== 'gitfs' && backend !== 'git' && backend !== 'roots' && backend !== 'root') {
      return Promise.reject(new BrineError('BAD_ARGUMENTS', `unknown fileserver backend ${JSON.stringify(backend)}; use gitfs or roots`));
    }
    // roots needs no update: files are read from disk on every request
    if (this.gitfs === undefined || backend === 'roots' || backend === 'root') return Promise.resolve([]);
    return this.gitfs.updateNow();
  }

  close(): void {
    this.gitfs?.close();
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
    // one line per request at trace level: bench:states --emulate replays a real minion's requests from it
    if (this.logger.isLevelEnabled('trace')) this.logger.trace({ id: session.id, req: fileRequestSummary(req) }, `file server request ${req.t} from ${session.id}`);
    // answered on a later turn of the event loop, so a burst of requests is bounded by the count above
    this.queue.push({ session, req });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  /** Answers queued requests in arrival order for up to FILE_BUDGET_MS, then yields the turn. */
  private drain(): void {
    this.scheduled = false;
    const t0 = this.monotonic();
    while (this.head < this.queue.length) {
      const next = this.queue[this.head]!;
      this.queue[this.head++] = undefined;
      this.answer(next.session, next.req);
      if (this.monotonic() - t0 >= FILE_BUDGET_MS) break;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      return;
    }
    if (this.head >= 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private answer(session: FileSession, req: FileRequest): void {
    this.outstanding.set(session, (this.outstanding.get(session) ?? 1) - 1);
    if (!session.ready) return;
    let result: ReturnType<typeof serveFileRequest>;
    try {
      result = serveFileRequest(this.backends, req, { chunkSize: this.chunkSize });
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
  }
}
