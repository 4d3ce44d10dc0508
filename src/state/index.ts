// Public surface of src/state: the state system (compile SLS to low data, order by requisites,
// run, report), its state modules and the state.* execution functions.

export { defineState } from './types.js';
export type { LowRef, StateContext, StateFunction, StateResult, TemplateRequest, TypedStateFunction } from './types.js';
export { createStateContext, type StateContextOptions } from './context.js';
export { builtinStateFunctions } from './modules/index.js';
export { renderStateFunctions, spliceStatesDoc, generatedPart, updateStatesDoc, STATES_DOC_BEGIN, STATES_DOC_END, REGENERATE_STATES_DOC_COMMAND } from './docs.js';
export { createMinionRegistry } from './minion-registry.js';
export { stateExecFunctions, STATE_FAILURE_RETCODE, type StateFunctionsOptions } from './functions.js';
export { testStateFunctions } from './modules/test-states.js';
export { memoryFiles, fileClientFiles, findSls, type SlsFiles } from './sls-source.js';
export { chunkTag, type LowChunk, type HighId, type CompileError } from './compiler/high-types.js';
export type { StateReturn } from './runtime/runner.js';
export { STATE_RUN_FUNCTIONS, stateRunConflict, wantsConcurrent, wantsQueue, runningMessage } from './run-lock.js';
export { StateLockFile, holderInfo, STATE_LOCK_FILE, type StateLockHolder } from './state-lock-file.js';
// the pillar compiler shares the top file, include resolution and SLS variables with states
export { evaluateTop, type TopMinion, type TopOptions } from './top-file.js';
export { mergeTops, topEnvsToRead, TOP_MERGING_STRATEGIES, type TopMergingStrategy } from './top-merge.js';
export { resolveInclude } from './compiler/assemble-high.js';
export { slsVariables } from './sls-render.js';
// the master runs orchestrations (state.orchestrate) with the same stages and its own salt.* states
export { compileRequest, buildHigh, runCompiled, compileFailed, type StateEnv, type SlsRequest } from './state-run.js';
export { functionMap } from './compiler/compile.js';
export { highToSalt } from './show.js';
