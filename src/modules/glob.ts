// Shell-style patterns select function names in sys.*; the fnmatch implementation is shared.
export { globToRegExp } from '../util/glob.js';

export function hasGlob(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}
