// How a minion gets its pillar: from its master over its own session (asked at each sign-in and
// on saltutil.refresh_pillar), or, with file_client: local, rendered from its own pillar_roots.
// The result goes into the minion's PillarStore; a render that failed on the master arrives as
// the last good pillar plus its errors, stored as Salt shows them: under `_errors`.

import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { checkMergeStrategy } from '../util/dict-merge.js';
import type { MinionMessage, PillarReply } from '../protocol/index.js';
import { compilePillar, PillarRoots } from '../pillar/index.js';
import type { PillarStore } from './pillar-store.js';

export interface PillarLink {
  readonly ready: boolean;
  send(message: MinionMessage): boolean;
}

/** How long the master may take to render and send a pillar. */
export const PILLAR_REQUEST_TIMEOUT_MS = 60_000;

interface Pending {
  link: PillarLink;
  resolve: (r: PillarReply) => void;
  timer: TimerHandle;
}

/** The pillar as the store keeps it: the data, plus `_errors` when the latest render failed. */
export function withErrors(pillar: Record<string, unknown>, errors: readonly string[] | undefined): Record<string, unknown> {
  return errors && errors.length > 0 ? { ...pillar, _errors: [...errors] } : pillar;
}

export interface LocalPillarOptions {
  root_dir?: unknown;
  pillar_roots?: unknown;
  pillar_source_merging_strategy: string;
  pillar_merge_lists: boolean;
  pillarenv: string | null;
  allow_undefined?: boolean;
}

/** Masterless: this machine's pillar_roots rendered with its own grains. Never throws for a bad tree. */
export async function renderLocalPillar(opts: LocalPillarOptions, id: string, grains: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
  let roots: PillarRoots;
  let strategy: ReturnType<typeof checkMergeStrategy>;
  try {
    strategy = checkMergeStrategy(opts.pillar_source_merging_strategy);
    roots = new PillarRoots(opts);
  } catch (err) {
    return { _errors: [err instanceof Error ? err.message : String(err)] };
  }
  const r = await compilePillar(
    roots,
    { id, grains },
    { strategy, mergeLists: opts.pillar_merge_lists, ...(opts.pillarenv ? { pillarenv: opts.pillarenv } : {}), ...(opts.allow_undefined ? { allowUndefined: true } : {}) },
  );
  return withErrors(r.pillar, r.errors);
}

export class PillarClient {
  private nextRid = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly store: PillarStore,
    private readonly links: () => readonly PillarLink[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly timeoutMs = PILLAR_REQUEST_TIMEOUT_MS,
  ) {}

  onReply(reply: PillarReply): void {
    const p = this.pending.get(reply.rid);
    if (!p) return;
    this.pending.delete(reply.rid);
    p.timer.cancel();
    p.resolve(reply);
  }

  onLinkDown(link: PillarLink): void {
    for (const [rid, p] of this.pending) {
      if (p.link !== link) continue;
      this.pending.delete(rid);
      p.timer.cancel();
      p.resolve({ t: 'pillar_reply', rid, ok: false, error: { code: 'MASTER_UNREACHABLE', message: 'the connection to the master closed before the pillar arrived' } });
    }
  }

  /**
   * Asks the master for this minion's pillar (on `link`, else the first ready link) and stores
   * it. Throws MASTER_UNREACHABLE (no master, or no answer in time) or the master's refusal.
   */
  async fetch(link?: PillarLink): Promise<void> {
    const via = link ?? this.links().find((l) => l.ready);
    if (!via) throw new BrineError('MASTER_UNREACHABLE', 'no master is connected, so the pillar cannot be refreshed; check the connection with brine doctor');
    this.nextRid = (this.nextRid + 1) % 2 ** 31;
    const rid = this.nextRid;
    const reply = await new Promise<PillarReply>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(rid);
        resolve({ t: 'pillar_reply', rid, ok: false, error: { code: 'MASTER_UNREACHABLE', message: `the master did not send the pillar within ${this.timeoutMs / 1000} s` } });
      }, this.timeoutMs);
      this.pending.set(rid, { link: via, resolve, timer });
      if (!via.send({ t: 'pillar_request', rid })) {
        this.pending.delete(rid);
        timer.cancel();
        resolve({ t: 'pillar_reply', rid, ok: false, error: { code: 'MASTER_UNREACHABLE', message: 'the pillar request could not be sent' } });
      }
    });
    if (!reply.ok || !reply.pillar) {
      const code = reply.error?.code === 'PILLAR_DENIED' ? 'PILLAR_DENIED' : 'MASTER_UNREACHABLE';
      throw new BrineError(code, `the master did not send a pillar: ${reply.error?.message ?? 'no pillar in the reply'}`);
    }
    this.store.set(withErrors(reply.pillar, reply.errors));
    if (reply.errors && reply.errors.length > 0) {
      this.logger.warn(
        { errors: reply.errors.length },
        `the master could not render this minion's pillar (${reply.errors.length} error(s)); keeping the last good pillar. pillar.items shows them under _errors`,
      );
    } else {
      this.logger.debug({ keys: Object.keys(reply.pillar).length }, 'received the pillar from the master');
    }
  }
}
