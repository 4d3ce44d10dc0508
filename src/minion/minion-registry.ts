// The registry a minion (daemon, job worker, brine call) runs with: the built-in execution
// modules plus those that need the minion's file server (cp).

import { createDefaultRegistry, type ModuleRegistry } from '../modules/index.js';
import { cpFunctions } from '../fileserver/index.js';

export function createMinionRegistry(): ModuleRegistry {
  const registry = createDefaultRegistry();
  registry.registerAll(cpFunctions);
  return registry;
}
