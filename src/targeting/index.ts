// Public surface of targeting: fnmatch globs, every target matcher (glob, pcre, list, grain,
// grain_pcre, ipcidr, compound, nodegroup), the compound parser and nodegroup expansion.

export { globToRegExp, globToRegExpSource, globMatch } from './glob.js';
export { matchTarget, minionMatches, matcherFor, supportedTargetTypes, targetForMinions } from './matchers.js';
export { listEntries } from './id-matchers.js';
export { selectsByPillar } from './pillar-matchers.js';
export { selectsByNameAlone } from './by-name.js';
export { compileLinearRegex, compileLinearGlob } from './linear-regex.js';
export type { LinearRegex, LinearCompile } from './linear-regex.js';
export { subdictMatch, pyStr } from './subdict-match.js';
export { parseIpAddress, parseIpNetwork, inNetwork, formatIp } from './ip-address.js';
export { parseCompound, splitWords } from './compound-parser.js';
export { expandNodegroup, expandNodegroupRefs } from './nodegroups.js';
export { DEFAULT_DELIMITER } from './types.js';
export type { TargetType, Target, TargetResult, TargetMatcher, Grains, GrainsLookup, MatchOptions, FleetView, SelfView } from './types.js';
export type { CompoundNode, Engine, Word } from './compound-parser.js';
export type { IpAddress, IpNetwork } from './ip-address.js';
