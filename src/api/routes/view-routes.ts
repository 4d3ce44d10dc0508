// brine's routes for the web view (issue 26 point 1), beside salt-api's: each job's status
// (GET /jobs/outcomes, GET /jobs/{jid}/outcome), every minion's session (GET /fleet/presence:
// manage.presence stored as no runner job), the fleet's OS, roles and last highstate
// (GET /fleet/summary), the one-day chart (GET /fleet/history), and the configured eauth
// backends on GET /login (public, as salt-api's "Please log in"). Read-only; each is checked
// as the salt-api call it extends (runner jobs.*, grains.items on '*', the '@stats' view).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isJid, PRESENCE_SAMPLE_WINDOW_MS } from '../../jobs/index.js';
import { BrineError } from '../../util/errors.js';
import { principalOf } from '../auth-hook.js';
import type { ApiBackend } from '../backend.js';
import { authorizeChunk } from '../execute.js';
import { fleetHistory } from '../fleet-history.js';
import { requireView } from '../fleet-views.js';
import { jobView, lastHighstates, type Liveness } from '../job-outcomes.js';
import { respond } from '../media.js';
import { presenceWithPending } from '../runners/manage-runners.js';

const MAX_JOBS = 1000;
/** Jobs of the last day read for the chart and the last highstates. */
const DAY_JOBS = 10_000;

export function registerViewRoutes(app: FastifyInstance, backend: ApiBackend): void {
  const check = (req: FastifyRequest, client: 'runner' | 'local', fun: string, tgt = '') =>
    authorizeChunk({ backend, who: principalOf(req), source: req.ip, gone: () => false, onGone: () => {} }, { client, fun, tgt, tgtType: 'glob', arg: [], kwarg: {} });

  /** Who is connected and which jobs the master still awaits, read once per request. */
  const liveness = async () => {
    const [sessions, active] = await Promise.all([backend.presence(), backend.activeJids()]);
    const connected = new Set(sessions.filter((s) => s.state === 'connected').map((s) => s.id));
    const running = new Set(active);
    return { sessions, of: (jid: string): Liveness => ({ active: running.has(jid), connected: (id) => connected.has(id) }) };
  };

  app.get('/login', { config: { public: true } }, (req, reply) => {
    reply.header('www-authenticate', 'Session');
    return respond(req, reply, { status: 401, return: 'Please log in', eauth: backend.auth.eauthNames }, 401);
  });

  app.get<{ Querystring: { limit?: string } }>('/jobs/outcomes', async (req, reply) => {
    const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_JOBS) throw new BrineError('BAD_ARGUMENTS', `limit must be a whole number from 1 to ${MAX_JOBS}`);
    await check(req, 'runner', 'jobs.list_jobs');
    const live = await liveness();
    const jobs = backend.jobs.listJobs({ limit }).map((job) => jobView(job, backend.jobs.getReturns(job.jid), live.of(job.jid), false));
    return respond(req, reply, { return: [jobs] });
  });

  app.get<{ Params: { jid: string } }>('/jobs/:jid/outcome', async (req, reply) => {
    const jid = req.params.jid;
    if (!isJid(jid)) throw new BrineError('INVALID_JID', `'${String(jid).slice(0, 40)}' is not a jid (20 digits)`);
    await check(req, 'runner', 'jobs.lookup_jid');
    const job = backend.jobs.getJob(jid);
    if (!job) throw new BrineError('API_NOT_FOUND', `no job ${jid} in the job cache (expired after keep_jobs_seconds, or never published); see GET /jobs`);
    const live = await liveness();
    return respond(req, reply, { return: [jobView(job, backend.jobs.getReturns(jid), live.of(jid), true)] });
  });

  // manage.presence without a runner job: the Fleet tab reads it every 5 s, and each runner call
  // is a job in the job cache (Salt's RunnerClient stores every one)
  app.get('/fleet/presence', async (req, reply) => {
    await check(req, 'runner', 'manage.presence');
    return respond(req, reply, { return: [await presenceWithPending(backend)] });
  });

  app.get('/fleet/summary', async (req, reply) => {
    await check(req, 'local', 'grains.items', '*');
    await check(req, 'runner', 'jobs.list_jobs');
    const now = backend.clock.now();
    const highstates = lastHighstates(backend.jobs.listJobs({ since: now - PRESENCE_SAMPLE_WINDOW_MS, limit: DAY_JOBS }), (jid) => backend.jobs.getReturns(jid));
    const out: Record<string, unknown> = {};
    for (const id of backend.keys.list('accepted')) {
      const g = backend.grainsOf(id) ?? {};
      out[id] = {
        os: typeof g.os === 'string' ? g.os : undefined,
        osrelease: typeof g.osrelease === 'string' || typeof g.osrelease === 'number' ? String(g.osrelease) : undefined,
        roles: Array.isArray(g.roles) ? g.roles.map(String) : typeof g.roles === 'string' ? [g.roles] : [],
        highstate: highstates[id],
      };
    }
    return respond(req, reply, { return: [out] });
  });

  app.get('/fleet/history', async (req, reply) => {
    requireView(backend, principalOf(req), 'stats', req.ip);
    await check(req, 'runner', 'jobs.list_jobs');
    const now = backend.clock.now();
    const live = await liveness();
    // minion jobs only: runner jobs are mostly front ends' own reads (the view's manage.presence every few seconds)
    const jobs = backend.jobs
      .listJobs({ since: now - PRESENCE_SAMPLE_WINDOW_MS, limit: DAY_JOBS })
      .filter((job) => !job.fun.startsWith('runner.'))
      .map((job) => ({ startedAt: job.startedAt, status: jobView(job, backend.jobs.getReturns(job.jid), live.of(job.jid), false).status }));
    const current = { at: now, connected: live.sessions.filter((s) => s.state === 'connected').length, known: live.sessions.length };
    return respond(req, reply, { return: [fleetHistory(now, backend.jobs.presenceSamples(now - PRESENCE_SAMPLE_WINDOW_MS), current, jobs)] });
  });
}
