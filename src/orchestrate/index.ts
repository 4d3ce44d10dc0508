// Orchestration (Salt's state.orchestrate): the master runs an SLS of salt.* steps with the state
// engine; the master's composition root provides the OrchestrateHost.
export type { OrchestrateHost, FullReturn, FunctionCall, GatheredJob } from './host.js';
export { backendFiles, orchestrate, orchestrateShowSls, orchestrationStates, type OrchestrateDeps, type OrchestrateRequest, type OrchestrateReturn } from './orchestrate.js';
export { orchestrateArgs, type OrchestrateArgs } from './runner-args.js';
export { checkResult } from './check-result.js';
