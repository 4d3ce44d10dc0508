// The job launcher: target, target type, function and arguments; "Preview targets" asks the
// master which minions the target matches (runner manage.match, no job published) and only then
// enables Run, which publishes through client local_async and follows the job (job-view.js):
// each minion returned / running / not connected, filling in as the returns arrive.
import { lowstate, runner } from './api.js';
import { byId, el, fill } from './dom.js';
import { JobWatch } from './job-view.js';

const PREVIEW_LIMIT = 500;

/** Salt CLI style: one argument per line; `name=value` (name an identifier) is a keyword argument. */
export function parseArgs(text) {
  const arg = [];
  const kwarg = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(line);
    if (m) kwarg[m[1]] = m[2];
    else arg.push(line);
  }
  return { arg, kwarg };
}

function target() {
  return { tgt: byId('run-tgt').value.trim(), tgt_type: byId('run-tgt-type').value };
}

let previewed = '';
let watch;

function previewKey() {
  const t = target();
  return `${t.tgt_type}\u0000${t.tgt}`;
}

function idList(ids) {
  const items = ids.slice(0, PREVIEW_LIMIT).map((id) => el('li', {}, id));
  if (ids.length > PREVIEW_LIMIT) items.push(el('li', { className: 'muted' }, `\u2026 and ${ids.length - PREVIEW_LIMIT} more`));
  return items;
}

async function preview() {
  const t = target();
  const r = (await runner('manage.match', t)) ?? {};
  const minions = Array.isArray(r.minions) ? r.minions.filter((m) => typeof m === 'string') : [];
  const offline = Array.isArray(r.not_connected) ? r.not_connected : [];
  const missing = Array.isArray(r.missing) ? r.missing : [];
  byId('run-matched').hidden = false;
  byId('run-matched-count').textContent = `(${minions.length})`;
  const notes = [];
  if (offline.length > 0) notes.push(`${offline.length} not connected: ${offline.slice(0, 20).join(', ')}${offline.length > 20 ? ', \u2026' : ''}`);
  if (missing.length > 0) notes.push(`${missing.length} listed but unknown: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', \u2026' : ''}`);
  if (minions.length === 0) notes.push('the target matches no minion: nothing would run');
  byId('run-matched-warn').textContent = notes.join('; ');
  fill(byId('run-matched-list'), idList(minions));
  previewed = minions.length > 0 ? previewKey() : '';
  byId('run-submit').disabled = previewed === '';
}

async function run() {
  if (previewed !== previewKey()) {
    byId('run-submit').disabled = true;
    return;
  }
  const { arg, kwarg } = parseArgs(byId('run-args').value);
  const fun = byId('run-fun').value.trim();
  const submit = byId('run-submit');
  submit.disabled = true;
  byId('run-result').hidden = false;
  byId('run-result-summary').textContent = `publishing ${fun}\u2026`;
  byId('run-result').dataset.jid = '';
  watch.stop();
  fill(byId('run-returns'), []);
  fill(byId('run-progress'), []);
  try {
    const chunk = { client: 'local_async', ...target(), fun, arg };
    if (Object.keys(kwarg).length > 0) chunk.kwarg = kwarg;
    const r = (await lowstate(chunk)) ?? {};
    if (typeof r.jid !== 'string') {
      byId('run-result-summary').textContent = `${fun}: the target matched no minion; nothing ran`;
      return;
    }
    byId('run-result').dataset.jid = r.jid;
    byId('run-result-summary').textContent = `${fun}, job ${r.jid}`;
    await watch.watch(r.jid);
  } finally {
    submit.disabled = false;
  }
}

export function initRun(onError) {
  watch = new JobWatch({ progress: byId('run-progress'), rows: byId('run-returns') }, onError);
  byId('run-preview').addEventListener('click', () => preview().catch(onError));
  byId('run-form').addEventListener('submit', (e) => {
    e.preventDefault();
    run().catch(onError);
  });
  // a changed target needs a new preview before it runs
  for (const id of ['run-tgt', 'run-tgt-type']) {
    byId(id).addEventListener('input', () => {
      byId('run-submit').disabled = previewed !== previewKey();
    });
  }
}
