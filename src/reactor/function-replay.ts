// salt[...] in a reactor SLS without blocking the daemon: a template calls execution functions
// synchronously, the daemon runs them asynchronously. So the file is rendered; a call whose answer
// is not known yet stops the render, runs, and its answer (or error) is remembered; the file is
// rendered again, until a render completes. Each distinct call (function and arguments) runs once
// per reaction, so a function with effects (cmd.run, event.send) runs once, as in Salt.

import { BrineError } from '../util/errors.js';

/** Runs one execution function (Salt's MasterMinion on the master, the minion's own loader on a minion). */
export type FunctionCaller = (fun: string, arg: unknown[], kwarg: Record<string, unknown>) => Promise<unknown>;

/** A synchronous salt[...] for the renderer (RenderEnv.callFunction). */
export type SyncCall = (fun: string, arg: unknown[], kwarg: Record<string, unknown>) => unknown;

/** More distinct calls than this in one reaction is a template looping over calls: refused. */
export const MAX_CALLS = 100;

/** Thrown through the renderer when a call's answer is not known yet; never leaves renderWithCalls. */
class Unanswered extends Error {
  constructor(
    readonly key: string,
    readonly fun: string,
    readonly arg: unknown[],
    readonly kwarg: Record<string, unknown>,
  ) {
    super(`salt['${fun}'] is not answered yet`);
  }
}

function unansweredIn(err: unknown): Unanswered | undefined {
  // the renderer wraps what a call throws in its own coded error; the first link is ours
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) if (e instanceof Unanswered) return e;
  return undefined;
}

type Answer = { ok: true; value: unknown } | { ok: false; error: unknown };

export async function renderWithCalls<T>(render: (call: SyncCall) => Promise<T>, run: FunctionCaller, source: string, maxCalls = MAX_CALLS): Promise<T> {
  const answers = new Map<string, Answer>();
  const call: SyncCall = (fun, arg, kwarg) => {
    const key = JSON.stringify([fun, arg, kwarg]);
    const known = answers.get(key);
    if (!known) throw new Unanswered(key, fun, arg, kwarg);
    if (known.ok) return known.value;
    throw known.error;
  };
  for (;;) {
    try {
      return await render(call);
    } catch (err) {
      const wanted = unansweredIn(err);
      if (!wanted) throw err;
      if (answers.size >= maxCalls) {
        throw new BrineError('RENDER_FAILED', `${source}: more than ${maxCalls} distinct salt[...] calls in one render; compute in Jinja, or move the work into a reaction`, {
          details: { file: source },
        });
      }
      try {
        answers.set(wanted.key, { ok: true, value: await run(wanted.fun, wanted.arg, wanted.kwarg) });
      } catch (error) {
        answers.set(wanted.key, { ok: false, error });
      }
    }
  }
}
