// How a minion gets its pillar: from its master over its own session (asked at each sign-in and
// on saltutil.refresh_pillar), or, with file_client: local, rendered from its own pillar_roots.
// The result goes into the minion's PillarStore; a render that failed on the master arrives as
// the last good pillar plus its errors, stored as Salt shows them: under `_errors`.

import type { Clock } from '../util/clock.js';
import { BrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { checkMergeStrategy } from '../util/dict-merge.js';
import type { PillarReply } from '../protocol/index.js';
import type { PillarRoots } from '../pillar/index.js';
import type { PillarStore } from './pillar-store.js';
import { MasterRequests, type RequestLink } from './master-requests.js';

/** How long the master may take to render and send a pillar. */
export const PILLAR_REQUEST_TIMEOUT_MS = 60_000;

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
  config_dir?: string;
  gpg_keydir?: string | null;
  gpg_decrypt_must_succeed?: boolean;
}

/** Masterless: this machine's pillar_roots rendered with its own grains. Never throws for a bad tree. */
export async function renderLocalPillar(opts: LocalPillarOptions, id: string, grains: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
  // loaded here: a minion with a master never renders pillar itself (the compiler brings the renderers)
  const { compilePillar, gpgOptionsOf, PillarRoots } = await import('../pillar/index.js');
  let roots: PillarRoots;
  let strategy: ReturnType<typeof checkMergeStrategy>;
  try {
    strategy = checkMergeStrategy(opts.pillar_source_merging_strategy);
    roots = new PillarRoots(opts);
  } catch (err) {
    return { _errors: [errorMessage(err)] };
  }
  const r = await compilePillar(
    roots,
    { id, grains },
    {
      strategy,
      mergeLists: opts.pillar_merge_lists,
      ...(opts.pillarenv ? { pillarenv: opts.pillarenv } : {}),
      ...(opts.allow_undefined ? { allowUndefined: true } : {}),
      // gpg_decrypt_must_succeed: False leaves the block encrypted; the masterless pillar has no log here
      gpg: gpgOptionsOf(opts),
    },
  );
  return withErrors(r.pillar, r.errors);
}

/**
 * Masterless pillarenv=: this machine's pillar rendered from one of its pillar_roots environments.
 * Throws PILLARENV_UNKNOWN for another name, before anything is read.
 */
export async function localPillarFor(opts: LocalPillarOptions, id: string, grains: Readonly<Record<string, unknown>>, pillarenv: string): Promise<Record<string, unknown>> {
  const { PillarRoots } = await import('../pillar/index.js');
  const envs = new PillarRoots(opts).envs();
  if (!envs.includes(pillarenv)) throw unknownPillarenv(pillarenv, `this minion's pillar_roots (${envs.join(', ') || 'none'})`);
  return renderLocalPillar({ ...opts, pillarenv }, id, grains);
}

function unknownPillarenv(pillarenv: string, where: string): BrineError {
  return new BrineError('PILLARENV_UNKNOWN', `pillarenv ${JSON.stringify(pillarenv)} is not an environment of ${where}; use one of those`);
}

export class PillarClient {
  private readonly requests: MasterRequests<PillarReply>;

  constructor(
    private readonly store: PillarStore,
    private readonly links: () => readonly RequestLink[],
    clock: Clock,
    private readonly logger: Logger,
    timeoutMs = PILLAR_REQUEST_TIMEOUT_MS,
  ) {
    this.requests = new MasterRequests(clock, timeoutMs, (why) => new BrineError('MASTER_UNREACHABLE', `the master did not send a pillar: ${why}`));
  }

  onReply(reply: PillarReply): void {
    this.requests.onReply(reply);
  }

  onLinkDown(link: RequestLink): void {
    this.requests.onLinkDown(link, 'pillar request');
  }

  /**
   * This minion's pillar from one pillar environment, for one call (state.apply pillarenv=): not
   * stored. Throws PILLARENV_UNKNOWN when the master's pillar_roots lacks it, MASTER_UNREACHABLE
   * when no master answers.
   */
  async fetchFor(pillarenv: string): Promise<Record<string, unknown>> {
    const via = this.links().find((l) => l.ready);
    if (!via) throw new BrineError('MASTER_UNREACHABLE', `no master is connected, so the pillar of pillarenv ${pillarenv} cannot be rendered; check the connection with brine doctor`);
    const reply = await this.requests.send(via, 'pillar request', (rid) => ({ t: 'pillar_request', rid, pillarenv }));
    if (!reply.ok || !reply.pillar) {
      const code = reply.error?.code === 'PILLARENV_UNKNOWN' || reply.error?.code === 'PILLAR_DENIED' ? reply.error.code : 'MASTER_UNREACHABLE';
      throw new BrineError(code, `the master did not send the pillar of pillarenv ${pillarenv}: ${reply.error?.message ?? 'no pillar in the reply'}`);
    }
    return withErrors(reply.pillar, reply.errors);
  }

  /**
   * Asks the master for this minion's pillar (on `link`, else the first ready link) and stores
   * it. Throws MASTER_UNREACHABLE (no master, or no answer in time) or the master's refusal.
   */
  async fetch(link?: RequestLink): Promise<void> {
    const via = link ?? this.links().find((l) => l.ready);
    if (!via) throw new BrineError('MASTER_UNREACHABLE', 'no master is connected, so the pillar cannot be refreshed; check the connection with brine doctor');
    const reply = await this.requests.send(via, 'pillar request', (rid) => ({ t: 'pillar_request', rid }));
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
