// Public surface of src/config: the option table, the loader, typed views, `config show` and
// the generator of docs/configuration.md.

export { ROLES, byRole, defaultFor, describeType, RoleDefault } from './option-spec.js';
export type { OptionSpec, OptionType, OptionUnit, Role } from './option-spec.js';
export { OPTIONS, findOption, knownOptionNames, optionsFor } from './schema.js';
export { checkValue, describeValue } from './check-value.js';
export type { CheckResult } from './check-value.js';
export { editDistance, suggestOption } from './typo.js';
export { prependRootDir, resolveTrees, treePath } from './root-dir.js';
export { parseConfigText, readConfigFile } from './read-file.js';
export { DEFAULT_CONFIG_DIR, DEFAULT_SOURCE, DERIVED_SOURCE, OVERRIDE_SOURCE, loadConfig } from './load.js';
export type { LoadOptions, LoadedConfig } from './load.js';
export { asMasterOptions, asMinionOptions } from './options.js';
export type { CommonOptions, MasterOptions, MinionOptions } from './options.js';
export { renderConfig } from './show.js';
export { REGENERATE_COMMAND, renderConfigurationDoc } from './docs.js';
