// The Reactor tab: the reactor's recent reactions, newest first (GET /reactions: tag, reactor SLS,
// reaction, outcome, time), filterable by tag or SLS, paged. An error shows its code and message
// as text under the outcome.
import { request } from './api.js';
import { Pager, byId, el, fill, when } from './dom.js';

let reactions = [];
let pager;

function outcomeCell(r) {
  const cell = el('td', {}, el('span', { className: `badge ${r.outcome}` }, r.outcome));
  if (r.jid) cell.append(el('div', { className: 'muted' }, `job ${r.jid}`));
  if (r.error) cell.append(el('div', { className: 'error-text' }, `${r.error.code}: ${r.error.message}`));
  return cell;
}

function row(r) {
  return el(
    'tr',
    { dataset: { outcome: r.outcome, tag: r.tag } },
    el('td', {}, when(r.at)),
    el('td', { className: 'id' }, r.tag),
    el('td', {}, r.sls),
    el('td', {}, r.id ? `${r.id}: ${r.fun ?? ''}` : ''),
    outcomeCell(r),
  );
}

export function renderReactions() {
  const text = byId('reactions-filter').value.trim().toLowerCase();
  const shown = text === '' ? reactions : reactions.filter((r) => [r.tag, r.sls, r.fun ?? ''].some((v) => v.toLowerCase().includes(text)));
  fill(byId('reactions-rows'), pager.slice(shown).map(row));
}

export async function refreshReactions() {
  const body = await request('GET', '/reactions');
  const list = body?.return?.[0];
  reactions = Array.isArray(list) ? list.filter((r) => r && typeof r === 'object' && typeof r.tag === 'string' && typeof r.sls === 'string') : [];
  const failed = reactions.filter((r) => r.outcome !== 'published' && r.outcome !== 'done').length;
  byId('reactions-summary').textContent = `${reactions.length} recent reaction${reactions.length === 1 ? '' : 's'}, ${failed} not run or failed`;
  renderReactions();
}

export function initReactions(onError) {
  pager = new Pager(byId('reactions-pager'), renderReactions, 50);
  byId('reactions-filter').addEventListener('input', () => {
    pager.reset();
    renderReactions();
  });
  byId('reactions-refresh').addEventListener('click', () => refreshReactions().catch(onError));
}
