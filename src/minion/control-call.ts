// `brine call` without --local (salt-call against the master), served by the running minion:
// the function runs as a local job of this daemon (job runner, state lock, worker thread) with
// its master session's file server, pillar and mine, so no second session with this minion's key
// ever displaces the daemon's. As salt-call does, the pillar is fetched from the master first,
// and the return goes to the master's job cache (Salt's "req" return) unless noReturnEvent.

import { BrineError, toBrineError } from '../util/errors.js';
import type { Job, MinionCallReply, MinionCallRequest, Return } from '../protocol/index.js';
import { endpointKey, type MinionLink } from './minion-link.js';

export interface ControlCallHost {
  readonly id: string;
  /** file_client: local or master_type: disable: the daemon has no master to use or return to. */
  readonly masterless: boolean;
  links(): readonly MinionLink[];
  /** Why a link's last connection (or attempt) ended, when one did. */
  lastDown(link: MinionLink): string | undefined;
  /** A jid no published or scheduled job of this minion uses. */
  newJid(): string;
  /** Gets this minion's pillar again (from the master, or its own pillar_roots when masterless). */
  refreshPillar(): Promise<void>;
  run(job: Job): Promise<Return>;
  kill(jid: string): boolean;
  /** Queues the return for the master (kept until acknowledged) and sends it on a ready link. */
  deliver(ret: Return): void;
}

/**
 * MINION_NO_MASTER naming every master and why it is not connected, or undefined when a link
 * is ready. Decided from the links alone: the call fails at once, it never waits for a sign-in.
 */
export function noMasterError(id: string, links: readonly MinionLink[], lastDown: (link: MinionLink) => string | undefined): BrineError | undefined {
  if (links.some((l) => l.ready)) return undefined;
  const masters = links.map((l) => {
    const why = lastDown(l);
    return `${endpointKey(l.endpoint)} (${l.state}${why === undefined ? '' : `, last: ${why}`})`;
  });
  const which = masters.length > 0 ? `its master ${masters.join(', ')}` : 'a master yet';
  return new BrineError(
    'MINION_NO_MASTER',
    `the minion ${id} is not connected to ${which}, so brine call cannot use the master's files and pillar; check the master and 'brine doctor minion', or pass --local to run without a master`,
  );
}

export async function runControlCall(host: ControlCallHost, req: MinionCallRequest, cancelled: AbortSignal): Promise<MinionCallReply> {
  if (!host.masterless) {
    const down = noMasterError(host.id, host.links(), (l) => host.lastDown(l));
    if (down) throw down;
  }
  try {
    await host.refreshPillar();
  } catch (err) {
    const e = toBrineError(err);
    // the master went away between the check and the pillar request, or never answered
    if (e.code === 'MASTER_UNREACHABLE') throw new BrineError('MINION_NO_MASTER', `brine call could not get this minion's pillar from the master: ${e.message}`, { cause: e });
    throw e;
  }
  const jid = host.newJid();
  const job: Job = { t: 'job', jid, fun: req.fun, arg: req.arg, kwarg: req.kwarg, tgt: host.id, tgtType: 'glob' };
  // the caller went away (Ctrl-C, a closed socket): the job stops, as salt-call's would
  const onCancel = (): void => void host.kill(jid);
  cancelled.addEventListener('abort', onCancel, { once: true });
  let ret: Return;
  try {
    ret = await host.run(job);
  } finally {
    cancelled.removeEventListener('abort', onCancel);
  }
  if (!host.masterless && req.noReturnEvent !== true) host.deliver({ ...ret, call: { arg: req.arg, kwarg: req.kwarg } });
  const reply: MinionCallReply = { t: 'call_return', jid, ret: ret.ret, retcode: ret.retcode, success: ret.success };
  if (ret.error) reply.error = ret.error;
  return reply;
}
