// The shapes shared by the state compiler, the state runtime and every state module: what a
// state function declares, what it receives when it runs and what it returns (Salt's state
// return: name, result, changes, comment).

import type { ExecContext, ExecResult, ParamSpec, TypedArgs } from '../modules/index.js';

/**
 * One state's outcome. `result` is true (in the desired state, or made so), false (failed) or
 * null (test=True and changes would be made). `changes` is `{}` when nothing changed; files
 * report `{ diff: '<unified diff>' }`, most others `{ old, new }` or per-item maps as Salt does.
 */
export interface StateResult {
  name: string;
  result: boolean | null;
  changes: Record<string, unknown>;
  comment: string;
  /** Orchestration steps (salt.state, salt.function, ...): the jid of the job the step published, as Salt's `__jid__`. */
  __jid__?: string;
}

/** The low chunk a state function is running for, as the runtime passes it (for comments and logs). */
export interface LowRef {
  /** The state ID (the top-level key in the SLS). */
  __id__: string;
  /** The SLS the state came from, e.g. `web.nginx`. */
  __sls__: string;
  /** State module, e.g. `file`. */
  state: string;
  /** Function, e.g. `managed`. */
  fun: string;
  name: string;
  /** The chunk's own require_in / watch_in as written (file.accumulated names its files through them). */
  require_in?: unknown;
  watch_in?: unknown;
}

/** Options for rendering a template from inside a state (file.managed template: jinja, cmd.script). */
export interface TemplateRequest {
  /** Only `jinja` so far; anything else is RENDERER_UNSUPPORTED. */
  engine: string;
  /** Where the text came from (`salt://x/y.conf` or a local path), for errors and tpldir/tplpath. */
  source: string;
  /** Extra variables (`defaults` merged with `context`, context winning). */
  context: Record<string, unknown>;
}

/** What a state function gets besides its arguments. */
export interface StateContext {
  /** test=True: report what would change (result null, changes filled in) and change nothing. */
  readonly test: boolean;
  /** The file server environment of this run (`saltenv=`; `base` by default). */
  readonly saltenv: string;
  /** The execution context of the job running the states: grains, config, signal, files, pillar. */
  readonly exec: ExecContext;
  /** The state being run. */
  readonly low: LowRef;
  /**
   * Values kept for the rest of this state run and shared by its states (Salt's `__context__`),
   * e.g. that the package index was refreshed already. Empty at the start of every run.
   */
  readonly runContext: Map<string, unknown>;
  /** Calls an execution function from the minion's registry (never throws; check `success`). */
  call(fun: string, arg?: unknown[], kwarg?: Record<string, unknown>): Promise<ExecResult>;
  /** Renders a template text with Salt's template variables (grains, pillar, opts, salt[...]) plus `request.context`. */
  renderTemplate(text: string, request: TemplateRequest): Promise<string>;
}

export interface StateFunction {
  /** `module.function`, e.g. `file.managed`. */
  name: string;
  /** One line. */
  doc: string;
  /**
   * The function's own arguments (`name` first). The requisites and global arguments (require,
   * watch, unless, onlyif, creates, order, retry, failhard, check_cmd, names, ...) are the
   * runtime's and are never declared here.
   */
  params: readonly ParamSpec[];
  /**
   * An SLS example for docs/states.md (generated from the code and kept in sync by a test): a
   * YAML snippet using this function, e.g. `nginx:\n  pkg.installed: []`.
   */
  example: string;
  /** Accepts arguments it does not declare (delivered in `args.extra`), as Salt's **kwargs. */
  kwargs?: boolean;
  run(ctx: StateContext, args: TypedArgs<readonly ParamSpec[]>): Promise<StateResult>;
  /**
   * Salt's mod_watch: run instead of the normal function when a `watch` requisite reported
   * changes (service.running restarts or reloads). States without it just run normally.
   */
  modWatch?(ctx: StateContext, args: TypedArgs<readonly ParamSpec[]>): Promise<StateResult>;
}

export interface TypedStateFunction<Ps extends readonly ParamSpec[]> extends Omit<StateFunction, 'params' | 'run' | 'modWatch'> {
  params: Ps;
  run(ctx: StateContext, args: TypedArgs<Ps>): Promise<StateResult>;
  modWatch?(ctx: StateContext, args: TypedArgs<Ps>): Promise<StateResult>;
}

/** A state function whose `run` arguments are inferred from its `params` (as defineFunction does). */
export function defineState<const Ps extends readonly ParamSpec[]>(fn: TypedStateFunction<Ps>): StateFunction {
  return fn as unknown as StateFunction;
}
