// The registry a minion runs with: every built-in execution module, registered explicitly.

import { cmdFunctions } from './cmd-module.js';
import { grainsFunctions } from './grains-module.js';
import { ModuleRegistry } from './registry.js';
import { saltutilFunctions } from './saltutil-module.js';
import { sysFunctions } from './sys-module.js';
import { testFunctions } from './test-module.js';

export function createDefaultRegistry(): ModuleRegistry {
  const registry = new ModuleRegistry();
  registry.registerAll(testFunctions);
  registry.registerAll(cmdFunctions);
  registry.registerAll(grainsFunctions);
  registry.registerAll(saltutilFunctions);
  registry.registerAll(sysFunctions(registry));
  return registry;
}
