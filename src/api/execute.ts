// Runs one lowstate chunk for an authenticated user: the ACL check first (Salt's auth_check,
// with the target resolved against accepted minions), then the client: local (wait for the
// returns), local_async (the jid), local_batch, runner, wheel. Jobs go through the JobTracker's
// publish path with the API user recorded as the job's user.

import { checkAcl, type AclRequest, type MinionsOf, type Principal } from '../auth/index.js';
import type { JobReturn, PublishRequest } from '../protocol/index.js';
import { BrineError, isBrineError, isErrorCode } from '../util/errors.js';
import type { ApiBackend, ApiJobSink } from './backend.js';
import { batchSize, type Chunk } from './lowstate.js';
import { WHEELS } from './wheel.js';
import { runWheelJob } from './wheel-job.js';

export interface CallContext {
  backend: ApiBackend;
  who: Principal;
  source: string;
  /** Set when the HTTP client went away: waits stop early. */
  gone: () => boolean;
  onGone: (fn: () => void) => void;
}

/**
 * The ACL check needs the minions of targets (the chunk's, and those of target-restricted ACL
 * entries) synchronously, but the backend matches asynchronously: the check is dry-run with the
 * matches known so far until it asks for no new target, then the real (logged) check runs.
 */
async function minionsOf(b: ApiBackend, who: Principal, req: AclRequest): Promise<MinionsOf> {
  const known = new Map<string, string[]>();
  const keyOf = (tgt: string | string[], tgtType: string, within?: ReadonlySet<string>) => JSON.stringify([tgt, tgtType, within === undefined ? null : [...within].sort()]);
  const lookup: MinionsOf = (tgt, tgtType, within) => known.get(keyOf(tgt, tgtType, within)) ?? [];
  const entries = b.auth.permsOf(who);
  for (let round = 0; round < 32; round++) {
    const wanted: Array<[string | string[], string, ReadonlySet<string> | undefined]> = [];
    checkAcl(entries, req, (tgt, tgtType, within) => {
      if (!known.has(keyOf(tgt, tgtType, within))) wanted.push([tgt, tgtType, within]);
      return lookup(tgt, tgtType, within);
    });
    if (wanted.length === 0) break;
    for (const [tgt, tgtType, within] of wanted) {
      let matched: string[] = [];
      try {
        matched = (await b.matchTarget(tgt, tgtType, within === undefined ? undefined : [...within])).matched;
      } catch (err) {
        // the master being down is not "matches nothing"
        if (isBrineError(err, 'MASTER_UNREACHABLE')) throw err;
      }
      known.set(keyOf(tgt, tgtType, within), matched);
    }
  }
  return lookup;
}

/**
 * The ACL check for a chunk; ACL_DENIED is logged by the Authenticator. Returns the minions a
 * target-restricted user's job may run on (undefined: anywhere its target says).
 */
export async function authorizeChunk(ctx: CallContext, chunk: Chunk): Promise<string[] | undefined> {
  const b = ctx.backend;
  if (chunk.client.startsWith('local')) {
    // a malformed target is a bad request (400), not "matches nothing" (403); checked against
    // no minion, so that nothing of any minion's data is read before the ACL decides
    await b.matchTarget(chunk.tgt, chunk.tgtType, []);
    const req: AclRequest = { client: 'local', fun: chunk.fun, tgt: chunk.tgt, tgtType: chunk.tgtType, arg: chunk.arg, kwarg: chunk.kwarg };
    return b.auth.authorize(ctx.who, req, await minionsOf(b, ctx.who, req), ctx.source);
  }
  const req: AclRequest = { client: chunk.client === 'runner_async' ? 'runner' : (chunk.client as 'runner' | 'wheel'), fun: chunk.fun, arg: chunk.arg, kwarg: chunk.kwarg };
  return b.auth.authorize(ctx.who, req, await minionsOf(b, ctx.who, req), ctx.source);
}

function publishRequest(ctx: CallContext, chunk: Chunk, within: string[] | undefined, tgt: string | string[] = chunk.tgt, tgtType = chunk.tgtType): PublishRequest {
  return {
    ...(within === undefined ? {} : { within }),
    t: 'publish',
    tgt,
    tgtType: tgtType as PublishRequest['tgtType'],
    fun: chunk.fun,
    arg: chunk.arg as PublishRequest['arg'],
    kwarg: chunk.kwarg as PublishRequest['kwarg'],
    ...(chunk.timeout !== undefined ? { timeout: chunk.timeout } : {}),
    ...(chunk.ret !== undefined ? { ret: chunk.ret } : {}),
    ...(chunk.retConfig !== undefined ? { retConfig: chunk.retConfig } : {}),
    ...(chunk.retKwargs !== undefined ? { retKwargs: chunk.retKwargs } : {}),
    user: ctx.who.user,
  };
}

