// Public surface of src/modules: the execution-module registry, the built-in modules and grains.

export { defineFunction, defineParam, defineParams } from './define-function.js';
export type { NamedArgs, ParamValue, TypedArgs, TypedModuleFunction } from './define-function.js';
export type {
  BoundArgs,
  ExecContext,
  ExecResult,
  FileClient,
  FileStat,
  Grains,
  SyncHost,
  ModuleFunction,
  ParamSpec,
  ParamType,
  RunningJobInfo,
  RunningJobs,
  MineAccess,
  MinionEventAccess,
  StateProgressReport,
  BeaconControl,
  MineFunctionSpec,
  MineUpdateReport,
  ScheduleControl,
} from './types.js';
export { ModuleRegistry } from './registry.js';
export { createDefaultRegistry } from './default-registry.js';
export { bindArguments, formatSignature } from './bind-args.js';
export { withRetcode, isRetcodeWrapped, resolveRetcode, type RetcodeWrapped } from './retcode.js';
export { BRINE_VERSION } from './version.js';
export { testFunctions } from './test-module.js';
export { cmdFunctions, commandArgv } from './cmd-module.js';
export { grainsFunctions } from './grains-module.js';
export { sysFunctions, describeFunction } from './sys-module.js';
export { saltutilFunctions, parseSignal } from './saltutil-module.js';
export { pillarFunctions, pillarWithOverride } from './pillar-module.js';
export { mineFunctions } from './mine-module.js';
export { collectGrains, type CollectGrainsOptions } from './grains.js';
export { parseOsRelease, osGrainsFrom, type OsGrains } from './os-release.js';
export { osDetailGrains, osArch } from './os-detail-grains.js';
export { initGrain, initNamedIn, type InitProbe } from './grains/init-grain.js';
export { traverseDictAndList } from './traverse.js';
export { splitShellWords } from './shell-words.js';
export { runProcess, DEFAULT_OUTPUT_LIMIT, type ProcessResult, type RunProcessOptions } from './process-runner.js';
export { globToRegExp, hasGlob } from './glob.js';
export { fileFunctions } from './file-module.js';
export { archiveFunctions } from './archive-module.js';
export { networkFunctions } from './network-module.js';
export { statusFunctions, parseMeminfo, parseCpuinfo } from './status-module.js';
export { serviceFunctions, createServiceFunctions, type ServiceOptions } from './service-module.js';
export { pkgFunctions, createPkgFunctions, comparePkgs } from './pkg-module.js';
export { detectBackend, type PkgBackend, type BackendFactories, type InstallOptions } from './pkg-backend.js';
export { userGroupFunctions } from './user-group-module.js';
export { userAdminFunctions, groupList, ACCOUNT_NAME } from './user-admin-module.js';
export { cronFunctions } from './cron-module.js';
export { parseCrontab, renderCrontab, withJob, withSpecial, withoutJob, checkCronFields, CRON_TAG, SPECIALS, type Crontab, type CronJob, type SpecialJob, type SetStatus } from './cron-tab.js';
export { pkgrepoFunctions, createPkgrepoFunctions, aptRequest, dnfRequest, type PkgrepoOptions } from './pkgrepo-module.js';
export { sameRepo, formatSourceLine } from './pkgrepo-apt.js';
export { cacheUrl, extrnPath, fileDigest, isRemoteUrl, redact, urlAnswers, urlScheme, type UrlCacheOptions } from './url-cache.js';
export { findUser, findGroup, readPasswd, readGroups, type PasswdEntry, type GroupEntry } from './user-db.js';
export { resolveRunas, type RunasUser } from './cmd-module.js';
export { loadModuleDirs, importModuleFile, type ModuleLoadLogger, type ModuleLoadReport } from './custom-modules.js';
export { loadCustomGrains, type CustomGrainsResult, type GrainFunctionInput } from './custom-grains.js';
export { syncExtmods, syncEnvs, extmodsDir, nameList, EXTMOD_KINDS, EXTMOD_FILE, type ExtmodKind, type ExtmodFilter, type SyncOutcome } from './extmods-sync.js';
export { saltutilSyncFunctions, type ExtmodsReload } from './saltutil-sync.js';
export { unifiedDiff } from './unified-diff.js';
export { compilePythonRegex, pythonFlags, pythonSubn } from './python-regex.js';
