// The registry a minion (daemon, job worker, brine call) runs with: the built-in execution modules,
// those that need the minion's file server (cp), and the state.* functions, which need the
// registry itself for ctx.call and onlyif/unless.

import { createDefaultRegistry, type ModuleRegistry } from '../modules/index.js';
import { cpFunctions, slsFileFunctions } from '../fileserver/index.js';
import { stateExecFunctions, type StateFunctionsOptions } from './functions.js';
import { matchFunctions } from './match-module.js';
import { templateModuleFunctions } from './template-modules.js';

export function createMinionRegistry(opts: StateFunctionsOptions = {}): ModuleRegistry {
  const registry = createDefaultRegistry();
  registry.registerAll(cpFunctions);
  registry.registerAll(templateModuleFunctions());
  registry.registerAll(slsFileFunctions);
  registry.registerAll(matchFunctions);
  registry.registerAll(stateExecFunctions(registry, opts));
  return registry;
}
