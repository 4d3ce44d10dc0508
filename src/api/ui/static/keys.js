// Keys by state (wheel key.list_all) with accept / reject / delete. Each action first reads the
// key's fingerprint (key.finger), shows it in a confirmation dialog, and sends it with the action
// (`finger`): the master moves the key only if it still has that fingerprint, so a key swapped
// in between (threats.md #31) is not the one accepted.
import { wheel } from './api.js';
import { Pager, byId, byName, confirmDialog, el, fill } from './dom.js';

const STATES = [
  ['minions_pre', 'pending'],
  ['minions', 'accepted'],
  ['minions_rejected', 'rejected'],
  ['minions_denied', 'denied'],
];
const LABEL = new Map(STATES);

/** Which actions each state offers, with the extra kwargs Salt's wheel key.* needs for it. */
const ACTIONS = new Map([
  [
    'minions_pre',
    [
      ['accept', {}],
      ['reject', {}],
      ['delete', {}],
    ],
  ],
  [
    'minions',
    [
      ['reject', { include_accepted: true }],
      ['delete', {}],
    ],
  ],
  [
    'minions_rejected',
    [
      ['accept', { include_rejected: true }],
      ['delete', {}],
    ],
  ],
  ['minions_denied', [['delete', {}]]],
]);

let keys = [];
let pager;
let onChanged = () => {};
let reportError = () => {};

/** The key's fingerprint in a key.finger answer; denied IDs with several keys come as id#1, id#2 (the first is acted on). */
function fingerprintIn(result, state, id) {
  const byState = result && typeof result === 'object' ? result[state] : undefined;
  if (!byState || typeof byState !== 'object') return undefined;
  const fp = byState[id] ?? byState[`${id}#1`];
  return typeof fp === 'string' ? fp : undefined;
}

async function act(action, extra, id, state) {
  const finger = fingerprintIn(await wheel('key.finger', { match: id }), state, id);
  if (finger === undefined) throw new Error(`the ${LABEL.get(state)} key of ${id} is gone; refresh the list`);
  const ok = await confirmDialog(
    `${action[0].toUpperCase()}${action.slice(1)} the key of this minion?`,
    [
      ['Minion', id],
      ['Key state', LABEL.get(state)],
      ['Fingerprint', finger],
    ],
    action,
  );
  if (!ok) return;
  const moved = await wheel(`key.${action}`, { match: id, finger, ...extra });
  const ids = moved && typeof moved === 'object' ? Object.values(moved).flat() : [];
  if (!ids.includes(id)) throw new Error(`nothing was done: the key of ${id} no longer has fingerprint ${finger}`);
  await refreshKeys();
  onChanged();
}

function row(k) {
  const buttons = (ACTIONS.get(k.state) ?? []).map(([action, extra]) =>
    el('button', { className: `key-${action}${action === 'accept' ? '' : ' danger'}`, dataset: { action }, onclick: () => act(action, extra, k.id, k.state).catch(reportError) }, action),
  );
  return el(
    'tr',
    { dataset: { id: k.id, state: k.state } },
    el('td', { className: 'id' }, k.id),
    el('td', {}, el('span', { className: `badge ${LABEL.get(k.state)}` }, LABEL.get(k.state))),
    el('td', { className: 'actions' }, ...buttons),
  );
}

export function renderKeys() {
  const text = byId('keys-filter').value.trim().toLowerCase();
  const state = byId('keys-state').value;
  const shown = keys.filter((k) => (state === '' || k.state === state) && (text === '' || k.id.toLowerCase().includes(text)));
  fill(byId('keys-rows'), pager.slice(shown).map(row));
}

export async function refreshKeys() {
  const all = (await wheel('key.list_all')) ?? {};
  keys = STATES.flatMap(([state]) => (Array.isArray(all[state]) ? all[state] : []).filter((id) => typeof id === 'string').map((id) => ({ id, state }))).sort((a, b) => byName(a.id, b.id));
  byId('keys-summary').textContent = STATES.map(([s, label]) => `${(all[s] ?? []).length} ${label}`).join(', ');
  renderKeys();
}

export function initKeys(errors, changed) {
  reportError = errors;
  onChanged = changed;
  pager = new Pager(byId('keys-pager'), renderKeys);
  const again = () => {
    pager.reset();
    renderKeys();
  };
  byId('keys-filter').addEventListener('input', again);
  byId('keys-state').addEventListener('change', again);
  byId('keys-refresh').addEventListener('click', () => refreshKeys().catch(errors));
}
