// State returns as Salt's highstate outputter shows them (issue 26 point 1): per minion a summary
// (succeeded, failed, changed, total run time), then one block per state in run order with its
// result colour (green True, cyan True with changes, red False, yellow None), ID, function, name,
// comment and changes; a diff or large changes fold into <details>. Text only, never HTML.
import { el } from './dom.js';
import { nested } from './nested.js';

/** A highstate return: {"<fun>_|-<id>_|-<name>_|-<fn>": {result, comment, changes, ...}}. */
export function isHighstate(ret) {
  if (ret === null || typeof ret !== 'object' || Array.isArray(ret)) return false;
  const entries = Object.entries(ret);
  return entries.length > 0 && entries.every(([k, v]) => k.includes('_|-') && v !== null && typeof v === 'object' && 'result' in v);
}

function hasChanges(c) {
  return c.changes !== null && typeof c.changes === 'object' && Object.keys(c.changes).length > 0;
}

/** ok (True, nothing changed), changed (True with changes), failed (False), pending (None: test=True). */
export function stateClass(c) {
  if (c.result === false) return 'failed';
  if (c.result === null || c.result === undefined) return 'pending';
  return hasChanges(c) ? 'changed' : 'ok';
}

function parts(key, c) {
  const p = key.split('_|-');
  return { id: String(c.__id__ ?? p[1] ?? key), fun: p.length >= 4 ? `${p[0]}.${p[p.length - 1]}` : p[0], name: String(c.name ?? p[2] ?? '') };
}

function ms(v) {
  const n = typeof v === 'number' ? v : Number.parseFloat(String(v ?? ''));
  return Number.isFinite(n) ? n : 0;
}

export function summarize(ret) {
  const chunks = Object.values(ret);
  const s = { succeeded: 0, failed: 0, changed: 0, pending: 0, total: chunks.length, durationMs: 0 };
  for (const c of chunks) {
    const k = stateClass(c);
    if (k === 'failed') s.failed += 1;
    else s.succeeded += 1;
    if (k === 'changed' || (k === 'pending' && hasChanges(c))) s.changed += 1;
    if (k === 'pending') s.pending += 1;
    s.durationMs += ms(c.duration);
  }
  return s;
}

function duration(n) {
  return n >= 1000 ? `${(n / 1000).toFixed(3)} s` : `${n.toFixed(3)} ms`;
}

/** A unified diff with added and removed lines marked (each line a text node in a span). */
function diffBlock(text) {
  return el(
    'pre',
    { className: 'diff' },
    ...String(text)
      .split('\n')
      .map((line) =>
        el('span', { className: line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : '' }, `${line}\n`),
      ),
  );
}

/** Changes: small ones inline, a diff or anything longer than a few lines folded in <details>. */
function changesBlock(changes) {
  const { diff, ...rest } = changes;
  const body = [];
  if (Object.keys(rest).length > 0) body.push(el('pre', { className: 'changes-text' }, nested(rest)));
  if (typeof diff === 'string') body.push(diffBlock(diff));
  const text = nested(rest);
  const fold = typeof diff === 'string' || text.split('\n').length > 6;
  const label = typeof diff === 'string' ? 'Changes (diff)' : `Changes (${Object.keys(changes).length})`;
  if (!fold) return el('div', { className: 'changes' }, el('span', { className: 'label' }, 'Changes'), ...body);
  return el('details', { className: 'changes' }, el('summary', {}, label), ...body);
}

function stateBlock(key, c) {
  const { id, fun, name } = parts(key, c);
  const cls = stateClass(c);
  const result = c.result === true ? 'True' : c.result === false ? 'False' : 'None';
  return el(
    'div',
    { className: `state ${cls}`, dataset: { stateId: id, result: cls } },
    el(
      'div',
      { className: 'state-head' },
      el('span', { className: `badge ${cls}`, title: 'Result' }, result),
      el('span', { className: 'state-id' }, id),
      el('span', { className: 'state-fun' }, fun),
      name !== id ? el('span', { className: 'state-name', title: 'Name' }, name) : null,
      c.duration !== undefined ? el('span', { className: 'muted state-time' }, duration(ms(c.duration))) : null,
    ),
    c.comment !== undefined && c.comment !== '' ? el('div', { className: 'comment' }, Array.isArray(c.comment) ? c.comment.join('\n') : String(c.comment)) : null,
    hasChanges(c) ? changesBlock(c.changes) : null,
  );
}

/** The summary line: "3 succeeded (1 changed), 1 failed, 4 states in 12.345 ms". */
export function summaryText(s) {
  const parts = [`${s.succeeded} succeeded${s.changed > 0 ? ` (${s.changed} changed)` : ''}`, `${s.failed} failed`];
  if (s.pending > 0) parts.push(`${s.pending} would change (test)`);
  return `${parts.join(', ')}; ${s.total} state${s.total === 1 ? '' : 's'} in ${duration(s.durationMs)}`;
}

/** One minion's state run: the summary, then every state in run order. */
export function highstateView(ret) {
  const s = summarize(ret);
  const chunks = Object.entries(ret).sort(([, a], [, b]) => ms(a.__run_num__) - ms(b.__run_num__));
  return el(
    'div',
    { className: 'highstate' },
    el('div', { className: `hs-summary ${s.failed > 0 ? 'failed' : s.changed > 0 ? 'changed' : 'ok'}` }, summaryText(s)),
    ...chunks.map(([k, c]) => stateBlock(k, c)),
  );
}
