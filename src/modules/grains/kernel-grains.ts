// Salt's kernelparams grain (salt/grains/core.py kernelparams: /proc/cmdline split like a shell
// command line, each word `key=value` or a bare `key`) and transactional (salt/grains/extra.py:
// whether transactional-update is on PATH).

import { splitShellWords } from '../shell-words.js';

/**
 * Pure: [key, value] per word of the kernel command line; value null for a bare word and for a
 * word with more than one `=` (Salt keeps only exactly two parts); double quotes around a value
 * are stripped. Undefined when the text cannot be split (an open quote: Salt's grain fails then).
 */
export function kernelParams(cmdline: string | undefined): Array<[string, string | null]> | undefined {
  if (cmdline === undefined) return undefined;
  let words: string[];
  try {
    words = splitShellWords(cmdline);
  } catch {
    return undefined;
  }
  return words.map((w) => {
    const parts = w.split('=');
    return [parts[0]!, parts.length === 2 ? parts[1]!.replace(/^"+|"+$/g, '') : null];
  });
}

/** Both grains from what the host gave (the /proc/cmdline text, whether transactional-update is on PATH). */
export function kernelGrains(cmdline: string | undefined, hasTransactionalUpdate: boolean): Record<string, unknown> {
  const params = kernelParams(cmdline);
  return { ...(params === undefined ? {} : { kernelparams: params }), transactional: hasTransactionalUpdate };
}
