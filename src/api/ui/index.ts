// Placeholder for the web view (issue 11, point 3): the `ui` branch replaces this file with the
// real one. It serves one line at /ui so the route exists and is public.

import type { FastifyInstance } from 'fastify';

export function registerUi(app: FastifyInstance): void {
  app.get('/ui', (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send('<!doctype html><title>brine</title><p>The brine web view is not built into this version.</p>\n'),
  );
}
