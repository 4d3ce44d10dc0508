// The minion's side of a state_progress message (Salt's state_events): one finished state's
// return, kept within the event size limit the master enforces (MAX_EVENT_JSON), so a state with
// a large diff still shows its line: its changes, then its comment, are shortened first. The
// job's return is never shortened; this is only the live copy.

import { MAX_EVENT_JSON, MAX_STATE_TAG, type StateProgress } from './messages.js';

/** A comment in a progress message is cut to this many characters when the return is too large. */
export const PROGRESS_COMMENT_MAX = 4096;

/** What stands in for changes too large for a progress message. */
export function changesOmitted(size: number): Record<string, unknown> {
  return { __omitted__: `${size} characters of JSON, more than a progress event carries; the job's return has them` };
}

/** `ret` as a progress message carries it: unchanged when it fits, else with its changes (then comment) shortened. */
export function boundedProgressRet(ret: Readonly<Record<string, unknown>>, limit = MAX_EVENT_JSON): Record<string, unknown> {
  const size = JSON.stringify(ret).length;
  if (size <= limit) return { ...ret };
  const changesSize = JSON.stringify(ret.changes ?? {}).length;
  const out: Record<string, unknown> = { ...ret, changes: changesOmitted(changesSize) };
  if (JSON.stringify(out).length <= limit) return out;
  const comment = typeof out.comment === 'string' ? out.comment : '';
  out.comment = comment.length > PROGRESS_COMMENT_MAX ? `${comment.slice(0, PROGRESS_COMMENT_MAX)}... (shortened; the job's return has all of it)` : comment;
  if (JSON.stringify(out).length <= limit) return out;
  // still too large (a huge name or warnings): only what a progress line shows
  const keep = ['name', 'result', 'comment', '__id__', '__sls__', '__run_num__', 'start_time', 'duration'];
  const minimal: Record<string, unknown> = {};
  for (const k of keep) if (k in out) minimal[k] = k === 'name' && typeof out[k] === 'string' ? (out[k] as string).slice(0, 1024) : out[k];
  minimal.changes = out.changes;
  return minimal;
}

/** The message for one finished state, or undefined when its tag is too long to send. */
export function stateProgressMessage(jid: string, p: { n: number; len: number; tag: string; ret: Readonly<Record<string, unknown>> }): StateProgress | undefined {
  if (p.tag.length === 0 || p.tag.length > MAX_STATE_TAG) return undefined;
  return { t: 'state_progress', jid, n: p.n, len: Math.max(1, p.len), tag: p.tag, ret: boundedProgressRet(p.ret) };
}
