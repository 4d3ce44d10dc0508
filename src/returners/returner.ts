// What a returner is (Salt's salt/returners/*.py): a named store a job's return, a job's load or
// a batch of events can be written to. The minion calls `returner` after a job run with
// `--return`/`ret=` or a schedule entry's `returner`; the master calls `eventReturn` for
// `event_return` and `saveLoad`/`returner` for `master_job_cache`. brine's own SQLite job cache
// stays the source of truth: a returner only ever gets a copy.

/** The return as Salt's minion hands it to a returner (`_thread_return`'s `ret` dict). */
export interface SaltReturn {
  id: string;
  jid: string;
  fun: string;
  /** The job's arguments in Salt's published form (keyword arguments as a last `__kwarg__` dict). */
  fun_args: unknown[];
  return: unknown;
  retcode: number;
  success: boolean;
  /** `--return_config`: the prefix of an alternative option set (`alternative.returner.postgres.host`). */
  ret_config?: string;
  /** `--return_kwargs`: options that override the configured ones for this return. */
  ret_kwargs?: Record<string, unknown>;
  /** A scheduled run's entry name. */
  schedule?: string;
  /** Salt's master_job_cache returns carry the minion's transport command. */
  cmd?: string;
}

/** One event as Salt's `event_return` hands it over: a tag and its data (with `_stamp`). */
export interface ReturnedEvent {
  tag: string;
  data: Readonly<Record<string, unknown>>;
}

export interface Returner {
  /** Salt's virtual name (`--return postgres`). */
  readonly name: string;
  returner(ret: SaltReturn): Promise<void>;
  /** master_job_cache: the job's load when it is published. */
  saveLoad?(jid: string, load: Readonly<Record<string, unknown>>): Promise<void>;
  /** event_return: a batch of events from the master's bus. */
  eventReturn?(events: readonly ReturnedEvent[]): Promise<void>;
  getLoad?(jid: string): Promise<Record<string, unknown>>;
  getJid?(jid: string): Promise<Record<string, unknown>>;
  getFun?(fun: string): Promise<Record<string, unknown>>;
  getJids?(): Promise<Record<string, unknown>>;
  getMinions?(): Promise<string[]>;
}

/** What a returner is built from: the daemon's options (Salt's __opts__) and its id. */
export interface ReturnerContext {
  /** The daemon's options as loaded (unknown keys such as `returner.postgres.host` kept as written). */
  opts: Readonly<Record<string, unknown>>;
  /** The minion's id, or the master's (Salt's `__opts__['id']`, the `master_id` of salt_events). */
  id: string;
  /** `brine-minion` or `brine-master`: the syslog ident when `syslog.tag` is unset. */
  program: string;
}
