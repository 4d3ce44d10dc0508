// The jobs list (GET /jobs/outcomes: newest first with each job's status and arguments, paged,
// filtered by text and by outcome; runner jobs, most of them the view's own reads, only on request) and one job's detail, opened at the top of the tab and
// followed live while it runs (job-view.js).
import { request } from './api.js';
import { Pager, byId, el, fill } from './dom.js';
import { JobWatch, STATUS_LABEL } from './job-view.js';

const LIMIT = 500;
let jobs = [];
let pager;
let watch;
let reportError = () => {};

/** Salt's command-line spelling: positional arguments, then name=value for the keyword ones. */
export function argumentsText(args) {
  if (!Array.isArray(args)) return '';
  const text = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
  return args
    .flatMap((a) =>
      a && typeof a === 'object' && !Array.isArray(a) && a.__kwarg__ === true
        ? Object.entries(a)
            .filter(([k]) => k !== '__kwarg__')
            .map(([k, v]) => `${k}=${text(v)}`)
        : [text(a)],
    )
    .join(' ');
}

function targetText(job) {
  const target = Array.isArray(job.target) ? job.target.join(',') : String(job.target ?? '');
  return `${target}${job.tgtType && job.tgtType !== 'glob' ? ` (${job.tgtType})` : ''}`;
}

async function openJob(job) {
  const card = byId('job-detail');
  card.hidden = false;
  card.dataset.jid = job.jid;
  byId('job-detail-jid').textContent = job.jid;
  byId('job-detail-fun').textContent = `${job.fun} ${argumentsText(job.arguments)}`.trim();
  byId('job-detail-meta').textContent = `target ${targetText(job)}, by ${job.user}, started ${job.StartTime}`;
  // the detail is above the list: bring it into view, not the row clicked far below
  window.scrollTo(0, 0);
  await watch.watch(job.jid);
}

function row(job) {
  return el(
    'tr',
    { dataset: { jid: job.jid, status: job.status }, className: `clickable status-${job.status}`, onclick: () => openJob(job).catch(reportError) },
    el('td', {}, el('span', { className: `badge ${job.status}` }, STATUS_LABEL[job.status] ?? job.status)),
    el('td', { className: 'id' }, job.jid),
    el('td', {}, job.fun),
    el('td', { className: 'args' }, argumentsText(job.arguments)),
    el('td', {}, targetText(job)),
    el('td', {}, String(job.user ?? '')),
    el('td', {}, job.StartTime ?? ''),
    el('td', { className: `num${job.failed > 0 ? ' bad' : ''}`, title: `${job.failed} failed` }, `${job.returned}/${job.expected}`),
  );
}

export function renderJobs() {
  const text = byId('jobs-filter').value.trim().toLowerCase();
  const status = byId('jobs-status').value;
  const runners = byId('jobs-runners').checked;
  const listed = runners ? jobs : jobs.filter((j) => !j.fun.startsWith('runner.'));
  const by = (s) => listed.filter((j) => j.status === s).length;
  byId('jobs-summary').textContent = `${listed.length} job${listed.length === 1 ? '' : 's'}: ${by('ok')} ok, ${by('failed')} failed, ${by('running')} running, ${by('partial')} partial`;
  const shown = listed.filter(
    (j) =>
      (status === '' || j.status === status) && (text === '' || [j.jid, j.fun, targetText(j), argumentsText(j.arguments), j.user].some((v) => typeof v === 'string' && v.toLowerCase().includes(text))),
  );
  fill(byId('jobs-rows'), pager.slice(shown).map(row));
}

export async function refreshJobs() {
  const body = await request('GET', `/jobs/outcomes?limit=${LIMIT}`);
  const list = body?.return?.[0];
  jobs = Array.isArray(list) ? list.filter((j) => j && typeof j.jid === 'string' && typeof j.fun === 'string') : [];
  renderJobs();
}

export function initJobs(onError) {
  reportError = onError;
  pager = new Pager(byId('jobs-pager'), renderJobs, 50);
  watch = new JobWatch({ progress: byId('job-progress'), rows: byId('job-returns') }, onError);
  const again = () => {
    pager.reset();
    renderJobs();
  };
  byId('jobs-filter').addEventListener('input', again);
  byId('jobs-status').addEventListener('change', again);
  byId('jobs-runners').addEventListener('change', again);
  byId('jobs-refresh').addEventListener('click', () => refreshJobs().catch(onError));
  byId('job-close').addEventListener('click', () => {
    watch.stop();
    byId('job-detail').hidden = true;
  });
}
