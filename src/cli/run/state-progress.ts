// `brine run ... state.apply --progress` (issue 26): each state's terse line on stderr as the
// minion finishes it, from the salt/job/<jid>/prog/<id>/<n> events the master fires for Salt's
// state_events. The events are followed on a second control connection opened before the
// publish, and kept until the publish names the jid (a fast first state can beat the answer).
// The normal output at the end is unchanged; on a pipe or with --out json nothing is shown.

import type { SaltEvent } from '../../protocol/index.js';
import { printable } from '../../util/printable.js';
import { openControl, type ControlConnection } from '../control-client.js';
import { terseStateLine } from '../output/index.js';

/** The functions that run states and take state_events= (Salt's state.sls, highstate, sls_id; apply, top and test pass it on). */
export const STATE_RUN_FUNCTIONS: ReadonlySet<string> = new Set(['state.apply', 'state.sls', 'state.highstate', 'state.sls_id', 'state.top', 'state.test']);

/** Whether `--progress` streams state lines for this run: a state run, on a terminal, not --out json (wantsProgress). */
export function wantsStateProgress(opts: { progress: boolean; fun: string; terminal: boolean; batch: boolean }): boolean {
  return opts.progress && opts.terminal && !opts.batch && STATE_RUN_FUNCTIONS.has(opts.fun);
}

const PROG_TAG = /^salt\/job\/(\d{20})\/prog\/([^/]+)\/(\d+)$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The jid, minion and line of one progress event, or undefined for any other event. */
export function progressLineOf(event: Pick<SaltEvent, 'tag' | 'data'>, color: boolean): { jid: string; minion: string; n: number; line: string } | undefined {
  const m = PROG_TAG.exec(event.tag);
  if (!m) return undefined;
  const inner = event.data.data;
  if (!isRecord(inner) || !isRecord(inner.ret)) return undefined;
  const ret = inner.ret;
  const fun = typeof inner.fun === 'string' ? inner.fun : '?.?';
  const dot = fun.indexOf('.');
  const id = typeof ret.__id__ === 'string' ? ret.__id__ : '';
  const name = typeof ret.name === 'string' ? ret.name : id;
  const tag = `${fun.slice(0, dot)}_|-${id}_|-${name}_|-${fun.slice(dot + 1)}`;
  return { jid: m[1]!, minion: m[2]!, n: Number(m[3]), line: terseStateLine(tag, ret, color) };
}

/** Prints the lines of one job's progress events; `prefix` puts the minion's id first (several targets). */
export class StateProgressPrinter {
  private jid: string | undefined;
  private readonly early: Array<Pick<SaltEvent, 'tag' | 'data'>> = [];

  private prefix = false;

  constructor(private readonly opts: { print: (line: string) => void; color: boolean }) {}

  /** The publish answered with the job's jid: what came before it is printed if it is this job's; several minions: each line starts with the id. */
  published(jid: string, minions: number): void {
    this.jid = jid;
    this.prefix = minions > 1;
    for (const e of this.early.splice(0)) this.onEvent(e);
  }

  onEvent(event: Pick<SaltEvent, 'tag' | 'data'>): void {
    const got = progressLineOf(event, this.opts.color);
    if (got === undefined) return;
    if (this.jid === undefined) {
      // bounded: only a job that has not been named yet is waited for
      if (this.early.length < 1000) this.early.push(event);
      return;
    }
    if (got.jid !== this.jid) return;
    this.opts.print(this.prefix ? `${printable(got.minion)}:${got.line}` : got.line);
  }
}

/** Follows the master's bus for `printer` until close(); resolves once the request is sent. */
export async function followStateProgress(socket: string, printer: StateProgressPrinter, accessGroup?: string): Promise<{ close(): void }> {
  const conn: ControlConnection = await openControl(socket, accessGroup);
  conn.onMessage((m) => {
    if (m.t === 'event') printer.onEvent({ tag: m.tag, data: m.data });
  });
  // a refusal or a closed stream only ends the live lines; the job's output is unaffected
  conn.onClose(() => undefined);
  conn.send({ t: 'events' });
  return { close: () => conn.close('shutdown') };
}
