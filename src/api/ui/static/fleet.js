// Fleet at a glance: counts per state and a filterable, paged table of every minion's session
// (GET /fleet/presence, manage.presence without a runner job: connected and disconnected
// sessions plus pending keys), with each minion's OS, roles and last highstate
// (GET /fleet/summary) and the one-day chart (GET /fleet/history). A user whose ACL does not reach those two still sees the sessions.
import { request } from './api.js';
import { drawHistory, historyText } from './chart.js';
import { Pager, ago, byId, byName, el, fill, when } from './dom.js';
import { nested } from './nested.js';

let sessions = [];
let summary = {};
/** The chart changes by the hour: re-read at most once a minute (it reads a day of jobs), or on Refresh. */
const HISTORY_MS = 60_000;
let historyAt = 0;
let pager;
let reportError = () => {};

/** GET /minions/{id}: salt-api answers {"return": [{id: grains}]}. */
async function openMinion(id) {
  const body = await request('GET', `/minions/${encodeURIComponent(id)}`);
  const grains = body?.return?.[0]?.[id];
  byId('minion-detail').hidden = false;
  byId('minion-detail-id').textContent = id;
  byId('minion-grains').textContent = grains === undefined ? 'no grains cached for this minion' : nested(grains);
}

function countOf(list) {
  const c = { connected: 0, disconnected: 0, pending: 0, flapping: 0 };
  for (const s of list) {
    if (s.state in c) c[s.state] += 1;
    if (s.flapping) c.flapping += 1;
  }
  return c;
}

function matches(s, text, state) {
  if (state === 'flapping' ? !s.flapping : state !== '' && s.state !== state) return false;
  if (text === '') return true;
  const extra = summary[s.id] ?? {};
  return [s.id, s.remote, s.lastDisconnectReason, extra.os, ...(extra.roles ?? [])].some((v) => typeof v === 'string' && v.toLowerCase().includes(text));
}

function rtt(ms) {
  return typeof ms === 'number' ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : '';
}

const HIGHSTATE_LABEL = { ok: 'ok', changed: 'changed', failed: 'failed' };

function highstateCell(h) {
  if (!h) return el('td', { className: 'muted' }, '');
  return el(
    'td',
    { title: `${h.fun} job ${h.jid}, ${when(h.at)}` },
    el('span', { className: `badge hs-${h.result}` }, HIGHSTATE_LABEL[h.result] ?? h.result),
    ' ',
    el('span', { className: 'muted' }, ago(h.at)),
  );
}

function row(s) {
  const state = s.flapping ? `${s.state}, flapping` : s.state;
  const extra = summary[s.id] ?? {};
  const os = [extra.os, extra.osrelease].filter((v) => typeof v === 'string' && v !== '').join(' ');
  const failed = extra.highstate?.result === 'failed';
  const reason = s.lastDisconnectReason ? `${s.lastDisconnectReason}${s.lastDisconnectAt ? ` (${ago(s.lastDisconnectAt)})` : ''}` : '';
  return el(
    'tr',
    { dataset: { id: s.id }, className: `clickable state-${s.state}${s.flapping ? ' flapping' : ''}${failed ? ' failed' : ''}`, onclick: () => openMinion(s.id).catch(reportError) },
    el('td', { className: 'id' }, s.id),
    el('td', {}, el('span', { className: `badge ${s.state}` }, state)),
    el('td', { className: 'os' }, os),
    el('td', { className: 'roles' }, Array.isArray(extra.roles) ? extra.roles.join(', ') : ''),
    highstateCell(extra.highstate),
    el('td', { title: when(s.connectedSince) }, s.connectedSince ? ago(s.connectedSince) : ''),
    el('td', {}, s.remote ?? ''),
    el('td', { className: 'num' }, rtt(s.rttMs)),
    el('td', { className: 'num' }, String(s.reconnects ?? 0)),
    el('td', {}, reason),
  );
}

export function renderFleet() {
  const text = byId('fleet-filter').value.trim().toLowerCase();
  const state = byId('fleet-state').value;
  const shown = sessions.filter((s) => matches(s, text, state));
  fill(byId('fleet-rows'), pager.slice(shown).map(row));
}

/** The fleet summary and chart: optional extras, so a refusal leaves them empty rather than failing the tab. */
async function extras(force) {
  const chartDue = force || Date.now() - historyAt >= HISTORY_MS;
  const [s, h] = await Promise.allSettled([request('GET', '/fleet/summary'), chartDue ? request('GET', '/fleet/history') : Promise.resolve(undefined)]);
  summary = s.status === 'fulfilled' && s.value?.return?.[0] && typeof s.value.return[0] === 'object' ? s.value.return[0] : {};
  if (!chartDue) return;
  historyAt = Date.now();
  const chart = byId('fleet-chart');
  const history = h.status === 'fulfilled' ? h.value?.return?.[0] : undefined;
  chart.hidden = !history || !Array.isArray(history.jobs);
  if (!chart.hidden) fill(byId('fleet-chart-text'), [historyText(drawHistory(byId('fleet-chart-svg'), history))]);
}

/** `force` (the Refresh button) also re-reads the chart. */
export async function refreshFleet(force = false) {
  const started = performance.now();
  // GET /fleet/presence is manage.presence without storing a runner job at each refresh
  const [r] = await Promise.all([request('GET', '/fleet/presence'), extras(force)]);
  const list = Array.isArray(r?.return?.[0]) ? r.return[0] : [];
  sessions = list.filter((s) => s && typeof s.id === 'string').sort((a, b) => byName(a.id, b.id));
  const c = countOf(sessions);
  for (const k of Object.keys(c)) byId(`count-${k}`).textContent = String(c[k]);
  renderFleet();
  // the whole refresh (call, counts, one page drawn); the scale test reads data-ms
  const ms = Math.round(performance.now() - started);
  const updated = byId('fleet-updated');
  updated.textContent = `${sessions.length} minions, updated ${new Date().toLocaleTimeString()} in ${ms} ms`;
  updated.dataset.ms = String(ms);
}

export function initFleet(onError) {
  reportError = onError;
  pager = new Pager(byId('fleet-pager'), renderFleet);
  const again = () => {
    pager.reset();
    renderFleet();
  };
  byId('fleet-filter').addEventListener('input', again);
  byId('fleet-state').addEventListener('change', again);
  byId('fleet-refresh').addEventListener('click', () => refreshFleet(true).catch(onError));
}
