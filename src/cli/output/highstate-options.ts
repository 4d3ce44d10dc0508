// The highstate outputter's settings (Salt's state_output, state_verbose and the filter lists)
// and the one place that decides which functions print with it.

import { BrineError } from '../../util/errors.js';

export const STATE_OUTPUT_MODES = ['full', 'terse', 'mixed', 'changes', 'filter', 'full_id', 'terse_id', 'mixed_id', 'changes_id', 'filter_id'] as const;
export type StateOutputMode = (typeof STATE_OUTPUT_MODES)[number];

export interface HighstateOptions {
  /** Salt's state_output (default full); an `_id` variant shows the state ID where the name would be. */
  output: StateOutputMode;
  /** Salt's state_verbose (default true); false hides states with result True and no changes. */
  verbose: boolean;
  /** filter mode: results (`True`, `False`, `None`) printed in one terse line. */
  terse: readonly string[];
  /** filter mode: results (`True`, `False`, `None`) not printed at all. */
  exclude: readonly string[];
}

export const DEFAULT_HIGHSTATE_OPTIONS: HighstateOptions = { output: 'full', verbose: true, terse: [], exclude: [] };

/**
 * The state functions whose returns Salt prints with the highstate outputter (the `__outputter__`
 * map of salt/modules/state.py). The show_* functions return high or low data, not results, and
 * print with nested like everything else.
 */
export const HIGHSTATE_FUNCTIONS: ReadonlySet<string> = new Set([
  'state.apply',
  'state.sls',
  'state.sls_id',
  'state.highstate',
  'state.single',
  'state.top',
  'state.pkg',
  'state.template',
  'state.template_str',
  'state.test',
  'state.request',
  'state.check_request',
  'state.run_request',
]);

/** The outputter for a call: --out when given, else highstate for state runs, else nested. */
export function defaultOutputterFor(fun: string, out: string | undefined): string {
  if (out !== undefined) return out;
  return HIGHSTATE_FUNCTIONS.has(fun) ? 'highstate' : 'nested';
}

/** `--state-output` / state_output: one of the modes, case forgiven as Salt lowercases it. */
export function parseStateOutput(value: unknown, where: string): StateOutputMode {
  const mode = typeof value === 'string' ? value.toLowerCase() : value;
  if (typeof mode === 'string' && (STATE_OUTPUT_MODES as readonly string[]).includes(mode)) return mode as StateOutputMode;
  throw new BrineError('USAGE', `${where} must be one of ${STATE_OUTPUT_MODES.join(', ')}, got ${JSON.stringify(value)}`);
}

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);

/** `--state-verbose` / state_verbose: a boolean, or a word Salt's YAML would read as one. */
export function parseStateVerbose(value: unknown, where: string): boolean {
  if (typeof value === 'boolean') return value;
  const word = typeof value === 'string' ? value.toLowerCase() : '';
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new BrineError('USAGE', `${where} must be True or False, got ${JSON.stringify(value)}`);
}

/** Salt's state_output_terse/state_output_exclude (and the `terse=`/`exclude=` CLI kwargs): a list or `a,b`. */
export function resultList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(',');
  if (Array.isArray(value)) return value.map((v) => (v === null ? 'None' : v === true ? 'True' : v === false ? 'False' : String(v)));
  return [];
}
