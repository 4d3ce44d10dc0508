// Fleet at a glance: counts per state and a filterable, paged table of every minion's session
// (runner manage.presence: connected and disconnected sessions plus pending keys).
import { request, runner } from './api.js';
import { Pager, ago, byId, byName, el, fill, show, when } from './dom.js';

let sessions = [];
let pager;
let reportError = () => {};

/** GET /minions/{id}: salt-api answers {"return": [{id: grains}]}. */
async function openMinion(id) {
  const body = await request('GET', `/minions/${encodeURIComponent(id)}`);
  const grains = body?.return?.[0]?.[id];
  byId('minion-detail').hidden = false;
  byId('minion-detail-id').textContent = id;
  byId('minion-grains').textContent = grains === undefined ? 'no grains cached for this minion' : show(grains);
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
  return [s.id, s.remote, s.lastDisconnectReason].some((v) => typeof v === 'string' && v.toLowerCase().includes(text));
}

function rtt(ms) {
  return typeof ms === 'number' ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : '';
}

function row(s) {
  const state = s.flapping ? `${s.state}, flapping` : s.state;
  const reason = s.lastDisconnectReason ? `${s.lastDisconnectReason}${s.lastDisconnectAt ? ` (${ago(s.lastDisconnectAt)})` : ''}` : '';
  return el(
    'tr',
    { dataset: { id: s.id }, className: `clickable state-${s.state}${s.flapping ? ' flapping' : ''}`, onclick: () => openMinion(s.id).catch(reportError) },
    el('td', { className: 'id' }, s.id),
    el('td', {}, el('span', { className: `badge ${s.state}` }, state)),
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

export async function refreshFleet() {
  const started = performance.now();
  const r = await runner('manage.presence');
  const list = Array.isArray(r) ? r : [];
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
  byId('fleet-refresh').addEventListener('click', () => refreshFleet().catch(onError));
}
