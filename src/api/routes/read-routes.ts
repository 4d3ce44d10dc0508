// GET /minions, /minions/{id}, /jobs, /jobs/{jid}, /keys, /keys/{id}, /stats and /metrics. Each
// is checked against the ACL as the lowstate salt-api runs for it (grains.items on the target,
// runner jobs.*, wheel key.*); /stats and /metrics need '@stats' / '@metrics' (fleet-views.ts).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isJid } from '../../jobs/index.js';
import { minionIdProblem } from '../../util/minion-id.js';
import { BrineError } from '../../util/errors.js';
import { principalOf } from '../auth-hook.js';
import type { ApiBackend } from '../backend.js';
import { authorizeChunk, type CallContext } from '../execute.js';
import { requireView } from '../fleet-views.js';
import type { Chunk } from '../lowstate.js';
import { respond } from '../media.js';
import { lookupJid, RUNNERS } from '../runners.js';
import { jobSummary } from '../salt-shapes.js';
import { fingers, listAll } from '../wheel.js';

export function registerReadRoutes(app: FastifyInstance, backend: ApiBackend): void {
  const ctx = (req: FastifyRequest): CallContext => ({ backend, who: principalOf(req), source: req.ip, gone: () => false, onGone: () => {} });
  const check = (req: FastifyRequest, chunk: Omit<Chunk, 'arg' | 'kwarg'> & Partial<Pick<Chunk, 'arg' | 'kwarg'>>) => authorizeChunk(ctx(req), { arg: [], kwarg: {}, ...chunk });
  const minionId = (raw: string): string => {
    const problem = minionIdProblem(raw);
    if (problem !== undefined) throw new BrineError('INVALID_ID', `'${raw.slice(0, 64)}' is not a valid minion ID: ${problem}`);
    return raw;
  };

  app.get('/minions', async (req, reply) => {
    await check(req, { client: 'local', fun: 'grains.items', tgt: '*', tgtType: 'glob' });
    const out: Record<string, unknown> = {};
    for (const id of backend.keys.list('accepted').sort()) out[id] = backend.grainsOf(id) ?? {};
    return respond(req, reply, { return: [out] });
  });

  app.get<{ Params: { id: string } }>('/minions/:id', async (req, reply) => {
    const id = minionId(req.params.id);
    if (!backend.keys.list('accepted').includes(id)) throw new BrineError('API_NOT_FOUND', `no accepted minion '${id}'; see GET /minions`);
    await check(req, { client: 'local', fun: 'grains.items', tgt: id, tgtType: 'glob' });
    return respond(req, reply, { return: [{ [id]: backend.grainsOf(id) ?? {} }] });
  });

  app.get('/jobs', async (req, reply) => {
    await check(req, { client: 'runner', fun: 'jobs.list_jobs', tgt: '', tgtType: 'glob' });
    return respond(req, reply, { return: [await RUNNERS.get('jobs.list_jobs')!(backend, { arg: [], kwarg: {} })] });
  });

  app.get<{ Params: { jid: string } }>('/jobs/:jid', async (req, reply) => {
    const jid = req.params.jid;
    if (!isJid(jid)) throw new BrineError('INVALID_JID', `'${String(req.params.jid).slice(0, 40)}' is not a jid (20 digits)`);
    await check(req, { client: 'runner', fun: 'jobs.lookup_jid', tgt: '', tgtType: 'glob' });
    const job = backend.jobs.getJob(jid);
    if (!job) throw new BrineError('API_NOT_FOUND', `no job ${jid} in the job cache (expired after keep_jobs_seconds, or never published); see GET /jobs`);
    const rets = lookupJid(backend, jid);
    const result = Object.fromEntries(Object.entries(rets).map(([m, r]) => [m, { return: r }]));
    return respond(req, reply, { info: [{ jid, ...jobSummary(job), Minions: job.minions, Result: result }], return: [rets] });
  });

  app.get('/keys', async (req, reply) => {
    await check(req, { client: 'wheel', fun: 'key.list_all', tgt: '', tgtType: 'glob' });
    const all = listAll(backend);
    // salt-api's /keys returns the wheel data itself, without `local`
    const { local: _local, ...rest } = all;
    return respond(req, reply, { return: rest });
  });

  app.get<{ Params: { id: string } }>('/keys/:id', async (req, reply) => {
    const id = minionId(req.params.id);
    await check(req, { client: 'wheel', fun: 'key.finger', tgt: '', tgtType: 'glob' });
    const f = fingers(backend, id);
    delete f.local;
    if (Object.keys(f).length === 0) throw new BrineError('KEY_NOT_FOUND', `no key for '${id}'; see GET /keys`);
    return respond(req, reply, { return: f });
  });

  app.get('/stats', async (req, reply) => {
    requireView(backend, principalOf(req), 'stats', req.ip);
    return respond(req, reply, { return: await backend.stats() });
  });

  app.get('/metrics', async (req, reply) => {
    requireView(backend, principalOf(req), 'metrics', req.ip);
    const { text, contentType } = await backend.metrics.render();
    return reply.code(200).type(contentType).header('cache-control', 'no-store').send(text);
  });
}
