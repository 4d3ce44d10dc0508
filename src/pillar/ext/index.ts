// Public surface of the ext_pillar framework: the option checked into sources at start, and
// their run per minion. Kinds: cmd_json, cmd_yaml, file_tree and git (git_pillar).

export { EXT_PILLAR_KINDS, planExtPillar, runExtPillars, type ExtPillarParseSetup, type ExtPillarPlan, type ExtPillarRun } from './registry.js';
export type { ExtPillarContext, ExtPillarKind, ExtPillarSetup, ExtPillarSource, PillarTrees } from './types.js';
