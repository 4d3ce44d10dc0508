// salt-api's lowstate: a list of {client, fun, tgt, tgt_type, arg, kwarg, ...} chunks (a single
// mapping is taken as a list of one, as salt-api does; a form post is one chunk whose repeated
// `arg` fields form the list). Everything is checked here, before any chunk runs.

import { TARGET_TYPES } from '../protocol/index.js';
import { BrineError } from '../util/errors.js';

export const CLIENTS = ['local', 'local_async', 'local_batch', 'runner', 'runner_async', 'wheel'] as const;
export type ClientName = (typeof CLIENTS)[number];

export interface Chunk {
  client: ClientName;
  fun: string;
  tgt: string | string[];
  tgtType: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  timeout?: number;
  batch?: string;
  /** A local chunk's returners (Salt's `ret`, `ret_config`, `ret_kwargs`; docs/returners.md). */
  ret?: string;
  retConfig?: string;
  retKwargs?: Record<string, unknown>;
  /** Inline credentials (POST /run): username, password, eauth, or token. */
  username?: unknown;
  password?: unknown;
  eauth?: unknown;
  token?: unknown;
}

const MAX_CHUNKS = 100;
/** Keys of a runner or wheel chunk that are not its keyword arguments (tgt is one: manage.match). */
const RESERVED_NOT_LOCAL = new Set(['client', 'fun', 'arg', 'kwarg', 'timeout', 'username', 'password', 'eauth', 'token', 'full_return']);

const bad = (msg: string) => new BrineError('API_BAD_REQUEST', msg);

/** What a route that wanted a mapping or a list adds when it got text (media.ts parseTextBody). */
export function textBodyHint(body: unknown): string {
  return typeof body === 'string' ? ' (the body is text: a text/plain body is read as JSON, and this one is not valid JSON)' : '';
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseChunk(raw: unknown, i: number): Chunk {
  const where = `lowstate chunk ${i}`;
  if (!isMapping(raw)) throw bad(`${where} is not a mapping of {client, fun, ...}`);
  const client = raw.client;
  if (typeof client !== 'string' || client === '') throw bad(`${where} has no client; use one of ${CLIENTS.join(', ')}`);
  if (!(CLIENTS as readonly string[]).includes(client)) throw bad(`${where}: unknown client '${client.slice(0, 64)}'; use one of ${CLIENTS.join(', ')}`);
  const fun = raw.fun;
  if (typeof fun !== 'string' || fun === '' || fun.length > 256) throw bad(`${where} has no fun (a function name such as test.ping)`);
  const isLocal = client.startsWith('local');
  let tgt: string | string[] = '';
  let tgtType = 'glob';
  if (isLocal) {
    const t = raw.tgt;
    if (typeof t === 'string' && t !== '') tgt = t;
    else if (Array.isArray(t) && t.every((x) => typeof x === 'string')) tgt = t as string[];
    else throw bad(`${where} has no tgt (a target such as '*')`);
    if (typeof tgt === 'string' && tgt.length > 65_536) throw bad(`${where}: tgt is longer than 65536 characters`);
    const type = raw.tgt_type ?? raw.expr_form ?? 'glob';
    if (typeof type !== 'string' || !(TARGET_TYPES as readonly string[]).includes(type)) throw bad(`${where}: tgt_type must be one of ${TARGET_TYPES.join(', ')}`);
    tgtType = type;
  }
  const arg = raw.arg === undefined || raw.arg === null ? [] : Array.isArray(raw.arg) ? raw.arg : [raw.arg];
  if (raw.kwarg !== undefined && !isMapping(raw.kwarg)) throw bad(`${where}: kwarg must be a mapping`);
  const kwarg: Record<string, unknown> = { ...((raw.kwarg as Record<string, unknown> | undefined) ?? {}) };
  if (!isLocal) {
    // runner and wheel take their keyword arguments inline, as in Salt ({fun: key.accept, match: web1})
    for (const k of Object.keys(raw)) if (!RESERVED_NOT_LOCAL.has(k)) kwarg[k] = raw[k];
  }
  const chunk: Chunk = { client: client as ClientName, fun, tgt, tgtType, arg, kwarg };
  if (raw.timeout !== undefined && raw.timeout !== null && raw.timeout !== '') {
    const n = Number(raw.timeout);
    if (!Number.isFinite(n) || n < 0 || n > 86_400) throw bad(`${where}: timeout must be a number of seconds from 0 to 86400`);
    chunk.timeout = n;
  }
  if (client === 'local_batch') {
    const b = raw.batch;
    if (typeof b !== 'string' && typeof b !== 'number') throw bad(`${where}: local_batch needs batch (a count such as 2, or a percentage such as 25%)`);
    chunk.batch = String(b);
  }
  if (isLocal) Object.assign(chunk, chunkReturners(raw, where));
  for (const k of ['username', 'password', 'eauth', 'token'] as const) if (raw[k] !== undefined) chunk[k] = raw[k];
  return chunk;
}

/** `ret`, `ret_config`, `ret_kwargs` of a local chunk, as salt-api passes them to LocalClient. */
function chunkReturners(raw: Record<string, unknown>, where: string): Pick<Chunk, 'ret' | 'retConfig' | 'retKwargs'> {
  const out: Pick<Chunk, 'ret' | 'retConfig' | 'retKwargs'> = {};
  if (raw.ret !== undefined && raw.ret !== null && raw.ret !== '') {
    if (typeof raw.ret !== 'string' || raw.ret.length > 1024) throw bad(`${where}: ret must be returner names such as 'postgres' or 'syslog,postgres'`);
    out.ret = raw.ret;
  }
  if (raw.ret_config !== undefined) {
    if (typeof raw.ret_config !== 'string' || raw.ret_config.length > 256) throw bad(`${where}: ret_config must be the name of an alternative returner configuration`);
    out.retConfig = raw.ret_config;
  }
  if (raw.ret_kwargs !== undefined) {
    if (!isMapping(raw.ret_kwargs)) throw bad(`${where}: ret_kwargs must be a mapping of returner options`);
    out.retKwargs = raw.ret_kwargs;
  }
  return out;
}

/** The chunks of a request body, or API_BAD_REQUEST saying what is wrong. */
export function parseLowstate(body: unknown): Chunk[] {
  if (body === undefined || body === null || body === '') throw bad('the request has no lowstate: send a list of {client, fun, tgt, arg, kwarg} mappings');
  const list = Array.isArray(body) ? body : isMapping(body) ? [body] : undefined;
  if (!list) throw bad(`the lowstate must be a list of mappings, not ${typeof body === 'string' ? 'a string' : typeof body}${textBodyHint(body)}`);
  if (list.length === 0) throw bad('the lowstate list is empty');
  if (list.length > MAX_CHUNKS) throw bad(`the lowstate has ${list.length} chunks; at most ${MAX_CHUNKS} per request`);
  return list.map((c, i) => parseChunk(c, i));
}

/** A batch size: a count, or a percentage of the expected minions (Salt's -b). */
export function batchSize(batch: string, total: number): number {
  const m = /^\s*(\d+)\s*(%?)\s*$/.exec(batch);
  if (!m) throw new BrineError('INVALID_BATCH', `batch '${batch.slice(0, 32)}' is not a count (2) or a percentage (25%)`);
  const n = Number(m[1]);
  if (m[2] === '%') {
    if (n < 1 || n > 100) throw new BrineError('INVALID_BATCH', `batch ${n}% must be from 1% to 100%`);
    return Math.max(1, Math.floor((total * n) / 100));
  }
  if (n < 1) throw new BrineError('INVALID_BATCH', 'batch must be at least 1');
  return n;
}
