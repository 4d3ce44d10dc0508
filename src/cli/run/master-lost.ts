// What `brine run` knows when the master goes away during a job (issue 26): which minions had
// been sent the job and had not returned, instead of Salt's wall of `[No response]` that blames
// the minions. The master says so in its last `done` when it stops (reason: master_shutdown);
// a killed master just closes the control socket.

import { BrineError } from '../../util/errors.js';

/** The job as far as the CLI saw it: who was sent it, and who has returned. */
export class JobProgress {
  /** Sent the job and not returned yet. */
  readonly pending = new Set<string>();
  sent = 0;

  published(minions: readonly string[], unreachable: readonly string[]): void {
    const skip = new Set(unreachable);
    for (const id of minions) if (!skip.has(id)) this.pending.add(id);
    this.sent = this.pending.size;
  }

  returned(id: string): void {
    this.pending.delete(id);
  }
}

/** The per-minion detail under `Minion did not return. [Master connection lost]`. */
export function masterLostDetail(jid: string): string {
  return `The master connection was lost during the job: this minion was sent the job and had not returned. Once the master runs again, look for its return with:\n\nbrine jobs show ${jid}`;
}

function idList(ids: readonly string[]): string {
  const shown = ids.slice(0, 10).join(', ');
  return ids.length > 10 ? `${shown} and ${ids.length - 10} more` : shown;
}

/** The error `brine run` ends with: how far the job got and who had not returned. */
export function masterLostError(jid: string, progress: JobProgress, lost: readonly string[], how: string): BrineError {
  const returned = progress.sent - lost.length;
  const missing = lost.length === 0 ? '' : `; not returned: ${idList([...lost].sort())}`;
  return new BrineError('MASTER_CONNECTION_LOST', `the master connection was lost during the job ${jid} (${how}): ${returned} of ${progress.sent} minion(s) sent the job had returned${missing}`);
}
