// Salt's "stateful" command protocol: a command reports its own outcome, either as a JSON object
// that is its whole stdout, or as `key=value` pairs (shell-quoted) on its last line, with
// `changed=yes|no` and `comment='...'`. Pure, so it is tested on its own.

import { splitShellWords } from '../../modules/index.js';
import type { StateResult } from '../types.js';

const TRUE = new Set(['yes', 'true', '1', 'y', 'on']);

function isTrue(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return TRUE.has(String(v).toLowerCase());
}

/** Rewrites a cmd state's result from the command's own report (its changes hold run_all's output). */
export function reinterpretStateful(state: StateResult): StateResult {
  const run = state.changes as { stdout?: string; stderr?: string; [k: string]: unknown };
  const out = typeof run.stdout === 'string' ? run.stdout : '';
  const base: StateResult = { ...state, changes: {}, comment: '' };
  if (out.trim() === '') return { ...base, comment: typeof run.stderr === 'string' ? run.stderr : '' };
  let data: Record<string, unknown>;
  let isJson = false;
  let kept = out;
  try {
    const parsed: unknown = JSON.parse(out);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { ...base, result: false, comment: 'script JSON output must be a JSON object (e.g., {})!' };
    }
    data = { ...parsed };
    isJson = true;
  } catch {
    const trimmed = out.replace(/\s+$/, '');
    const idx = trimmed.lastIndexOf('\n');
    const last = idx === -1 ? trimmed : trimmed.slice(idx + 1);
    kept = idx === -1 ? '' : trimmed.slice(0, idx);
    data = {};
    try {
      for (const item of splitShellWords(last)) {
        const eq = item.indexOf('=');
        if (eq <= 0) throw new Error(item);
        data[item.slice(0, eq)] = item.slice(eq + 1);
      }
    } catch {
      return { ...base, result: false, comment: 'Failed parsing script output! Stdout must be JSON or a line of name=value pairs.', changes: { ...run } };
    }
  }
  const changed = isTrue(data.changed ?? 'no');
  let comment = '';
  if ('comment' in data) {
    comment = String(data.comment);
    delete data.comment;
  }
  if (!changed) return { ...base, comment };
  // The command's other output goes with its changes; the protocol line itself does not.
  const changes: Record<string, unknown> = { ...run, ...data, stdout: isJson ? '' : kept };
  return { ...base, comment, changes };
}
