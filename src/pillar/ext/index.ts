// Public surface of the ext_pillar framework: the option checked into sources at start, and
// their run per minion. Kinds: cmd_json, cmd_yaml, file_tree (git_pillar plugs in later).

export { EXT_PILLAR_KINDS, planExtPillar, runExtPillars, type ExtPillarParseSetup, type ExtPillarPlan, type ExtPillarRun } from './registry.js';
export type { ExtPillarContext, ExtPillarKind, ExtPillarSetup, ExtPillarSource } from './types.js';
