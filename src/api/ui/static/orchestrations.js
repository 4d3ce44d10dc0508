// Recent orchestrations (state.orchestrate runs) from the job cache: each run's runner jid, its
// SLS, who ran it, its outcome and every step's outcome in run order (Salt's highstate of the
// `<master>_master` minion, as jobs.lookup_jid returns it).
import { runner } from './api.js';
import { byId, el, fill } from './dom.js';

const SHOWN = 20;

/** The run's steps in run order: [{id, result, comment}]. */
function stepsOf(stored) {
  const ret = stored && typeof stored === 'object' ? Object.values(stored)[0] : undefined;
  // the runner job's stored return is its ret event's data ({fun, jid, return, success, ...}), as Salt's RunnerClient stores it
  const byMaster = ret && typeof ret === 'object' && ret.return && typeof ret.return === 'object' && 'data' in ret.return ? ret.return : ret;
  const data = byMaster?.data && typeof byMaster.data === 'object' ? Object.values(byMaster.data)[0] : undefined;
  if (Array.isArray(data)) return { errors: data.map(String), steps: [] };
  const steps = Object.values(data ?? {})
    .filter((s) => s && typeof s === 'object')
    .sort((a, b) => (a.__run_num__ ?? 0) - (b.__run_num__ ?? 0))
    .map((s) => ({ id: String(s.__id__ ?? s.name ?? ''), result: s.result, comment: String(s.comment ?? '') }));
  return { errors: [], steps, retcode: byMaster?.retcode };
}

function outcome(result) {
  if (result === true) return el('span', { className: 'ok' }, 'succeeded');
  if (result === null) return el('span', { className: 'muted' }, 'would change');
  return el('span', { className: 'bad' }, 'failed');
}

function row(jid, job, stored) {
  const { errors, steps, retcode } = stepsOf(stored);
  // the SLS given positionally, or as mods= (Salt's Arguments list ends with the keyword arguments)
  const args = Array.isArray(job.Arguments) ? job.Arguments : [];
  const kw = args.find((a) => a && typeof a === 'object' && !Array.isArray(a));
  const sls = typeof args[0] === 'string' ? args[0] : typeof kw?.mods === 'string' ? kw.mods : Array.isArray(kw?.mods) ? kw.mods.join(',') : '';
  const list = el(
    'ul',
    { className: 'steps' },
    ...errors.map((e) => el('li', { className: 'bad' }, e)),
    ...steps.map((s) => el('li', { dataset: { step: s.id }, title: s.comment }, el('span', { className: 'id' }, s.id), ' ', outcome(s.result))),
  );
  const overall = stored === undefined ? el('span', { className: 'muted' }, 'running') : outcome(retcode === 0);
  return el(
    'tr',
    { dataset: { jid } },
    el('td', { className: 'id' }, jid),
    el('td', {}, sls),
    el('td', {}, String(job.User ?? '')),
    el('td', {}, String(job.StartTime ?? '')),
    el('td', {}, overall),
    el('td', {}, list),
  );
}

export async function refreshOrchestrations() {
  const jobs = (await runner('jobs.list_jobs', { search_function: 'runner.state.orchestrate' })) ?? {};
  const recent = Object.entries(jobs)
    .sort(([a], [b]) => b.localeCompare(a))
    .slice(0, SHOWN);
  const rows = await Promise.all(
    recent.map(async ([jid, job]) => {
      const stored = await runner('jobs.lookup_jid', { jid });
      return row(jid, job, stored && Object.keys(stored).length > 0 ? stored : undefined);
    }),
  );
  byId('orch-summary').textContent = `${recent.length} recent orchestration${recent.length === 1 ? '' : 's'}`;
  fill(byId('orch-rows'), rows.length > 0 ? rows : [el('tr', {}, el('td', { colspan: 6, className: 'muted' }, 'no orchestrations yet'))]);
}
