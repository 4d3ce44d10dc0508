// Answers a minion's mine requests (mine_send, mine_get, mine_delete, mine_flush) from the
// master's MineStore. The minion is the session's: no request can read or write another
// minion's mine except through mine.get, which applies allow_tgt for the session's ID.

import { toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { printable } from '../util/printable.js';
import type { MineReply, MineRequest } from '../protocol/index.js';
import type { MineStore } from './mine-store.js';

/** What the service needs of a session. */
export interface MineSession {
  readonly id: string;
  readonly fingerprint: string;
  sendMineReply(reply: MineReply): boolean;
}

export function answerMineRequest(store: MineStore, session: MineSession, req: MineRequest, logger: Logger): void {
  let reply: MineReply;
  try {
    switch (req.t) {
      case 'mine_send':
        store.send(session.id, session.fingerprint, req.data, req.clear);
        reply = { t: 'mine_reply', rid: req.rid, ok: true };
        break;
      case 'mine_get':
        reply = { t: 'mine_reply', rid: req.rid, ok: true, data: store.get(session.id, { tgt: req.tgt, tgtType: req.tgtType, funs: req.funs, delimiter: req.delimiter }) };
        break;
      case 'mine_delete':
        store.deleteFun(session.id, session.fingerprint, req.fun);
        reply = { t: 'mine_reply', rid: req.rid, ok: true };
        break;
      case 'mine_flush':
        store.flush(session.id);
        reply = { t: 'mine_reply', rid: req.rid, ok: true };
        break;
    }
  } catch (err) {
    const e = toBrineError(err);
    if (e.code === 'INTERNAL') logger.error({ err: e, id: session.id }, `a ${req.t} from ${session.id} failed`);
    // the message can quote the peer's target expression: escaped before it reaches a log line
    else logger.info({ id: session.id, code: e.code }, `refused a ${req.t} from ${session.id}: ${printable(e.message)}`);
    reply = { t: 'mine_reply', rid: req.rid, ok: false, error: { code: e.code, message: e.message } };
  }
  session.sendMineReply(reply);
}
