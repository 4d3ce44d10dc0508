// Public surface of src/pillar: the pillar compiler (top file, SLS render, include, merge) and
// its sources (pillar_roots on disk, or an in-memory tree), the ext_pillar framework and the gpg options. Used by the master, and by a
// masterless minion for its own pillar_roots.

export { compilePillar, type PillarCompileOptions, type PillarMinion, type PillarResult } from './compile.js';
export { checkMergeStrategy, copyData, mergeOverwrite, mergePillar, mergeRecurse, MERGE_STRATEGIES, type MergeStrategy, type PillarData } from '../util/dict-merge.js';
export { GpgCache, gpgKeysStamp, gpgOptionsOf, type GpgConfig, type GpgOptions } from './gpg-options.js';
export { EXT_PILLAR_KINDS, planExtPillar, type ExtPillarPlan, type ExtPillarSource } from './ext/index.js';
export { DEFAULT_PILLAR_ROOTS, memoryPillarSource, PillarRoots, type PillarRootsConfig, type PillarSource } from './source.js';
