// The jobs list (GET /jobs, newest first, paged) and one job's returns (GET /jobs/{jid}).
import { request } from './api.js';
import { Pager, byId, el, fill } from './dom.js';
import { returnRows } from './run.js';

let jobs = [];
let pager;
let reportError = () => {};

function started(job) {
  return typeof job.StartTime === 'string' ? job.StartTime : '';
}

async function openJob(jid) {
  const body = await request('GET', `/jobs/${encodeURIComponent(jid)}`);
  const info = body?.info?.[0] ?? {};
  let returns = body?.return?.[0];
  if ((!returns || typeof returns !== 'object') && info.Result && typeof info.Result === 'object') {
    returns = Object.fromEntries(Object.entries(info.Result).map(([id, r]) => [id, r && typeof r === 'object' && 'return' in r ? r.return : r]));
  }
  byId('job-detail').hidden = false;
  byId('job-detail-jid').textContent = jid;
  byId('job-detail-fun').textContent = typeof info.Function === 'string' ? info.Function : '';
  const entries = Object.entries(returns ?? {}).sort(([a], [b]) => a.localeCompare(b));
  fill(byId('job-returns'), entries.length > 0 ? returnRows(entries) : [el('tr', {}, el('td', { colspan: 2, className: 'muted' }, 'no returns'))]);
}

function row(job) {
  const target = Array.isArray(job.Target) ? job.Target.join(',') : String(job.Target ?? '');
  return el(
    'tr',
    { dataset: { jid: job.jid }, className: 'clickable', onclick: () => openJob(job.jid).catch(reportError) },
    el('td', { className: 'id' }, job.jid),
    el('td', {}, String(job.Function ?? '')),
    el('td', {}, `${target}${job['Target-type'] ? ` (${job['Target-type']})` : ''}`),
    el('td', {}, String(job.User ?? '')),
    el('td', {}, started(job)),
  );
}

export function renderJobs() {
  const text = byId('jobs-filter').value.trim().toLowerCase();
  const shown = text === '' ? jobs : jobs.filter((j) => [j.jid, j.Function, String(j.Target ?? '')].some((v) => typeof v === 'string' && v.toLowerCase().includes(text)));
  fill(byId('jobs-rows'), pager.slice(shown).map(row));
}

export async function refreshJobs() {
  const body = await request('GET', '/jobs');
  const list = body?.return?.[0] ?? {};
  jobs = Object.entries(list)
    .filter(([, j]) => j && typeof j === 'object')
    .map(([jid, j]) => ({ ...j, jid }))
    .sort((a, b) => b.jid.localeCompare(a.jid));
  byId('jobs-summary').textContent = `${jobs.length} job${jobs.length === 1 ? '' : 's'}`;
  renderJobs();
}

export function initJobs(onError) {
  reportError = onError;
  pager = new Pager(byId('jobs-pager'), renderJobs, 50);
  byId('jobs-filter').addEventListener('input', () => {
    pager.reset();
    renderJobs();
  });
  byId('jobs-refresh').addEventListener('click', () => refreshJobs().catch(onError));
}
