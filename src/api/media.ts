// Request bodies (JSON, form, YAML: salt-api's three, and text/plain read as JSON as salt-api's
// text_processor does) and responses in JSON or YAML per Accept. YAML is parsed with the core
// schema only (no tags, no aliases): a body is data, never code.

import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import YAML from 'yaml';
import { BrineError, errorMessage } from '../util/errors.js';

const YAML_TYPES = ['application/x-yaml', 'application/yaml', 'text/yaml', 'text/x-yaml'];
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** application/x-www-form-urlencoded: repeated keys become lists, as CherryPy does. */
export function parseForm(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    if (UNSAFE_KEYS.has(k)) throw new BrineError('API_BAD_REQUEST', `form field name '${k}' is not allowed`);
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function checkKeys(value: unknown, depth = 0): void {
  if (depth > 64) throw new BrineError('API_BAD_REQUEST', 'the YAML body is nested more than 64 levels deep');
  if (Array.isArray(value)) {
    for (const v of value) checkKeys(v, depth + 1);
  } else if (typeof value === 'object' && value !== null) {
    for (const k of Object.keys(value)) {
      if (UNSAFE_KEYS.has(k)) throw new BrineError('API_BAD_REQUEST', `key '${k}' is not allowed in a request body`);
      checkKeys((value as Record<string, unknown>)[k], depth + 1);
    }
  }
}

export function parseYamlBody(text: string): unknown {
  let doc: unknown;
  try {
    doc = YAML.parse(text, { schema: 'core', customTags: [], merge: false, maxAliasCount: 0, uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    throw new BrineError('API_BAD_REQUEST', `the YAML body cannot be parsed: ${errorMessage(err).split('\n')[0]}`);
  }
  checkKeys(doc);
  return doc;
}

/**
 * text/plain, as salt-api's text_processor: the body parsed as JSON when it is JSON (a browser's
 * `fetch` with a string body sends text/plain), the text itself otherwise; the route that wanted
 * a lowstate or credentials then says what is wrong (API_BAD_REQUEST), as salt-api answers 400.
 */
export function parseTextBody(text: string): unknown {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return text;
  }
  checkKeys(doc);
  return doc;
}

export async function registerBodyParsers(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { parser: (text: string) => parseForm(text) });
  // fastify's own text/plain parser hands the route a string; salt-api's reads it as JSON
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseTextBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseYamlBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/** YAML when the client prefers it (Accept: application/x-yaml), JSON otherwise. */
export function wantsYaml(req: FastifyRequest): boolean {
  const accept = String(req.headers.accept ?? '');
  for (const part of accept.split(',')) {
    const type = part.split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') return false;
    if (YAML_TYPES.includes(type)) return true;
  }
  return false;
}

export function respond(req: FastifyRequest, reply: FastifyReply, body: unknown, status = 200): FastifyReply {
  reply.code(status);
  reply.header('cache-control', 'no-store');
  if (wantsYaml(req)) return reply.type('application/x-yaml').send(YAML.stringify(body));
  return reply.type('application/json').send(JSON.stringify(body));
}
