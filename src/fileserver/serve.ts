// Answers one file server request (file_list, file_stat, file_read) from the backends. Pure of
// sockets: the master's session hands the request in and sends back what this returns. Every
// failure is a coded reply; nothing here throws to the caller.

import { toBrineError } from '../util/errors.js';
import type { FileReply, FileRequest } from '../protocol/index.js';
import { readFromRoots } from './file-source.js';
import type { FileBackend } from './backend.js';

export interface ServeOptions {
  /** Largest chunk sent in one reply (file_buffer_size). */
  chunkSize: number;
}

/** The reply to one request, and whether it was a refused path (logged as a threat by the caller). */
export function serveFileRequest(roots: FileBackend, req: FileRequest, opts: ServeOptions): { reply: FileReply; refused: boolean; served?: number } {
  try {
    switch (req.t) {
      case 'file_list':
        return { reply: { t: 'file_reply', rid: req.rid, ok: true, list: req.kind === 'envs' ? roots.envs() : roots.list(req.saltenv, req.prefix, req.kind) }, refused: false };
      case 'file_stat': {
        const found = roots.find(req.saltenv, req.path);
        if (!found) return { reply: { t: 'file_reply', rid: req.rid, ok: false, error: { code: 'FILE_NOT_FOUND', message: notFoundMessage(req.path, req.saltenv) } }, refused: false };
        return { reply: { t: 'file_reply', rid: req.rid, ok: true, stat: found.stat }, refused: false };
      }
      case 'file_read': {
        const chunk = readFromRoots(roots, req.saltenv, req.path, req.offset, Math.min(req.length, opts.chunkSize));
        const reply: FileReply = { t: 'file_reply', rid: req.rid, ok: true, data: chunk.data.toString('base64'), eof: chunk.eof };
        return chunk.eof ? { reply, refused: false, served: req.offset + chunk.data.length } : { reply, refused: false };
      }
    }
  } catch (err) {
    const e = toBrineError(err);
    return { reply: { t: 'file_reply', rid: req.rid, ok: false, error: { code: e.code, message: e.message.slice(0, 4000) } }, refused: e.code === 'PATH_REFUSED' };
  }
}

function notFoundMessage(path: string, saltenv: string): string {
  return `salt://${path} is in no file root of saltenv ${saltenv}; check it with cp.list_master saltenv=${saltenv}`;
}
