// POST / (lowstate with a token), POST /run (credentials inline per chunk, as salt-api) and
// POST /minions (local_async). Every chunk is checked before the first one runs.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/index.js';
import { BrineError } from '../../util/errors.js';
import { principalOf } from '../auth-hook.js';
import type { ApiBackend } from '../backend.js';
import { authorizeChunk, type CallContext, runChunk } from '../execute.js';
import { type Chunk, parseLowstate } from '../lowstate.js';
import { respond } from '../media.js';

/** A chunk's context; `gone` turns true when the client hangs up before its answer. */
function contextFor(req: FastifyRequest, reply: FastifyReply, backend: ApiBackend, who: Principal): CallContext {
  let gone = false;
  const waiters: Array<() => void> = [];
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) return;
    gone = true;
    for (const fn of waiters.splice(0)) fn();
  });
  return {
    backend,
    who,
    source: req.ip,
    gone: () => gone,
    onGone: (fn) => {
      if (gone) fn();
      else waiters.push(fn);
    },
  };
}

/** Every chunk is checked against the ACL before the first one runs: a refused chunk runs nothing. */
async function runAll(ctxs: CallContext[], chunks: Chunk[]): Promise<unknown[]> {
  for (let i = 0; i < chunks.length; i++) await authorizeChunk(ctxs[i]!, chunks[i]!);
  const out: unknown[] = [];
  for (let i = 0; i < chunks.length; i++) out.push(await runChunk(ctxs[i]!, chunks[i]!));
  return out;
}

export function registerLowstateRoutes(app: FastifyInstance, backend: ApiBackend): void {
  app.post('/', async (req, reply) => {
    const chunks = parseLowstate(req.body);
    const ctx = contextFor(req, reply, backend, principalOf(req));
    return respond(req, reply, {
      return: await runAll(
        chunks.map(() => ctx),
        chunks,
      ),
    });
  });

  // salt-api's /run: each chunk carries username/password/eauth (or a token); no session
  app.post('/run', { config: { public: true } }, async (req, reply) => {
    const chunks = parseLowstate(req.body);
    const ctxs: CallContext[] = [];
    for (const c of chunks) {
      let who: Principal;
      if (c.token !== undefined) {
        const s = backend.auth.session(c.token, req.ip);
        who = { user: s.user, eauth: s.eauth, groups: s.groups };
      } else if (c.username !== undefined || c.password !== undefined) {
        who = await backend.auth.checkCredentials(c.username, c.password, c.eauth, req.ip);
      } else {
        throw new BrineError('TOKEN_MISSING', 'POST /run needs username, password and eauth (or token) in each lowstate chunk');
      }
      ctxs.push(contextFor(req, reply, backend, who));
    }
    return respond(req, reply, { return: await runAll(ctxs, chunks) });
  });

  app.post('/minions', async (req, reply) => {
    // salt-api: the chunks of POST /minions need no client, they are local_async
    const withClient = (c: unknown) => (typeof c === 'object' && c !== null && !Array.isArray(c) ? { ...c, client: 'local_async' } : c);
    const body = Array.isArray(req.body) ? req.body.map(withClient) : withClient(req.body);
    const chunks = parseLowstate(body);
    const ctx = contextFor(req, reply, backend, principalOf(req));
    const results = (await runAll(
      chunks.map(() => ctx),
      chunks,
    )) as Array<{ jid?: string }>;
    return respond(req, reply, { return: results, _links: { jobs: results.filter((r) => r.jid).map((r) => ({ href: `/jobs/${r.jid}` })) } });
  });
}
