// One job followed to its end, in the Run tab and the Jobs tab's detail (issue 26 point 1): a
// progress line (returned / running / not connected, filling in as returns arrive) and one row
// per minion with its outcome and its return (a state run as the highstate outputter shows it,
// anything else as a readable tree). While the master still awaits the job, GET
// /jobs/{jid}/outcome and GET /jobs/{jid} are read every POLL_MS and at once when a
// salt/job/<jid>/ret/ event arrives; a row is redrawn only when its outcome or return changed,
// so an opened diff stays open.
import { request, token } from './api.js';
import { byName, el, fill } from './dom.js';
import { onEvent } from './events.js';
import { highstateView, isHighstate } from './highstate.js';
import { nested } from './nested.js';

const POLL_MS = 1000;
export const OUTCOME_LABEL = { ok: 'returned', failed: 'failed', running: 'running', not_connected: 'not connected', no_return: 'did not return' };
export const STATUS_LABEL = { ok: 'ok', failed: 'failed', running: 'running', partial: 'partial' };

/** A return as the operator reads it. */
export function returnView(ret) {
  return isHighstate(ret) ? highstateView(ret) : el('pre', { className: 'ret' }, nested(ret));
}

function minionRow(id, outcome, ret, has) {
  const waiting = outcome === 'running' ? 'waiting for its return\u2026' : outcome === 'not_connected' ? 'not connected to the master' : '';
  return el(
    'tr',
    { dataset: { id, outcome }, className: `outcome-${outcome}` },
    el('td', { className: 'id' }, id),
    el('td', {}, el('span', { className: `badge ${outcome}` }, OUTCOME_LABEL[outcome] ?? outcome)),
    el('td', { className: 'ret-cell' }, has ? returnView(ret) : el('span', { className: 'muted' }, waiting)),
  );
}

function count(outcomes, ...which) {
  return Object.values(outcomes).filter((o) => which.includes(o)).length;
}

/** "2 of 3 returned (1 failed), 1 running, 0 not connected" with a <progress> bar. */
function progressView(view) {
  const o = view.minions ?? {};
  const returned = count(o, 'ok', 'failed');
  const failed = count(o, 'failed');
  const running = count(o, 'running');
  const offline = count(o, 'not_connected');
  const missing = count(o, 'no_return');
  const total = Object.keys(o).length;
  const text = [`${returned} of ${total} returned${failed > 0 ? ` (${failed} failed)` : ''}`, `${running} running`, `${offline} not connected`];
  if (missing > 0) text.push(`${missing} did not return`);
  return el(
    'div',
    { className: `progress status-${view.status}`, dataset: { status: view.status, returned: String(returned), running: String(running), failed: String(failed), offline: String(offline) } },
    el('span', { className: `badge ${view.status}` }, STATUS_LABEL[view.status] ?? view.status),
    el('progress', { max: String(Math.max(1, total)), value: String(returned) }),
    el('span', { className: 'progress-text' }, text.join(', ')),
  );
}

/** Follows one job at a time into `nodes` {progress, rows}; watch() replaces the job followed. */
export class JobWatch {
  constructor(nodes, onError) {
    this.nodes = nodes;
    this.onError = onError;
    this.gen = 0;
    this.timer = undefined;
    this.busy = false;
    this.again = false;
    this.shown = new Map();
    this.unsubscribe = onEvent((tag) => {
      if (this.jid && this.running && tag.startsWith(`salt/job/${this.jid}/ret/`)) this.refresh();
    });
  }

  /** Starts following `jid`; resolves after the first drawing, with the job's outcome. */
  watch(jid) {
    this.stop();
    this.jid = jid;
    this.running = true;
    this.gen += 1;
    this.shown = new Map();
    fill(this.nodes.rows, []);
    fill(this.nodes.progress, []);
    return this.refresh();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = false;
    this.gen += 1;
  }

  async refresh() {
    // logged out meanwhile: nothing more to follow
    if (!token()) {
      this.stop();
      return undefined;
    }
    if (this.busy) {
      this.again = true;
      return undefined;
    }
    this.busy = true;
    const gen = this.gen;
    const jid = this.jid;
    try {
      clearTimeout(this.timer);
      const path = `/jobs/${encodeURIComponent(jid)}`;
      const [outcome, job] = await Promise.all([request('GET', `${path}/outcome`), request('GET', path)]);
      if (gen !== this.gen) return undefined;
      const view = outcome?.return?.[0] ?? {};
      this.draw(view, job?.return?.[0] ?? {});
      this.running = view.status === 'running';
      if (this.running) this.timer = setTimeout(() => this.refresh(), POLL_MS);
      return view;
    } catch (err) {
      if (gen === this.gen) {
        this.running = false;
        this.onError(err);
      }
      return undefined;
    } finally {
      this.busy = false;
      if (this.again && gen === this.gen && this.running) {
        this.again = false;
        this.refresh();
      }
      this.again = false;
    }
  }

  draw(view, returns) {
    fill(this.nodes.progress, [progressView(view)]);
    const ids = [...new Set([...Object.keys(view.minions ?? {}), ...Object.keys(returns)])].sort(byName);
    const rows = ids.map((id) => {
      const outcome = view.minions?.[id] ?? 'ok';
      const has = Object.hasOwn(returns, id);
      const key = `${outcome}\u0000${has}`;
      const old = this.shown.get(id);
      if (old && old.key === key) return old.row;
      const row = minionRow(id, outcome, returns[id], has);
      this.shown.set(id, { key, row });
      return row;
    });
    // keeps rows that did not change in place (an opened <details> stays open)
    const body = this.nodes.rows;
    if (rows.length === 0) fill(body, [el('tr', {}, el('td', { colspan: 3, className: 'muted' }, 'no minion was sent this job'))]);
    else if (rows.some((r, i) => body.children[i] !== r) || body.children.length !== rows.length) body.replaceChildren(...rows);
  }
}
