// The master's log line for a state run that found no top file match (issue 26): Salt's return
// says "Please see master log for details" and its master log says nothing. The minion's return
// names the environments it searched; only the master knows its file_roots directories, so the
// warning here names them beside the minion's own account of the top file.

import type { Disposable } from '../../util/disposable.js';
import type { Logger } from '../../util/logger.js';
import type { MasterOptions } from '../../config/index.js';
import type { BrineEvent } from '../../protocol/index.js';
import type { EventBus } from '../event-bus.js';
import type { MasterFeature } from './master-feature.js';

/** Salt's state key of the no-match return (state.apply/highstate with nothing to apply). */
const NO_TOP_KEY = 'no_|-states_|-states_|-None';

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The comment of a no-match return; undefined for any other return. */
export function noTopComment(ret: unknown): string | undefined {
  if (!isMapping(ret) || !Object.hasOwn(ret, NO_TOP_KEY)) return undefined;
  const state = ret[NO_TOP_KEY];
  return isMapping(state) && typeof state.comment === 'string' ? state.comment : undefined;
}

/** `base: /srv/salt, /srv/common; dev: /srv/dev` (and the other backends when not only roots). */
export function describeFileRoots(opts: Pick<MasterOptions, 'file_roots' | 'fileserver_backend'>): string {
  const roots = Object.entries(opts.file_roots as Readonly<Record<string, unknown>>)
    .map(([env, dirs]) => `${env}: ${(Array.isArray(dirs) ? dirs.map(String) : []).join(', ') || '(none)'}`)
    .join('; ');
  const backends = opts.fileserver_backend;
  const others = (Array.isArray(backends) ? backends : [backends]).filter((b) => b !== 'roots');
  return `${roots || '(none)'}${others.length > 0 ? ` (also the ${others.join(', ')} backend)` : ''}`;
}

export class NoTopLog implements MasterFeature {
  readonly name = 'no-top-log';
  private subscription: Disposable | undefined;

  constructor(private readonly deps: { opts: MasterOptions; events: EventBus; logger: Logger }) {}

  start(): void {
    this.subscription = this.deps.events.observe((e: BrineEvent) => {
      if (e.kind !== 'job_return') return;
      const comment = noTopComment(e.ret);
      if (comment === undefined) return;
      const roots = describeFileRoots(this.deps.opts);
      this.deps.logger.warn({ minion: e.minion, jid: e.jid, file_roots: roots }, `${e.minion}: ${comment} This master's file_roots: ${roots}`);
    });
  }

  stop(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
  }
}
