// The live event stream: GET /events as server-sent events (salt-api's format: each message's
// data is {"tag", "data"}). EventSource cannot send headers, so the token goes in ?token= as
// salt-api allows for this route only. The newest MAX events are kept.
import { token } from './api.js';
import { byId, el } from './dom.js';

const MAX = 300;
let source;
let paused = false;
/** Listeners of every event's tag (a job being followed refreshes on its returns), paused or not. */
const listeners = new Set();

/** Calls fn(tag, data) for each event; returns the unsubscribe. */
export function onEvent(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function status(text) {
  byId('events-status').textContent = text;
}

function add(tag, data) {
  const filter = byId('events-filter').value.trim();
  const item = el(
    'li',
    { dataset: { tag }, hidden: filter !== '' && !tag.includes(filter) },
    el('div', { className: 'tag' }, el('time', {}, new Date().toLocaleTimeString()), ' ', tag),
    el('pre', {}, typeof data === 'string' ? data : JSON.stringify(data)),
  );
  const list = byId('events-list');
  list.prepend(item);
  while (list.childElementCount > MAX) list.lastElementChild.remove();
}

export function startEvents() {
  stopEvents();
  const t = token();
  if (!t) return;
  source = new EventSource(`/events?token=${encodeURIComponent(t)}`);
  source.addEventListener('open', () => status('connected'));
  source.addEventListener('error', () => status(source && source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting\u2026'));
  source.addEventListener('message', (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch {
      msg = { tag: '(not JSON)', data: e.data };
    }
    const tag = typeof msg?.tag === 'string' ? msg.tag : '(no tag)';
    for (const fn of listeners) fn(tag, msg?.data);
    if (!paused) add(tag, msg?.data ?? msg);
  });
}

export function stopEvents() {
  source?.close();
  source = undefined;
}

export function initEvents() {
  byId('events-pause').addEventListener('click', () => {
    paused = !paused;
    byId('events-pause').textContent = paused ? 'Resume' : 'Pause';
  });
  byId('events-clear').addEventListener('click', () => byId('events-list').replaceChildren());
  byId('events-filter').addEventListener('input', () => {
    const f = byId('events-filter').value.trim();
    for (const li of byId('events-list').children) li.hidden = f !== '' && !li.dataset.tag.includes(f);
  });
}
