// A runner or wheel call's arguments, and Salt's way of reading a parameter from them: by name
// from the keyword arguments, else by position.

export interface RunnerCall {
  arg: unknown[];
  kwarg: Record<string, unknown>;
  /** Who runs it (the jobs a runner sends to minions are recorded under this user). */
  user?: string;
  /** Seconds the jobs a runner sends to minions wait for returns by default (salt-run -t); absent: the master's timeout. */
  timeout?: number;
  /** The runner job's jid (runner-job.ts sets it): a function that records its own work under it (state.orchestrate's steps). */
  jid?: string;
}

export const param = (c: RunnerCall, name: string, index: number): unknown => (Object.hasOwn(c.kwarg, name) ? c.kwarg[name] : c.arg[index]);

/** Salt's boolean parsing of a CLI value (True/true/1). */
export function boolParam(c: RunnerCall, name: string, index: number, dflt: boolean): boolean {
  const v = param(c, name, index);
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  return v === 'True' || v === 'true' || v === '1' || v === 1;
}

/** Salt's split_input: a list, or a comma-separated string. */
export function listParam(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** The outcome as salt-run reports it: `retcode` is its exit status. */
export interface RunnerOutcome {
  jid: string;
  return: unknown;
  success: boolean;
  retcode: number;
  /** Set when the function failed with a coded error (the API answers with it). */
  error?: { code: string; message: string };
}

/** What a caller of ApiBackend.runner gets: the outcome, or only the jid of an `async` run. */
export type RunnerReply = (RunnerOutcome & { done: true }) | { jid: string; done: false };
