// Glob targeting uses the shared fnmatch implementation in util.
export { globToRegExp, globToRegExpSource, globMatch } from '../util/glob.js';
