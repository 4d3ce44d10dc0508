// Public surface of targeting: fnmatch globs and the glob/pcre/list target matchers.

export { globToRegExp, globToRegExpSource, globMatch } from './glob.js';
export { matchTarget, minionMatches, matcherFor, supportedTargetTypes, listEntries } from './matchers.js';
export type { TargetType, Target, TargetResult, TargetMatcher } from './matchers.js';
