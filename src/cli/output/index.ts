// Public surface of the CLI outputters: Salt's nested/json/yaml/txt/raw/highstate formats, the no-return
// marker and the salt CLI exit code.

export { format, formatReturn, formatStatic, outputterNames } from './format.js';
export { formatRunnerReturn } from './runner-output.js';
export type { Outputter, FormatOptions } from './format.js';
export { NoReturn, noReturn, isNoReturn } from './no-return.js';
export type { NoReturnReason } from './no-return.js';
export { callExitCode, cliExit, minionRetcode, EXIT_OK, EXIT_MINION_FAILED, EXIT_NO_RETURN, MSG_MINION_FAILED, MSG_NO_RETURN } from './exit-code.js';
export type { MinionOutcome } from './exit-code.js';
export { pyRepr, pyStr, pyNumber, splitLines } from './py-text.js';
export { pyJsonDumps } from './py-json.js';
export { COLORS, stripEsc } from './colors.js';
export { highstateBlock, terseStateLine } from './highstate.js';
export { DEFAULT_HIGHSTATE_OPTIONS, HIGHSTATE_FUNCTIONS, STATE_OUTPUT_MODES, defaultOutputterFor, parseStateOutput, parseStateVerbose, resultList } from './highstate-options.js';
export type { HighstateOptions, StateOutputMode } from './highstate-options.js';
