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

/** One finished state as ExecContext.stateProgress reports it. */
export interface StateProgressReport {
  n: number;
  len: number;
  tag: string;
  ret: Record<string, unknown>;
}

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
  refreshGrains?: (opts?: { refreshPillar?: boolean }) => Promise<void>;
  /**
   * The salt:// file server as this minion reaches it: the master's over the session
   * (file_client: remote) or the minion's own file_roots (file_client: local). Absent where no
   * file server can be reached (functions that need one fail with FILESERVER_UNAVAILABLE).
   */
  files?: FileClient;
  /**
   * Synchronous access to the thread hosting this job, for the Jinja renderer (a template cannot
   * await): execution-function calls and salt:// reads. Present in job worker threads.
   */
  syncHost?: SyncHost;
  /**
   * Loads the custom modules, states or grains in <cachedir>/extmods again after a sync
   * (saltutil.sync_*, refresh_modules): the minion rebuilds its registry for new jobs, or
   * re-collects and sends its grains. Resolves to the files that failed to load, by name.
   * Only given to inline functions of the minion daemon.
   */
  reloadExtmods?: (kinds: readonly ('grains' | 'modules' | 'states')[]) => Promise<{ file: string; reason: string }[]>;
  /** The minion's pillar (its `_errors` key lists the errors of a failed render, as in Salt). */
  pillar?: () => Readonly<Record<string, unknown>>;
  /** Gets the minion's pillar again from its master or its own pillar_roots (saltutil.refresh_pillar). */
  refreshPillar?: () => Promise<void>;
  /**
   * This minion's pillar rendered from one pillar environment only, for one call (state.apply
   * pillarenv=): asked of its master (or its own pillar_roots when masterless); the stored pillar
   * is not replaced. Rejects with PILLARENV_UNKNOWN for an environment pillar_roots lacks.
   */
  pillarFor?: (pillarenv: string) => Promise<Record<string, unknown>>;
  /** The mine as this minion reaches it (mine.*); only given to inline functions of the minion daemon. */
  mine?: MineAccess;
  /** The minion's scheduler (schedule.*); only given to functions marked `inline` in the minion daemon. */
  schedule?: ScheduleControl;
  /** Events this minion fires (event.send, fire_master, fire); given to functions of the minion daemon, and to its job workers through the host. */
  events?: MinionEventAccess;
  /**
   * Reports one finished state of a state run to the master (Salt's state_events): `n` is its
   * __run_num__, `len` the run's chunk count, `tag` its state_|-id_|-name_|-fun key. Fire and
   * forget. Present in the minion daemon's jobs; absent elsewhere (brine call).
   */
  stateProgress?: (p: StateProgressReport) => void;
  /** The minion's beacons (beacons.*); only given to functions marked `inline` in the minion daemon. */
  beacons?: BeaconControl;
  /**
   * The minion's log, for log.* and `salt.log.*` in templates (a job worker sends each line to its
   * host thread, which writes it with the daemon's logger). Absent where no log is kept.
   */
  log?: (level: 'debug' | 'info' | 'warning' | 'error' | 'critical', message: string) => void;
}

/** What schedule.* asks of the minion's scheduler; each method returns Salt's return shape or throws a BrineError. */
export interface ScheduleControl {
  list(showAll: boolean): unknown;
  add(name: string, fields: Record<string, unknown>, persist: boolean): unknown;
  modify(name: string, fields: Record<string, unknown>, persist: boolean): unknown;
  delete(name: string, persist: boolean): unknown;
  enable(persist: boolean): unknown;
  disable(persist: boolean): unknown;
  enableJob(name: string, persist: boolean): unknown;
  disableJob(name: string, persist: boolean): unknown;
  runJob(name: string, force: boolean): unknown;
  purge(persist: boolean): unknown;
  save(): unknown;
  reload(): unknown;
  isEnabled(name: string | undefined): unknown;
  showNextFireTime(name: string): unknown;
}

/** One mine entry to run and send: `name` is its key in the mine (an alias, or the function). */
export interface MineFunctionSpec {
  name: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  allowTgt?: string | string[];
  allowTgtType?: string;
}

/** What one mine.update did: the entries sent, and those that failed (with why). */
export interface MineUpdateReport {
  sent: string[];
  failed: Array<{ name: string; code: ErrorCode; message: string }>;
}

