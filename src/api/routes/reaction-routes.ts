// GET /reactions: the reactor's recent reactions, newest first (the web view's Reactor tab). The
// list names event tags and reactor files across the fleet, so it needs the whole-fleet events
// view ('@events' or '@runner'), as the unfiltered /events stream does. Read-only.

import type { FastifyInstance } from 'fastify';
import { BrineError } from '../../util/errors.js';
import { principalOf } from '../auth-hook.js';
import type { ApiBackend } from '../backend.js';
import { requireView } from '../fleet-views.js';
import { respond } from '../media.js';

const MAX_LIMIT = 1000;

export function registerReactionRoutes(app: FastifyInstance, backend: ApiBackend): void {
  app.get<{ Querystring: { limit?: string } }>('/reactions', async (req, reply) => {
    requireView(backend, principalOf(req), 'events', req.ip);
    const raw = req.query.limit;
    const limit = raw === undefined ? MAX_LIMIT : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new BrineError('BAD_ARGUMENTS', `limit must be a whole number from 1 to ${MAX_LIMIT}`);
    if (!backend.reactions) throw new BrineError('API_NOT_FOUND', 'the reactions list is served by the API inside the master (api: in the master config), not by a standalone `brine api`');
    return respond(req, reply, { return: [await backend.reactions(limit)] });
  });
}
