// The data of the compiler stages, after Salt's "State layers": one rendered SLS file (parsed),
// high data (every ID of the run with its state declarations) and low data (one chunk per
// state function call, the runtime's unit).

/** One argument of a state declaration: Salt's single-key mapping, e.g. `{ name: 'vim' }`. */
export type HighArg = [key: string, value: unknown];

/** `pkg.installed: [args]` under an ID. `fun` is absent only in `extend` declarations. */
export interface StateDecl {
  state: string;
  fun?: string;
  args: HighArg[];
  /** state_auto_order: the position of this declaration in the run (Salt's iorder, from 10000). */
  autoOrder?: number;
}

/** One ID of the high data. */
export interface HighId {
  id: string;
  sls: string;
  env: string;
  decls: StateDecl[];
  /**
   * Salt's `__sls_included_from__`: the SLS files whose include brought this ID in, innermost
   * first (a state of c included by b included by a: [b, a]); absent for a requested SLS.
   */
  includedFrom?: string[];
}

/** `exclude:` entries of an SLS (or exclude= of state.sls). */
export type Exclusion = { sls: string } | { id: string };

/** One rendered SLS file, its structure checked. */
export interface ParsedSls {
  sls: string;
  env: string;
  /** `salt://a/b.sls` or `salt://a/b/init.sls`: relative includes depend on which. */
  source: string;
  include: Array<{ sls: string; env?: string }>;
  extend: HighId[];
  exclude: Exclusion[];
  ids: HighId[];
}

/** A low chunk: one function call of one state, as Salt's show_lowstate lists it. */
export interface LowChunk {
  __id__: string;
  __sls__: string;
  __env__: string;
  state: string;
  fun: string;
  name: string;
  order: number;
  /** Every other argument (the function's own, requisites and global arguments). */
  [arg: string]: unknown;
}

/** A compile error: Salt's message text, and the state(s) it concerns (for tests and logs). */
export interface CompileError {
  message: string;
  /** `<sls>:<id>` of every state the error affects. */
  states: string[];
}

export function compileError(message: string, ...states: string[]): CompileError {
  return { message, states };
}

/** The result tag Salt keys each state's return with. */
export function chunkTag(c: Pick<LowChunk, 'state' | '__id__' | 'name' | 'fun'>): string {
  return `${c.state}_|-${c.__id__}_|-${c.name}_|-${c.fun}`;
}
