// The registry a minion runs with: every built-in execution module, registered explicitly.

import { apacheFunctions } from './apache-module.js';
import { archiveFunctions } from './archive-module.js';
import { cmdFunctions } from './cmd-module.js';
import { cronFunctions } from './cron-module.js';
import { debconfFunctions } from './debconf-module.js';
import { fileFunctions } from './file-module.js';
import { grainsFunctions } from './grains-module.js';
import { grainsSetFunctions } from './grains-set-module.js';
import { mineFunctions } from './mine-module.js';
import { mountFunctions } from './mount-module.js';
import { networkFunctions } from './network-module.js';
import { pillarFunctions } from './pillar-module.js';
import { pkgFunctions } from './pkg-module.js';
import { pkgrepoFunctions } from './pkgrepo-module.js';
import { ModuleRegistry } from './registry.js';
import { saltutilFunctions } from './saltutil-module.js';
import { scheduleFunctions } from './schedule-module.js';
import { saltutilSyncFunctions } from './saltutil-sync.js';
import { serviceFunctions } from './service-module.js';
import { statusFunctions } from './status-module.js';
import { sysFunctions } from './sys-module.js';
import { sysctlFunctions } from './sysctl-module.js';
import { testFunctions } from './test-module.js';
import { userAdminFunctions } from './user-admin-module.js';
import { userGroupFunctions } from './user-group-module.js';

export function createDefaultRegistry(): ModuleRegistry {
  const registry = new ModuleRegistry();
  registry.registerAll(testFunctions);
  registry.registerAll(cmdFunctions);
  registry.registerAll(grainsFunctions);
  registry.registerAll(fileFunctions);
  registry.registerAll(networkFunctions);
  registry.registerAll(statusFunctions);
  registry.registerAll(serviceFunctions);
  registry.registerAll(pkgFunctions);
  registry.registerAll(pkgrepoFunctions);
  registry.registerAll(userGroupFunctions);
  registry.registerAll(userAdminFunctions);
  registry.registerAll(cronFunctions);
  registry.registerAll(archiveFunctions);
  registry.registerAll(saltutilFunctions);
  registry.registerAll(scheduleFunctions);
  registry.registerAll(saltutilSyncFunctions);
  registry.registerAll(pillarFunctions);
  registry.registerAll(mineFunctions);
  registry.registerAll(sysctlFunctions);
  registry.registerAll(apacheFunctions);
  registry.registerAll(mountFunctions);
  registry.registerAll(debconfFunctions);
  registry.registerAll(grainsSetFunctions);
  registry.registerAll(sysFunctions(registry));
  return registry;
}
