// `--state-output`, `--state-verbose` and `--force-color` for `brine run` and `brine call`, and
// the highstate settings they give together with the config (flags win, as Salt's CLI options
// override the config file).

import type { Command } from 'commander';
// the module itself, not output/index.js: registering the flags should not load every outputter
import { parseStateOutput, parseStateVerbose, resultList, type HighstateOptions } from './output/highstate-options.js';

export interface StateOutputFlags {
  stateOutput?: string;
  stateVerbose?: string;
  color?: boolean;
  forceColor?: boolean;
  /** Salt's --output-diff (state_output_diff): only states that changed or did not succeed. */
  outputDiff?: boolean;
}

export function addStateOutputFlags(cmd: Command): Command {
  return cmd
    .option('--state-output <mode>', 'how state runs print: full, terse, mixed, changes or filter (or full_id, terse_id, ...); default: the state_output option')
    .option('--state-verbose <bool>', 'False hides states that succeeded without changes; default: the state_verbose option')
    .option('--force-color', 'colour the output even when it is not a terminal')
    .option('--output-diff', "print only the states that changed something or did not succeed (Salt's state_output_diff)");
}

/** The highstate settings: flags, else the config's state_output/state_verbose; filter lists from `terse=`/`exclude=` or the config. */
export function highstateOptions(config: Readonly<Record<string, unknown>>, flags: StateOutputFlags, kwarg: Readonly<Record<string, unknown>> = {}): HighstateOptions {
  const output = flags.stateOutput !== undefined ? parseStateOutput(flags.stateOutput, '--state-output') : parseStateOutput(config.state_output ?? 'full', 'state_output');
  const verboseSetting = flags.stateVerbose !== undefined ? parseStateVerbose(flags.stateVerbose, '--state-verbose') : parseStateVerbose(config.state_verbose ?? true, 'state_verbose');
  // Salt's highstate outputter skips the same states for state_output_diff as for state_verbose False
  const verbose = verboseSetting && flags.outputDiff !== true && config.state_output_diff !== true;
  // Salt's filter mode reads the job's own terse=/exclude= arguments before the config.
  const terse = resultList(kwarg.terse ?? config.state_output_terse);
  const exclude = resultList(kwarg.exclude ?? config.state_output_exclude);
  return { output, verbose, terse, exclude };
}

/**
 * Colour: --no-color never, --force-color always (it wins over NO_COLOR, as an explicit flag),
 * else only on a terminal without NO_COLOR.
 */
export function useColor(flags: StateOutputFlags, toTerminal: boolean): boolean {
  if (flags.color === false) return false;
  if (flags.forceColor) return true;
  return toTerminal && process.stdout.isTTY === true && !process.env.NO_COLOR;
}
