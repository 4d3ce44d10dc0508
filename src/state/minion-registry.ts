// The registry a minion (and brine call) runs with: the built-in execution modules plus the
// state.* functions, which need the registry itself for ctx.call and onlyif/unless.

import { createDefaultRegistry, type ModuleRegistry } from '../modules/index.js';
import { stateExecFunctions, type StateFunctionsOptions } from './functions.js';

export function createMinionRegistry(opts: StateFunctionsOptions = {}): ModuleRegistry {
  const registry = createDefaultRegistry();
  registry.registerAll(stateExecFunctions(registry, opts));
  return registry;
}
