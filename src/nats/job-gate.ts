// The minion's gate for jobs arriving over NATS (threats.md #41): only a job signed for this
// minion by a master it trusts, within its lifetime, and seen for the first time, goes on to
// run. Everything else is dropped, counted per reason, and logged once per source (the master
// key a message claims, or "unsigned") per LOG_EVERY_MS, so a flood of forged jobs is a few lines.

import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { type JobRefusal, type JobVerdict, readJobSignature, verifyJob } from './job-signature.js';

/** A dropped job is logged at most this often per source; the lines in between are counted. */
export const LOG_EVERY_MS = 60_000;
/** Signed jids remembered until their signature expires, at most this many (oldest forgotten). */
const MAX_REMEMBERED = 100_000;

const WHY: Readonly<Record<JobRefusal, string>> = {
  unsigned: 'it carries no master signature',
  malformed: 'its signature headers are malformed',
  untrusted_master: 'it is signed by a key that is not a master of the enrolment file',
  bad_signature: 'its signature does not verify (altered, or signed for another minion)',
  expired: 'its signature has expired (a replay, or a clock to fix)',
  not_yet_valid: 'it was issued in the future (a clock to fix)',
  replayed: 'its jid already ran (a replay)',
};

export class SignedJobGate {
  /** Jobs dropped, by reason. */
  readonly refused: Record<JobRefusal, number> = { unsigned: 0, malformed: 0, untrusted_master: 0, bad_signature: 0, expired: 0, not_yet_valid: 0, replayed: 0 };
  private readonly trusted: ReadonlySet<string>;
  /** jid -> when its signature expires (plus the skew): until then a repeat is a replay. */
  private readonly seen = new Map<string, number>();
  /** source -> when it was last logged and how many drops since. */
  private readonly logged = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly minionId: string,
    trustedMasters: readonly string[],
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.trusted = new Set(trustedMasters);
  }

  get refusedTotal(): number {
    return Object.values(this.refused).reduce((a, b) => a + b, 0);
  }

  /** The signature check of a message on the job subject (before it is decoded). */
  check(header: (name: string) => string, payload: Uint8Array): JobVerdict {
    const verdict = verifyJob(readJobSignature(header), payload, this.minionId, this.trusted, this.clock.now());
    if (!verdict.ok) this.drop(verdict.reason, verdict.master, undefined);
    return verdict;
  }

  /** True the first time a signed job's jid is seen while its signature is valid; a repeat is dropped. */
  firstRun(jid: string, master: string, expiresMs: number): boolean {
    const now = this.clock.now();
    for (const [j, until] of this.seen) {
      // insertion order is issue order, near enough: stop at the first one still valid
      if (until > now && this.seen.size <= MAX_REMEMBERED) break;
      this.seen.delete(j);
    }
    if (this.seen.has(jid)) {
      this.drop('replayed', master, jid);
      return false;
    }
    this.seen.set(jid, expiresMs + 5 * 60_000);
    return true;
  }

  private drop(reason: JobRefusal, master: string | undefined, jid: string | undefined): void {
    this.refused[reason]++;
    const source = master ?? 'unsigned';
    const now = this.clock.monotonic();
    const last = this.logged.get(source);
    if (last !== undefined && now - last.at < LOG_EVERY_MS) {
      last.since++;
      return;
    }
    if (this.logged.size > 1000) this.logged.clear(); // a spray of claimed keys stays bounded
    this.logged.set(source, { at: now, since: 0 });
    const more = last !== undefined && last.since > 0 ? ` (${last.since} more from this source dropped since the last line)` : '';
    this.logger.error(
      { code: 'JOB_SIGNATURE_INVALID', reason, master: source, ...(jid === undefined ? {} : { jid }), dropped: this.refusedTotal },
      `dropped a job on NATS: ${WHY[reason]}; source ${source}${more}. Only masters listed in the enrolment file can send jobs: if this is a new master, give this minion a new enrolment file (brine nats enrolment); otherwise someone else can publish on this minion's job subject (check the NATS credentials and routes). Further drops from this source are counted and logged at most once a minute.`,
    );
  }
}