const retValue = (r: JobReturn): unknown => (r.error ? { error: r.error, return: r.ret } : r.ret);

/** Publishes and waits for the returns: {minion: return} for the minions that returned. */
function runAndWait(ctx: CallContext, req: PublishRequest): Promise<Record<string, unknown>> {
  const b = ctx.backend;
  return new Promise((resolve, reject) => {
    const out: Record<string, unknown> = {};
    const sink: ApiJobSink = {
      onReturn: (r) => {
        out[r.minion] = retValue(r);
      },
      onDone: () => resolve(out),
    };
    b.publish(req, sink).then(
      () =>
        ctx.onGone(() => {
          b.unsubscribe(sink);
          resolve(out);
        }),
      (err) => {
        if (isBrineError(err, 'NO_MINIONS_MATCHED')) resolve({});
        else reject(err);
      },
    );
  });
}

const NOOP_SINK: ApiJobSink = { onReturn: () => {}, onDone: () => {} };

async function runBatch(ctx: CallContext, chunk: Chunk, within: string[] | undefined): Promise<Array<Record<string, unknown>>> {
  const allowed = within === undefined ? undefined : new Set(within);
  const matched = (await ctx.backend.matchTarget(chunk.tgt, chunk.tgtType, within)).matched.filter((id) => allowed === undefined || allowed.has(id));
  const size = batchSize(chunk.batch ?? '1', matched.length);
  const results: Array<Record<string, unknown>> = [];
  for (let i = 0; i < matched.length && !ctx.gone(); i += size) {
    const group = matched.slice(i, i + size);
    const rets = await runAndWait(ctx, publishRequest(ctx, chunk, within, group, 'list'));
    for (const id of group) if (Object.hasOwn(rets, id)) results.push({ [id]: rets[id] });
  }
  return results;
}

/** The API's wheel client: the reply {tag, data: {fun, jid, tag, user, _stamp, return, success}} (wheel-job.ts). */
async function runWheel(ctx: CallContext, chunk: Chunk): Promise<Record<string, unknown>> {
  if (!WHEELS.has(chunk.fun)) throw new BrineError('API_BAD_REQUEST', `wheel function '${chunk.fun}' is not one brine's API has; use ${[...WHEELS.keys()].join(', ')}`);
  const job = await runWheelJob(ctx.backend, { fun: chunk.fun, arg: chunk.arg, kwarg: chunk.kwarg, user: ctx.who.user });
  if (job.error) throw job.error;
  return { tag: job.tag, data: job.data };
}

/** The API's runner clients: the runner runs as a job on the master (runner-job.ts). */
async function runRunnerChunk(ctx: CallContext, chunk: Chunk, async: boolean): Promise<unknown> {
  let reply: Awaited<ReturnType<ApiBackend['runner']>>;
  try {
    reply = await ctx.backend.runner({ fun: chunk.fun, arg: chunk.arg, kwarg: chunk.kwarg, user: ctx.who.user, async });
  } catch (err) {
    if (isBrineError(err, 'RUNNER_UNKNOWN')) throw new BrineError('API_BAD_REQUEST', `runner function '${chunk.fun}' is not one brine has (${err.message}); docs/runners.md lists them`);
    throw err;
  }
  if (!reply.done) return { tag: `salt/run/${reply.jid}`, jid: reply.jid };
  if (reply.error) throw new BrineError(isErrorCode(reply.error.code) ? reply.error.code : 'INTERNAL', reply.error.message);
  return reply.return;
}

export async function runChunk(ctx: CallContext, chunk: Chunk): Promise<unknown> {
  const within = await authorizeChunk(ctx, chunk);
  const b = ctx.backend;
  switch (chunk.client) {
    case 'local':
      return runAndWait(ctx, publishRequest(ctx, chunk, within));
    case 'local_async':
      try {
        const pub = await b.publish(publishRequest(ctx, chunk, within), NOOP_SINK);
        b.unsubscribe(NOOP_SINK);
        return { jid: pub.jid, minions: pub.minions };
      } catch (err) {
        if (isBrineError(err, 'NO_MINIONS_MATCHED')) return {};
        throw err;
      }
    case 'local_batch':
      return runBatch(ctx, chunk, within);
    case 'runner':
      return runRunnerChunk(ctx, chunk, false);
    case 'runner_async':
      return runRunnerChunk(ctx, chunk, true);
    case 'wheel':
      return runWheel(ctx, chunk);
  }
}
