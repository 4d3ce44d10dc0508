// The shapes shared by the registry and every execution module: how a function declares its
// arguments, what it receives when it runs, and what a call produces.

import type { ErrorCode } from '../util/errors.js';

export type ParamType = 'string' | 'number' | 'int' | 'bool' | 'any' | 'list' | 'map';

export interface ParamSpec {
  name: string;
  type: ParamType;
  required?: boolean;
  /** Applied when the caller gives nothing (or null) for this parameter. */
  default?: unknown;
  doc?: string;
  /**
   * Only settable as `name=value`, never by position (Python's keyword-only arguments after
   * `*args`, e.g. `grains.item *keys delimiter=':'`).
   */
  keywordOnly?: boolean;
}

/** Arguments after binding: declared parameters by name, surplus positionals, surplus kwargs. */
export interface BoundArgs {
  named: Record<string, unknown>;
  rest: unknown[];
  extra: Record<string, unknown>;
}

/** Grains are a plain mapping: config grains may replace any core grain with any value. */
export type Grains = Readonly<Record<string, unknown>>;

export interface ExecContext {
  /** The minion's grains, collected once and cached by the caller. */
  grains: () => Grains;
  minionId: string;
  config: Readonly<Record<string, unknown>>;
  /** Aborted when the job is cancelled or times out; long-running functions must stop. */
  signal: AbortSignal;
  jid: string;
  /** The minion's running jobs (saltutil.*); only given to functions marked `inline`. */
  jobs?: RunningJobs;
  /** Records a process a function started, so saltutil can signal or kill its process group. */
  trackProcess?(pid: number): void;
  /** Re-collects the minion's grains and sends them to its masters (saltutil.refresh_grains). */
  refreshGrains?: () => Promise<void>;
}

/** One job as saltutil.running and saltutil.find_job show it. */
export interface RunningJobInfo {
  jid: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  tgt: string | string[];
  tgt_type: string;
  /** The process group a cmd.* function started, else the minion's own pid. */
  pid: number;
  /** When the job started (or was queued), ISO 8601. */
  started: string;
  /** Waiting for a free slot under max_concurrent_jobs. */
  queued: boolean;
}

/** The job runner's state, as execution modules may read and change it. */
export interface RunningJobs {
  list(): RunningJobInfo[];
  get(jid: string): RunningJobInfo | undefined;
  /** Ends the job and every process it started; false when no such job runs. */
  kill(jid: string): boolean;
  /** Sends a signal to the job's process group; false when no such job runs. */
  signal(jid: string, signal: NodeJS.Signals): boolean;
}

export interface ModuleFunction {
  /** `module.function`, e.g. `test.ping`. */
  name: string;
  /** One line. */
  doc: string;
  params: readonly ParamSpec[];
  /** Accepts surplus positional arguments (`*args`), delivered in `BoundArgs.rest`. */
  varargs?: boolean;
  /** Accepts surplus `key=value` arguments (`**kwargs`), delivered in `BoundArgs.extra`. */
  kwargs?: boolean;
  /**
   * Runs on the minion's main thread with its live state (ctx.jobs), instead of in a worker
   * thread. Only for short functions that never block: a busy inline function delays heartbeats.
   */
  inline?: boolean;
  run(ctx: ExecContext, args: BoundArgs): Promise<unknown> | unknown;
}

export interface ExecResult {
  return: unknown;
  retcode: number;
  success: boolean;
  error?: { code: ErrorCode; message: string };
}