/** The minion's mine service, as the `mine` module uses it (src/minion/mine/mine-service.ts). */
/** Events as a minion fires them (src/minion/events/): to its master's bus, or its own local bus. */
export interface MinionEventAccess {
  /** Fires `tag` on the master's bus (Salt's fire_master); rejects with the master's coded refusal. */
  fireMaster(tag: string, data: Record<string, unknown>): Promise<void>;
  /**
   * Fires `tag` on the minion's own bus (event.fire): its reactor, beacons and local listeners
   * hear it. From a brine call of its own: on the running daemon's bus (false when none runs).
   */
  fireLocal(tag: string, data: Record<string, unknown>): boolean | Promise<boolean>;
}

/** The minion's beacons as beacons.* drives them (src/minion/features/beacons.ts); answers in Salt's shapes. */
export interface BeaconControl {
  /** The beacons configured (config, pillar and beacons.add), Salt's list shape. */
  list(opts: { include_pillar: boolean; include_opts: boolean; return_yaml: boolean }): unknown;
  listAvailable(): Promise<string[]>;
  add(name: string, config: unknown, test: boolean): Promise<{ comment: string; result: boolean }>;
  modify(name: string, config: unknown): Promise<{ comment: string; result: boolean }>;
  delete(name: string): Promise<{ comment: string; result: boolean }>;
  save(): Promise<{ comment: string; result: boolean }>;
  enable(on: boolean): { comment: string; result: boolean };
  enableBeacon(name: string, on: boolean): { comment: string; result: boolean };
  reset(): Promise<{ comment: string; result: boolean }>;
}

export interface MineAccess {
  /** Runs the mine_functions (all, or those named) and sends their data; `clear` replaces the whole mine. */
  update(only: readonly string[] | undefined, clear: boolean): Promise<MineUpdateReport | undefined>;
  /** Runs one function and sends its data under `spec.name`. */
  send(spec: MineFunctionSpec): Promise<void>;
  /** {fun: {minion: data}} from the master's mine. */
  get(query: { tgt: string | string[]; tgtType: string; funs: string[]; delimiter?: string }): Promise<Record<string, Record<string, unknown>>>;
  delete(fun: string): Promise<void>;
  flush(): Promise<void>;
  /** The configured entries whose function exists, as Salt's mine.valid shows them. */
  valid(): Record<string, unknown>;
}

/** Blocking calls from a worker thread to its host thread (Atomics.wait + receiveMessageOnPort). */
export interface SyncHost {
  /** Runs an execution function in another worker and waits for its result. */
  call(fun: string, arg: unknown[], kwarg: Record<string, unknown>): ExecResult;
  /** A salt:// file's text (fetched into the cache first); undefined when no root has it. */
  readFile(url: string, saltenv: string): string | undefined;
}

/** A file as the file server describes it: its path relative to the environment's root and its SHA-256. */
export interface FileStat {
  /** Relative path inside the environment, with `/` separators, e.g. `nginx/nginx.conf`. */
  path: string;
  /** Hex SHA-256 of the content. */
  sha256: string;
  size: number;
  /** Permission bits of the file in the root (e.g. 0o644), for file.recurse/keep_source modes. */
  mode: number;
}

/**
 * The salt:// file client. Every path is a `salt://` URL or a relative path; `?saltenv=env` in
 * the URL wins over the saltenv argument. A path that leaves the root is refused (PATH_REFUSED);
 * a path in no root of the environment is `undefined` from the query functions and
 * FILE_NOT_FOUND from cacheFile.
 */
export interface FileClient {
  /** Environments the file server has (file_roots keys), sorted. */
  listEnvs(): Promise<string[]>;
  /** Every file of the environment under `prefix` (relative, `/`-separated), sorted; ignores applied. */
  listFiles(saltenv: string, prefix?: string): Promise<string[]>;
  /** Every directory of the environment under `prefix`, sorted. */
  listDirs(saltenv: string, prefix?: string): Promise<string[]>;
  /** Hash, size and mode of one file; undefined when no root of the environment has it. */
  stat(url: string, saltenv: string): Promise<FileStat | undefined>;
  /**
   * Makes sure the file is in the minion's cache (`<cachedir>/files/<saltenv>/<path>`),
   * transferring it only when the cached copy's hash differs, and returns the local path.
   */
  cacheFile(url: string, saltenv: string): Promise<{ localPath: string; stat: FileStat }>;
  /**
   * The same client for one job: each file's stat is asked of the file server once per job and
   * remembered until the job ends (48 file.managed from one template: one file_stat, not 48).
   * The next job asks again, so a file changed on the master is seen by the next run.
   */
  forRun?(): FileClient;
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
